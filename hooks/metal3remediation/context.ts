// Everything one remediation step reads, gathered from a Metacontroller v2 request: the parent's
// strategy and status, the resolved Machine / Metal3Machine / host, the request children, and the
// newest timestamp any observed object carries (hooks read no clock; docs/capm3-remediation.md).
import {
  isNodeOperation,
  isObjectPatch,
  NODE_OPERATION_KIND,
  OBJECT_PATCH_KIND,
  PURPOSE_LABEL,
  type NodeOperation,
  type ObjectPatch,
} from '../../domain/capi/requests.js';
import { Capm3Kind, REMEDIATION_DEFAULTS, RemediationPhase } from '../../domain/capm3/types.js';
import type { KObject } from '../../domain/k8s.js';
import { named, objectsOf, parseComposite, rec, str } from '../kit/index.js';
import { powerOffAnnotation, resolveTarget } from './resolve.js';

const IRONHOOK_GROUP = 'ironhook.dev';

export const Purpose = {
  Fence: 'fence',
  Restore: 'restore',
  Taint: 'taint',
  Untaint: 'untaint',
  UnhealthyHost: 'unhealthy-host',
  /** The attempt's timeout clock: a Wait NodeOperation due at lastRemediated + timeoutSeconds. */
  Timeout: 'timeout',
  OwnerRemediated: 'owner-remediated',
} as const;

export interface RemediationContext {
  parent: KObject;
  name: string;
  namespace: string;
  /** The phase the step starts from (see startPhase). */
  phase: string;
  /** The phase the parent's status shows, possibly one write behind `phase`. */
  statusPhase: string;
  retryCount: number;
  retryLimit: number;
  timeoutSeconds: number;
  strategyType: string;
  lastRemediated: string;
  machine?: KObject;
  metal3Machine?: KObject;
  host?: KObject;
  /** The host carries this remediation's power-off annotation. */
  annotated: boolean;
  clusterName: string;
  /** The workload Node to fence: machine.status.nodeRef.name. */
  nodeName: string;
  nodeOperations: NodeOperation[];
  patches: ObjectPatch[];
  /** The newest timestamp among the observed objects: the hook's only notion of "now". */
  observedTime: string;
  deleting: boolean;
  /** Out-of-service mode: the Node is tainted while the host is off, not deleted (HookConfig). */
  outOfServiceTaint: boolean;
}

function int(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isInteger(value) ? value : fallback;
}

function historyStamps(host: KObject | undefined): string[] {
  const history = rec(rec(host?.status).operationHistory);
  return Object.values(history).flatMap((metric) => [str(rec(metric).start), str(rec(metric).end)]);
}

function requestStamps(children: readonly KObject[]): string[] {
  return children.flatMap((child) => {
    const status = rec(child.status);
    return [str(status.observedTime), str(status.completionTime)];
  });
}

function newestStamp(stamps: readonly string[]): string {
  return (
    stamps
      .filter((s) => s !== '')
      .sort()
      .at(-1) ?? ''
  );
}

function observedTime(parent: KObject, host: KObject | undefined, monitor: KObject | undefined, children: readonly KObject[]): string {
  const monitorStatus = rec(monitor?.status);
  return newestStamp([
    parent.metadata.creationTimestamp ?? '',
    str(rec(parent.status).lastRemediated),
    str(rec(host?.status).lastUpdated),
    ...historyStamps(host),
    str(monitorStatus.observedTime),
    str(monitorStatus.changedTime),
    ...requestStamps(children),
  ]);
}

const GIVE_UP_PURPOSES: readonly string[] = [Purpose.OwnerRemediated, Purpose.UnhealthyHost];
const ACTIVE_PHASES: readonly string[] = ['', RemediationPhase.Running, RemediationPhase.Waiting];

/**
 * The phase to start from. Metacontroller can hand the hook a parent one status write behind its
 * children (its cache lags the write): give-up ObjectPatches are only ever asked for in the final
 * phase `Deleting machine`, so while one exists the remediation has given up, whatever an older
 * status says (and it must not drop them, nor ask for a Restore again).
 */
function startPhase(observed: string, patches: readonly ObjectPatch[]): string {
  const gaveUp = patches.some((patch) => GIVE_UP_PURPOSES.includes(patch.metadata.labels?.[PURPOSE_LABEL] ?? ''));
  return gaveUp && ACTIVE_PHASES.includes(observed) ? RemediationPhase.Deleting : observed;
}

export function remediationContext(request: unknown, outOfServiceTaint = false): RemediationContext {
  const c = parseComposite(request, Capm3Kind.Metal3Remediation);
  const target = resolveTarget(c.parent, c.related);
  const strategy = rec(rec(c.parent.spec).strategy);
  const status = rec(c.parent.status);
  const nodeOperations = objectsOf(c.children, NODE_OPERATION_KIND, IRONHOOK_GROUP, c.namespace).filter(isNodeOperation);
  const patches = objectsOf(c.children, OBJECT_PATCH_KIND, IRONHOOK_GROUP, c.namespace).filter(isObjectPatch);
  const monitor = named(objectsOf(c.related, 'BMCMonitor', IRONHOOK_GROUP, c.namespace), target.host?.metadata.name ?? '');
  const machine = target.machine;
  return {
    ...target,
    parent: c.parent,
    name: c.parent.metadata.name ?? '',
    namespace: c.namespace,
    phase: startPhase(str(status.phase), patches),
    statusPhase: str(status.phase),
    retryCount: int(status.retryCount, 0),
    retryLimit: int(strategy.retryLimit, REMEDIATION_DEFAULTS.retryLimit),
    timeoutSeconds: int(strategy.timeoutSeconds, REMEDIATION_DEFAULTS.timeoutSeconds),
    strategyType: str(strategy.type),
    lastRemediated: str(status.lastRemediated),
    annotated: target.host?.metadata.annotations?.[powerOffAnnotation(c.parent.metadata.uid ?? '')] !== undefined,
    clusterName: str(rec(machine?.spec).clusterName),
    nodeName: str(rec(rec(machine?.status).nodeRef).name),
    nodeOperations,
    patches,
    observedTime: observedTime(c.parent, target.host, monitor, [...nodeOperations, ...patches]),
    deleting: c.parent.metadata.deletionTimestamp !== undefined,
    outOfServiceTaint,
  };
}

/** The attempt being run: 1 for the first power cycle, retryCount + 1 after retries. */
export function attemptOf(ctx: RemediationContext): number {
  return ctx.retryCount + 1;
}

/** When the current attempt times out (ms since the epoch), or NaN before it has started. */
export function deadlineOf(ctx: RemediationContext): number {
  return Date.parse(ctx.lastRemediated) + ctx.timeoutSeconds * 1000;
}
