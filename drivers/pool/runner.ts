// Runs one request once: Running (keeping startTime when resumed), the action's executor,
// then Succeeded or Failed with a classified error. A cancelled run (superseded, deleted, shut
// down) writes nothing more: its status stays resumable. Events and metrics follow the status
// write they describe.
import { formatTime } from '../../domain/backoff.js';
import { Action, Phase } from '../../domain/operations.js';
import type { HostOperation, HostOperationStatus, OperationError } from '../../domain/operations.js';
import type { Clock } from './clock.js';
import type { ConnectDeps } from './connect.js';
import { isAbort } from '../errors.js';
import { classify } from './errors.js';
import type { EventRecorder } from './events.js';
import { Execution } from './execution.js';
import { EXECUTORS } from './executors/index.js';
import type { Executor, HostServices } from './executors/index.js';
import type { KubePort } from '../kube/port.js';
import type { Logger } from './logging.js';
import { errorFields } from './logging.js';
import type { PoolMetrics } from './metrics.js';
import { failureEvent, startEvents, successEvents } from './operation-events.js';
import { OperationStatusWriter } from './status-writer.js';

export interface RunnerDeps {
  kube: KubePort;
  clock: Clock;
  logger: Logger;
  metrics: PoolMetrics;
  events: EventRecorder;
  services: HostServices;
  connectDeps: ConnectDeps;
  executors?: Record<Action, Executor>;
}

const DURATION_ACTIONS: Partial<Record<Action, 'register' | 'inspect' | 'provision' | 'deprovision'>> = {
  [Action.Register]: 'register',
  [Action.Inspect]: 'inspect',
  [Action.Provision]: 'provision',
  [Action.Deprovision]: 'deprovision',
};

function hostOf(op: HostOperation): { namespace: string; name: string; uid: string } {
  return { namespace: op.metadata.namespace ?? '', name: op.spec.host.name, uid: op.spec.host.uid };
}

function countCredentials(deps: RunnerDeps, op: HostOperation, error: OperationError): void {
  if (op.spec.action !== Action.Register) {
    return;
  }
  const counters: Record<string, { inc(): void } | undefined> = {
    CredentialsNotFound: deps.metrics.credentialsMissing,
    CredentialsInvalid: deps.metrics.credentialsInvalid,
    AuthenticationFailed: deps.metrics.credentialsNoManagementAccess,
    KubernetesAPIError: deps.metrics.credentialsUnhandledError,
  };
  counters[error.reason]?.inc();
}

function observeDuration(deps: RunnerDeps, op: HostOperation, startTime: string): void {
  const name = DURATION_ACTIONS[op.spec.action];
  if (name !== undefined) {
    const host = hostOf(op);
    deps.metrics.operationDuration[name].observe(deps.metrics.hostLabels(host.namespace, host.name), (deps.clock.now() - Date.parse(startTime)) / 1000);
  }
}

/** One run of one request: what every phase of it needs. */
interface Run {
  deps: RunnerDeps;
  op: HostOperation;
  writer: OperationStatusWriter;
  execution: Execution;
  startTime: string;
}

function logFields(op: HostOperation): Record<string, unknown> {
  const host = hostOf(op);
  return { namespace: host.namespace, host: host.name, operation: op.metadata.name, action: op.spec.action, sequence: op.spec.sequence };
}

async function begin({ deps, op, writer, execution }: Run): Promise<void> {
  deps.logger.info(logFields(op), execution.resumed ? 'resuming a request found Running' : 'running a request');
  await writer.write({ phase: Phase.Running, startTime: writer.status.startTime, delayReason: null, message: `running ${op.spec.action}` });
  if (execution.resumed) {
    await execution.note('Resume', 'the pool restarted while this request was running; the BMC state is read before acting');
    return;
  }
  for (const event of startEvents(op)) {
    await deps.events.record(hostOf(op), event.reason, event.message, event.type);
  }
}

async function succeed({ deps, op, writer, execution }: Run, result: HostOperationStatus['result']): Promise<void> {
  const merged = { ...execution.result, ...result };
  await writer.writeFinal({
    phase: Phase.Succeeded,
    completionTime: formatTime(deps.clock.now()),
    message: `${op.spec.action} succeeded`,
    error: null,
    ...(Object.keys(merged).length > 0 && { result: merged }),
  });
  for (const event of successEvents(op)) {
    await deps.events.record(hostOf(op), event.reason, event.message);
  }
  deps.metrics.operations.inc({ action: op.spec.action, result: 'succeeded' });
  deps.logger.info({ ...logFields(op), durationMs: deps.clock.now() - Date.parse(writer.status.startTime ?? '') }, 'request succeeded');
}

async function fail({ deps, op, writer, execution }: Run, failure: unknown): Promise<void> {
  const error = classify(failure, execution.secrets);
  await writer.writeFinal({
    phase: Phase.Failed,
    completionTime: formatTime(deps.clock.now()),
    message: error.message,
    error,
    ...(Object.keys(execution.result).length > 0 && { result: execution.result }),
  });
  const event = failureEvent(op, error);
  await deps.events.record(hostOf(op), event.reason, event.message);
  deps.metrics.hostErrors.inc({ error_type: event.reason });
  deps.metrics.operations.inc({ action: op.spec.action, result: 'failed' });
  countCredentials(deps, op, error);
  deps.logger.warn({ ...logFields(op), reason: error.reason, kind: error.kind, detail: error.message }, 'request failed');
}

function prepare(deps: RunnerDeps, op: HostOperation, signal: AbortSignal): Run {
  const host = hostOf(op);
  const resumed = op.status?.phase === Phase.Running;
  const startTime = resumed ? (op.status?.startTime ?? formatTime(deps.clock.now())) : formatTime(deps.clock.now());
  const writer = new OperationStatusWriter(
    deps.kube,
    { namespace: host.namespace, name: op.metadata.name ?? '' },
    { ...op.status, startTime },
    { clock: deps.clock, logger: deps.logger },
  );
  const onPowerChange = (to: 'on' | 'off'): void => {
    deps.metrics.powerChanges.inc({ ...deps.metrics.hostLabels(host.namespace, host.name), on_off: to });
  };
  const execution = new Execution({ op, host, signal, services: deps.services, connectDeps: deps.connectDeps, writer, resumed, onPowerChange });
  return { deps, op, writer, execution, startTime };
}

/** Executes `op`; returns the final status, or undefined when the run was cancelled. */
export async function runOperation(deps: RunnerDeps, op: HostOperation, signal: AbortSignal): Promise<HostOperationStatus | undefined> {
  const run = prepare(deps, op, signal);
  const executor = (deps.executors ?? EXECUTORS)[op.spec.action];
  try {
    await begin(run);
    await succeed(run, await executor(run.execution));
  } catch (failure) {
    if (signal.aborted || isAbort(failure)) {
      deps.metrics.operations.inc({ action: op.spec.action, result: 'cancelled' });
      deps.logger.info(
        { namespace: run.execution.host.namespace, host: op.spec.host.name, operation: op.metadata.name, reason: String(signal.reason ?? 'cancelled') },
        'request cancelled; status left as it was',
      );
      return undefined;
    }
    await fail(run, failure).catch((error: unknown) => {
      deps.logger.error({ operation: op.metadata.name, err: errorFields(error) }, 'could not record a failure');
    });
  } finally {
    await run.execution.close();
  }
  observeDuration(deps, op, run.startTime);
  return run.writer.status;
}
