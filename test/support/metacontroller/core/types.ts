// The CompositeController / DecoratorController API (metacontroller.k8s.io/v1alpha1) as far
// as the stand-in reads it. Field names are upstream's JSON names.
import type { KObject } from '../kube/objects.js';
import type { AnnotationSelector, LabelSelector } from './selector.js';

export interface SecretRef {
  name: string;
  namespace: string;
  key?: string;
}

export interface CABundle {
  inline?: string;
  secretRef?: SecretRef;
  configMapRef?: SecretRef;
}

export interface Authorization {
  type?: string;
  secretRef?: SecretRef;
}

export interface BasicAuth {
  secretRef?: { name: string; namespace: string };
  usernameKey?: string;
  passwordKey?: string;
}

export interface ClientTLS {
  secretRef?: { name: string; namespace: string };
  certKey?: string;
  privateKeyKey?: string;
}

export interface EndpointSettings {
  caBundle?: CABundle;
  authorization?: Authorization;
  basicAuth?: BasicAuth;
  clientTLS?: ClientTLS;
}

export interface EndpointConfig extends EndpointSettings {
  host: string;
}

export interface Webhook extends EndpointSettings {
  url?: string;
  path?: string;
  service?: { name: string; namespace: string; port?: number; protocol?: string };
  timeout?: string;
  responseUnMarshallMode?: 'loose' | 'strict';
  etag?: { enabled?: boolean };
}

export interface Hook {
  version?: 'v1' | 'v2';
  webhook?: Webhook;
}

export type HookName = 'sync' | 'finalize' | 'customize';

export interface Hooks {
  sync?: Hook;
  finalize?: Hook;
  customize?: Hook;
}

export type UpdateMethod = 'OnDelete' | 'Recreate' | 'InPlace' | 'RollingRecreate' | 'RollingInPlace';

export interface ChildRule {
  apiVersion: string;
  resource: string;
  updateStrategy?: { method?: UpdateMethod };
}

export interface CompositeSpec {
  parentResource: { apiVersion: string; resource: string; labelSelector?: LabelSelector; ignoreStatusChanges?: boolean };
  childResources?: ChildRule[];
  resyncPeriodSeconds?: number;
  generateSelector?: boolean;
  hooks?: Hooks;
  endpointConfigs?: EndpointConfig[];
}

export interface DecoratorTargetRule {
  apiVersion: string;
  resource: string;
  labelSelector?: LabelSelector;
  annotationSelector?: AnnotationSelector;
  ignoreStatusChanges?: boolean;
}

export interface DecoratorSpec {
  resources: DecoratorTargetRule[];
  attachments?: ChildRule[];
  resyncPeriodSeconds?: number;
  hooks?: Hooks;
  endpointConfigs?: EndpointConfig[];
}

export type CompositeController = KObject & { spec: CompositeSpec };
export type DecoratorController = KObject & { spec: DecoratorSpec };

export const COMPOSITE_FINALIZER_PREFIX = 'metacontroller.io/compositecontroller-';
export const DECORATOR_FINALIZER_PREFIX = 'metacontroller.io/decoratorcontroller-';
export const LAST_APPLIED_ANNOTATION = 'metacontroller.k8s.io/last-applied-configuration';
export const DECORATOR_ANNOTATION = 'metacontroller.k8s.io/decorator-controller';

/** OnDelete when the strategy or its method is absent (upstream's default). */
export function updateMethod(rule: ChildRule | undefined): UpdateMethod {
  return rule?.updateStrategy?.method ?? 'OnDelete';
}
