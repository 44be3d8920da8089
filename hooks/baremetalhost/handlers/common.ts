// Reading a request's progress the same way in every state.
import type { ErrorType } from '../../../domain/baremetalhost.js';
import { Phase } from '../../../domain/operations.js';
import type { HostOperation, RequestParametersOf } from '../../../domain/operations.js';
import type { HostContext } from '../context.js';
import { permanent, transient, wait } from '../outcome.js';
import type { Outcome, RequestIntent, StatusPatch } from '../outcome.js';

export function describeRequest(operation: HostOperation): string {
  return `${operation.spec.action} (${operation.metadata.name ?? ''})`;
}

/** The outcome for a request that is not finished yet. */
export function waitForRequest(_ctx: HostContext, operation: HostOperation, patch?: StatusPatch): Outcome {
  const status = operation.status;
  if (status?.phase === Phase.Delayed) {
    return wait(status.delayReason ?? `${describeRequest(operation)} is waiting for a provisioning slot`, { delayed: true });
  }
  if (status?.phase === Phase.Running) {
    const progress = status.message ? `: ${status.message}` : '';
    return wait(`${describeRequest(operation)} is running${progress}`, patch ? { patch } : {});
  }
  const after = operation.spec.notBefore ? ` (not before ${operation.spec.notBefore})` : '';
  return wait(`waiting for the driver pool to start ${describeRequest(operation)}${after}`, patch ? { patch } : {});
}

/** The same request again, as a new request (a retry never reuses a name). */
function sameRequest(operation: HostOperation): RequestIntent {
  const spec = operation.spec;
  const parameters: RequestParametersOf = {
    ...(spec.register && { register: spec.register }),
    ...(spec.inspect && { inspect: spec.inspect }),
    ...(spec.prepare && { prepare: spec.prepare }),
    ...(spec.provision && { provision: spec.provision }),
    ...(spec.deprovision && { deprovision: spec.deprovision }),
    ...(spec.power && { power: spec.power }),
  };
  return { action: spec.action, parameters };
}

export function failureMessage(operation: HostOperation): string {
  const error = operation.status?.error;
  return error?.message ?? `${operation.spec.action} failed`;
}

/** A failed request: retry transient failures after back-off, report permanent ones and stop. */
export function retryOrFail(_ctx: HostContext, operation: HostOperation, errorType: ErrorType, patch?: StatusPatch): Outcome {
  const failure = { errorType, message: failureMessage(operation), source: 'request' as const };
  return operation.status?.error?.kind === 'Permanent' ? permanent(failure, patch) : transient(failure, sameRequest(operation));
}
