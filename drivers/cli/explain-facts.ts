// `ironhook explain`: the facts about one BareMetalHost, gathered from the objects the apiserver
// holds (the host, its HostOperation requests, its BMCMonitor, its Events). Pure: objects in,
// facts out, so every rendering and next-step rule is tested without a cluster.
import { Annotation } from '../../domain/baremetalhost.js';
import type { BareMetalHost } from '../../domain/baremetalhost.js';
import type { Condition } from '../../domain/k8s.js';
import type { BMCMonitor, HostOperation } from '../../domain/operations.js';

export interface EventView {
  type: string;
  reason: string;
  message: string;
  count: number;
  lastTimestamp: string;
}

export interface ExplainObjects {
  host: BareMetalHost;
  operations: readonly HostOperation[];
  monitor: BMCMonitor | undefined;
  events: readonly EventView[];
}

export interface RequestFacts {
  name: string;
  action: string;
  phase: string;
  message: string;
  notBefore?: string;
  delayReason?: string;
  steps: { name: string; state: string; message: string }[];
  error?: { reason: string; kind: string; message: string };
}

export interface ExplainFacts {
  name: string;
  namespace: string;
  state: string;
  operationalStatus: string;
  online: boolean;
  poweredOn: boolean;
  paused: boolean;
  detached: boolean;
  deleting: boolean;
  bmcAddress: string;
  credentialsName: string;
  /** What the host waits for: the Progressing condition's message. */
  waitingFor: string;
  error?: { type: string; message: string; count: number };
  request?: RequestFacts;
  /** The last failed requests, newest first (at most three). */
  lastErrors: { request: string; reason: string; kind: string; message: string }[];
  bmc?: { reachable: boolean; poweredOn: boolean; observedTime: string; error?: string };
  /** Advisory and problem conditions first, then the rest; each once. */
  conditions: Pick<Condition, 'type' | 'status' | 'reason' | 'message'>[];
  events: EventView[];
}

const MAX_EVENTS = 8;
const MAX_ERRORS = 3;

/** Upstream's conditions, whose normal reading is True (or Unknown for Healthy). */
const UPSTREAM_CONDITIONS = new Set(['Manageable', 'AvailableForProvisioning', 'Provisioned', 'Ready', 'Progressing', 'Healthy']);

function requestFacts(operation: HostOperation): RequestFacts {
  const status = operation.status ?? {};
  return {
    name: operation.metadata.name ?? '',
    action: operation.spec.action,
    phase: status.phase ?? 'Pending',
    message: status.message ?? '',
    ...(operation.spec.notBefore && { notBefore: operation.spec.notBefore }),
    ...(status.delayReason && { delayReason: status.delayReason }),
    steps: (status.steps ?? []).map((step) => ({ name: step.name, state: step.state, message: step.message ?? '' })),
    ...(status.error && { error: { reason: status.error.reason, kind: status.error.kind, message: status.error.message } }),
  };
}

function bySequenceDescending(operations: readonly HostOperation[]): HostOperation[] {
  return [...operations].sort((a, b) => b.spec.sequence - a.spec.sequence);
}

function lastErrors(operations: readonly HostOperation[]): ExplainFacts['lastErrors'] {
  return bySequenceDescending(operations)
    .flatMap((operation) => {
      const error = operation.status?.error;
      return error ? [{ request: operation.metadata.name ?? '', reason: error.reason, kind: error.kind, message: error.message }] : [];
    })
    .slice(0, MAX_ERRORS);
}

/** True advisories and upstream conditions that read wrong come first: they are why the host is stuck. */
function ordered(conditions: readonly Condition[]): ExplainFacts['conditions'] {
  const notable = (item: Condition): boolean =>
    UPSTREAM_CONDITIONS.has(item.type) ? item.reason === 'Error' || item.reason === 'RegistrationFailed' : item.status === 'True';
  const view = (item: Condition): ExplainFacts['conditions'][number] => ({ type: item.type, status: item.status, reason: item.reason, message: item.message });
  return [...conditions.filter(notable), ...conditions.filter((item) => !notable(item))].map(view);
}

function monitorFacts(monitor: BMCMonitor | undefined): ExplainFacts['bmc'] {
  const status = monitor?.status;
  if (status === undefined) {
    return undefined;
  }
  return {
    reachable: status.reachable ?? false,
    poweredOn: status.poweredOn ?? false,
    observedTime: status.observedTime ?? '',
    ...(status.error && { error: `${status.error.reason}: ${status.error.message}` }),
  };
}

function errorFacts(host: BareMetalHost): ExplainFacts['error'] {
  const status = host.status ?? {};
  return status.errorType ? { type: status.errorType, message: status.errorMessage ?? '', count: status.errorCount ?? 0 } : undefined;
}

function currentRequest(objects: ExplainObjects): HostOperation | undefined {
  const named = objects.host.status?.ironhook?.request?.name;
  return objects.operations.find((item) => item.metadata.name === named) ?? bySequenceDescending(objects.operations)[0];
}

function hostFacts(host: BareMetalHost): Omit<ExplainFacts, 'waitingFor' | 'lastErrors' | 'conditions' | 'events' | 'error' | 'request' | 'bmc'> {
  const { name = '', namespace = '', annotations = {}, deletionTimestamp } = host.metadata;
  return {
    name,
    namespace,
    ...statusFacts(host.status ?? {}),
    online: host.spec.online,
    paused: annotations[Annotation.Paused] !== undefined,
    detached: annotations[Annotation.Detached] !== undefined,
    deleting: deletionTimestamp !== undefined,
    bmcAddress: host.spec.bmc?.address ?? '',
    credentialsName: host.spec.bmc?.credentialsName ?? '',
  };
}

function statusFacts(status: NonNullable<BareMetalHost['status']>): Pick<ExplainFacts, 'state' | 'operationalStatus' | 'poweredOn'> {
  return { state: status.provisioning?.state || 'none', operationalStatus: status.operationalStatus ?? '', poweredOn: status.poweredOn ?? false };
}

function newestFirst(events: readonly EventView[]): EventView[] {
  return [...events].sort((a, b) => b.lastTimestamp.localeCompare(a.lastTimestamp) || a.reason.localeCompare(b.reason)).slice(0, MAX_EVENTS);
}

export function gatherFacts(objects: ExplainObjects): ExplainFacts {
  const conditions = objects.host.status?.conditions ?? [];
  const current = currentRequest(objects);
  const bmc = monitorFacts(objects.monitor);
  const error = errorFacts(objects.host);
  return {
    ...hostFacts(objects.host),
    waitingFor: conditions.find((item) => item.type === 'Progressing')?.message ?? '',
    ...(error && { error }),
    ...(current && { request: requestFacts(current) }),
    lastErrors: lastErrors(objects.operations),
    ...(bmc && { bmc }),
    conditions: ordered(conditions),
    events: newestFirst(objects.events),
  };
}
