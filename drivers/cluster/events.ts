// The Event a finished ObjectPatch or NodeOperation leaves, on the object whose hook asked for it
// (the request's controller owner: the Metal3Machine or Metal3Remediation, so `kubectl describe`
// there shows what the pool did for it), else on the request itself. Recorded only after the final
// status is written, so an Event never describes an outcome the cluster does not show.
import { NODE_OPERATION_KIND, PURPOSE_LABEL } from '../../domain/capi/requests.js';
import type { NodeOperation, ObjectPatch } from '../../domain/capi/requests.js';
import { Phase } from '../../domain/operations.js';
import type { EventTarget } from '../pool/events.js';

type Request = ObjectPatch | NodeOperation;

export interface RequestEvent {
  target: EventTarget;
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
}

interface FinalStatus {
  phase?: unknown;
  reason?: unknown;
  message?: unknown;
}

function involved(request: Request): EventTarget {
  const namespace = request.metadata.namespace ?? '';
  const owner = (request.metadata.ownerReferences ?? []).find((ref) => ref.controller === true);
  if (owner !== undefined) return { namespace, name: owner.name, uid: owner.uid, kind: owner.kind, apiVersion: owner.apiVersion };
  return { namespace, name: request.metadata.name ?? '', uid: request.metadata.uid ?? '', kind: request.kind, apiVersion: request.apiVersion };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** What the request was about, for people: `ObjectPatch w-1-claim-2 (claim) on BareMetalHost host-a`. */
function subject(request: Request): string {
  const purpose = request.metadata.labels?.[PURPOSE_LABEL];
  const head = `${request.kind} ${request.metadata.name ?? ''}${purpose === undefined ? '' : ` (${purpose})`}`;
  if (request.kind === NODE_OPERATION_KIND) {
    const { action, node, cluster } = (request as NodeOperation).spec;
    const which = node.name ?? node.uuid ?? (node.hostnames ?? []).join(',');
    return `${head}: ${action} of Node ${which} in cluster ${cluster.name}`;
  }
  const { kind, name } = (request as ObjectPatch).spec.target;
  return `${head} on ${kind} ${name}`;
}

/** ObjectPatch<Reason> (Applied is Normal, TestFailed/NotFound/Rejected Warning); NodeOperation<Phase>. */
export function requestEvent(request: Request, status: FinalStatus): RequestEvent {
  const phase = text(status.phase);
  const outcome = request.kind === NODE_OPERATION_KIND ? phase : text(status.reason) || phase;
  const message = text(status.message);
  return {
    target: involved(request),
    reason: `${request.kind}${outcome}`,
    message: message === '' ? subject(request) : `${subject(request)}: ${message}`,
    type: phase === Phase.Succeeded ? 'Normal' : 'Warning',
  };
}
