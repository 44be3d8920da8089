// Which objects an ObjectPatch may write (docs/drivers.md): only what the Cluster API provider
// needs, only in the request's own namespace. The pool runs with write access to these kinds, so
// this list, not RBAC alone, keeps a request from becoming a general "patch anything" channel.
import type { ObjectPatch, PatchTarget } from '../../domain/capi/requests.js';
import { parsePointer } from './json-pointer.js';

interface AllowedKind {
  group: string;
  versions: readonly string[];
  kind: string;
  plural: string;
  /** The status subresource may be patched. */
  status: boolean;
  /** Operations may touch only /metadata/labels (and no conditions). */
  labelsOnly: boolean;
}

const CAPI_VERSIONS = ['v1beta1', 'v1beta2'] as const;

export const ALLOWED_TARGETS: readonly AllowedKind[] = [
  { group: 'metal3.io', versions: ['v1alpha1'], kind: 'BareMetalHost', plural: 'baremetalhosts', status: false, labelsOnly: false },
  { group: '', versions: ['v1'], kind: 'Secret', plural: 'secrets', status: false, labelsOnly: true },
  { group: 'infrastructure.cluster.x-k8s.io', versions: CAPI_VERSIONS, kind: 'Metal3Machine', plural: 'metal3machines', status: false, labelsOnly: false },
  {
    group: 'infrastructure.cluster.x-k8s.io',
    versions: CAPI_VERSIONS,
    kind: 'Metal3Remediation',
    plural: 'metal3remediations',
    status: false,
    labelsOnly: false,
  },
  { group: 'cluster.x-k8s.io', versions: CAPI_VERSIONS, kind: 'Machine', plural: 'machines', status: true, labelsOnly: false },
];

/** Where an allowed target lives: what the client calls need (drivers/cluster/objects.ts). */
export interface TargetRef {
  group: string;
  version: string;
  plural: string;
  namespace: string;
  name: string;
  /** The status subresource. */
  status: boolean;
}

export type TargetCheck = { kind: 'allowed'; ref: TargetRef } | { kind: 'rejected'; message: string };

function splitAPIVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

function targetRef(target: PatchTarget, plural: string): TargetRef {
  const { group, version } = splitAPIVersion(target.apiVersion);
  return { group, version, plural, namespace: target.namespace, name: target.name, status: target.subresource === 'status' };
}

/** The REST path of a target (with /status for the subresource), for messages and tests. */
export function refPath(ref: TargetRef): string {
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const path = `${base}/namespaces/${ref.namespace}/${ref.plural}/${ref.name}`;
  return ref.status ? `${path}/status` : path;
}

function isLabelPointer(pointer: string | undefined): boolean {
  const segments = pointer === undefined ? undefined : parsePointer(pointer);
  return segments !== undefined && segments.length >= 2 && segments.length <= 3 && segments[0] === 'metadata' && segments[1] === 'labels';
}

function labelsOnlyProblem(request: ObjectPatch): string | undefined {
  const outside = request.spec.operations.find(
    (operation) => !isLabelPointer(operation.path) || (operation.from !== undefined && !isLabelPointer(operation.from)),
  );
  if (outside !== undefined) {
    return `operations on a ${request.spec.target.kind} may only touch /metadata/labels, not ${outside.path}`;
  }
  return (request.spec.conditions ?? []).length > 0 ? `a ${request.spec.target.kind} has no conditions to upsert` : undefined;
}

function findKind(target: PatchTarget): AllowedKind | undefined {
  const { group, version } = splitAPIVersion(target.apiVersion);
  return ALLOWED_TARGETS.find((allowed) => allowed.group === group && allowed.kind === target.kind && allowed.versions.includes(version));
}

/** Allowed, with where the target lives; or rejected with the reason for people. */
export function checkTarget(request: ObjectPatch): TargetCheck {
  const { target } = request.spec;
  const namespace = request.metadata.namespace ?? '';
  if (target.namespace !== namespace) {
    return { kind: 'rejected', message: `the target's namespace ${target.namespace} is not the request's namespace ${namespace}` };
  }
  const allowed = findKind(target);
  if (allowed === undefined) {
    return { kind: 'rejected', message: `${target.kind} ${target.apiVersion} is not a kind the driver pool patches for the Cluster API provider` };
  }
  if (target.subresource === 'status' && !allowed.status) {
    return { kind: 'rejected', message: `the driver pool does not patch the status of a ${target.kind}` };
  }
  const problem = allowed.labelsOnly ? labelsOnlyProblem(request) : undefined;
  return problem === undefined ? { kind: 'allowed', ref: targetRef(target, allowed.plural) } : { kind: 'rejected', message: problem };
}
