// Readers of rendered Metacontroller controller objects (CompositeController, DecoratorController)
// for the chart tests: their hooks, parent or decorated types and children.
import type { RenderedObject } from './helm.js';

const CONTROLLER_KINDS = new Set(['CompositeController', 'DecoratorController']);

export const ofKind = (objects: RenderedObject[], kind: string): RenderedObject[] => objects.filter((o) => o.kind === kind);
export const named = (objects: RenderedObject[], kind: string, name: string): RenderedObject | undefined =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);

interface Webhook {
  url?: string;
  timeout?: string;
  caBundle?: Record<string, unknown>;
  authorization?: { type?: string; secretRef?: Record<string, unknown> };
  basicAuth?: Record<string, unknown>;
  clientTLS?: Record<string, unknown>;
}
export interface Hook {
  version?: string;
  webhook?: Webhook;
}
export interface ResourceRule {
  apiVersion: string;
  resource: string;
  updateStrategy?: { method?: string };
}
export interface ControllerSpec {
  hooks: Record<string, Hook>;
  resyncPeriodSeconds?: number;
  childResources?: ResourceRule[];
  attachments?: ResourceRule[];
  parentResource?: ResourceRule;
  resources?: ResourceRule[];
}

export const specOf = (o: RenderedObject): ControllerSpec => o.spec as ControllerSpec;
export const controllersOf = (objects: RenderedObject[]): RenderedObject[] => objects.filter((o) => CONTROLLER_KINDS.has(o.kind));
export const hooksOf = (o: RenderedObject): [string, Hook][] => Object.entries(specOf(o).hooks);
/** The parent (CompositeController) or decorated types (DecoratorController). */
export const parentsOf = (o: RenderedObject): ResourceRule[] => {
  const spec = specOf(o);
  return spec.parentResource === undefined ? (spec.resources ?? []) : [spec.parentResource];
};
export const childrenOf = (o: RenderedObject): ResourceRule[] => specOf(o).childResources ?? specOf(o).attachments ?? [];
