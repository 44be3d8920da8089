// Small readers of observed objects: request sequence and outcome, timestamps, host fields.
import type { KObject } from '../../domain/k8s.js';
import { Phase } from '../../domain/operations.js';
import { isRecord, rec, str } from '../kit/index.js';

/** The attempt number at the end of a request's name (`<machine>-<purpose>-<sequence>`). */
export function sequenceOf(request: KObject): number {
  const match = /-(\d+)$/u.exec(request.metadata.name ?? '');
  return match === null ? 0 : Number(match[1]);
}

export function phaseOf(request: KObject | undefined): string {
  return str(rec(request?.status).phase);
}

function isFinished(request: KObject | undefined): boolean {
  const phase = phaseOf(request);
  return phase === Phase.Succeeded || phase === Phase.Failed;
}

export function isInFlight(request: KObject | undefined): boolean {
  return request !== undefined && !isFinished(request);
}

/** An ObjectPatch's reason (`Applied`, `TestFailed`, …) once finished, else ''. */
export function patchReason(request: KObject | undefined): string {
  return isFinished(request) ? str(rec(request?.status).reason) : '';
}

export function requestMessage(request: KObject | undefined): string {
  const status = rec(request?.status);
  return str(status.message) || str(rec(status.error).message);
}

export function hostState(host: KObject | undefined): string {
  return str(rec(rec(host?.status).provisioning).state);
}

export function hostSpec(host: KObject | undefined): Record<string, unknown> {
  return rec(host?.spec);
}

/** The group of an apiVersion as Kubernetes' schema.ParseGroupVersion reads it; undefined when it cannot be parsed. */
export function groupOf(apiVersion: string): string | undefined {
  const parts = apiVersion.split('/');
  if (parts.length > 2) return undefined;
  return parts.length === 2 ? parts[0] : '';
}

/** Whether the host has a consumerRef at all (an empty one included, as upstream's non-nil pointer). */
export function hasConsumerRef(host: KObject | undefined): boolean {
  return isRecord(hostSpec(host).consumerRef);
}

/** The host's consumerRef, when it names anything (`group` undefined: an apiVersion that does not parse). */
export function consumerOf(host: KObject | undefined): { kind: string; name: string; namespace: string; group: string | undefined } | undefined {
  const ref = rec(hostSpec(host).consumerRef);
  if (Object.keys(ref).length === 0) return undefined;
  return { kind: str(ref.kind), name: str(ref.name), namespace: str(ref.namespace), group: groupOf(str(ref.apiVersion)) };
}
