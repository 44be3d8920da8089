// Choosing a BareMetalHost for a Metal3Machine. Upstream picks at random among the
// eligible hosts; Ironhook ranks them by a hash of (machine UID, host name) and takes the lowest.
// The choice is then deterministic (a hook must be), yet machines created together rank the hosts
// differently and so mostly ask for different hosts; when two still ask for the same host, the
// resourceVersion test of the claim patch lets exactly one win and the other chooses again.
// Which hosts are eligible follows upstream's chooseHost step by step.
import { CAPI_GROUP } from '../../domain/capi/types.js';
import type { KObject } from '../../domain/k8s.js';
import { isLabelValue } from '../../domain/labels.js';
import { shortHash } from '../../domain/naming.js';
import { isDeleting, rec, str } from '../kit/index.js';
import type { MachineContext } from './context.js';
import {
  CONTROL_PLANE_GROUP,
  CONTROL_PLANE_LABEL,
  DEPLOYMENT_NAME_LABEL,
  FAILURE_DOMAIN_LABEL,
  HOST_PAUSED_ANNOTATION,
  NODE_REUSE_LABEL,
  UNHEALTHY_ANNOTATIONS,
} from './names.js';
import { consumerOf, groupOf, hasConsumerRef, hostState } from './observed.js';
import { compileSelector } from './selector.js';

export type Choice =
  | { kind: 'host'; host: KObject; viaReuse: boolean }
  | { kind: 'none'; reason: string }
  | { kind: 'reuseWait'; reason: string }
  | { kind: 'invalid'; error: string };

const AVAILABLE_STATES: readonly string[] = ['ready', 'available'];

/**
 * `cp-<control plane>` for a control-plane Machine (label `cluster.x-k8s.io/control-plane`): the
 * first owner of the control-plane group; an owner whose apiVersion does not parse ends the
 * search, as upstream's. Undefined when there is none.
 */
function controlPlaneReuseName(machine: KObject): string | undefined {
  for (const ref of machine.metadata.ownerReferences ?? []) {
    const group = groupOf(ref.apiVersion);
    if (group === undefined) return undefined;
    if (group === CONTROL_PLANE_GROUP) return `cp-${ref.name}`;
  }
  return undefined;
}

/**
 * `md-<MachineDeployment>` for any other Machine owned by a Cluster API MachineSet: as upstream,
 * the MachineSet's MachineDeployment owner; while the MachineSet is not in the cache, the
 * `cluster.x-k8s.io/deployment-name` label Cluster API copies from it onto the Machine.
 */
function deploymentReuseName(machine: KObject, machineSet: KObject | undefined): string | undefined {
  const ownedBySet = (machine.metadata.ownerReferences ?? []).some((ref) => ref.kind === 'MachineSet' && groupOf(ref.apiVersion) === CAPI_GROUP);
  if (!ownedBySet) return undefined;
  const owner = (machineSet?.metadata.ownerReferences ?? []).find((ref) => ref.kind === 'MachineDeployment' && groupOf(ref.apiVersion) === CAPI_GROUP);
  const deployment = owner?.name ?? machine.metadata.labels?.[DEPLOYMENT_NAME_LABEL] ?? '';
  return deployment === '' ? undefined : `md-${deployment}`;
}

/** The node-reuse label value of this machine's control plane or MachineDeployment; undefined for neither. */
export function reuseLabelValue(ctx: MachineContext): string | undefined {
  const machine = ctx.machine;
  if (machine === undefined) return undefined;
  return machine.metadata.labels?.[CONTROL_PLANE_LABEL] !== undefined ? controlPlaneReuseName(machine) : deploymentReuseName(machine, ctx.machineSet);
}

/** The consumerRef names this Metal3Machine: name, namespace, kind and group (any version), as upstream. */
export function consumedByMe(ctx: MachineContext, host: KObject | undefined): boolean {
  const ref = consumerOf(host);
  return (
    ref !== undefined &&
    ref.kind === 'Metal3Machine' &&
    ref.name === ctx.name &&
    ref.namespace === ctx.namespace &&
    ref.group === 'infrastructure.cluster.x-k8s.io'
  );
}

/** Why a host can never be chosen, or undefined. */
function excluded(host: KObject): string | undefined {
  const annotations = host.metadata.annotations ?? {};
  if (isDeleting(host)) return 'being deleted';
  if (str(rec(host.status).errorMessage) !== '') return 'in error';
  if (annotations[HOST_PAUSED_ANNOTATION] !== undefined) return 'paused';
  if (UNHEALTHY_ANNOTATIONS.some((key) => annotations[key] !== undefined)) return 'unhealthy';
  return undefined;
}

interface Sorted {
  mine?: KObject;
  withReuse: KObject[];
  available: KObject[];
}

function sortHosts(ctx: MachineContext, hosts: readonly KObject[], reuse: string | undefined): Sorted {
  const sorted: Sorted = { withReuse: [], available: [] };
  for (const host of hosts) {
    if (consumedByMe(ctx, host)) return { ...sorted, mine: host };
    const label = host.metadata.labels?.[NODE_REUSE_LABEL];
    if (hasConsumerRef(host) || (label !== undefined && label !== reuse) || excluded(host) !== undefined) continue;
    if (label !== undefined) sorted.withReuse.push(host);
    else if (AVAILABLE_STATES.includes(hostState(host))) sorted.available.push(host);
  }
  return sorted;
}

/** Lowest rank first: hash of (machine UID, host name), then the name. */
export function rankHosts(machineUID: string, hosts: readonly KObject[]): KObject[] {
  const keyed = hosts.map((host) => ({ host, name: host.metadata.name ?? '', rank: shortHash(`${machineUID}/${host.metadata.name ?? ''}`, 16) }));
  keyed.sort((a, b) => (a.rank === b.rank ? a.name.localeCompare(b.name) : a.rank.localeCompare(b.rank)));
  return keyed.map((k) => k.host);
}

/** The Machine's failure domain: upstream copies it onto the Metal3Machine (an empty one too) before choosing. */
function failureDomain(ctx: MachineContext): string {
  return str(rec(ctx.machine?.spec).failureDomain);
}

/** Upstream turns the failure domain into a label requirement, which fails for a value no label can have. */
function failureDomainError(ctx: MachineContext): string | undefined {
  const domain = failureDomain(ctx);
  return isLabelValue(domain) ? undefined : `failure domain "${domain}" of Machine ${ctx.machine?.metadata.name ?? ''} is not a valid label value`;
}

function pick(ctx: MachineContext, hosts: readonly KObject[]): KObject | undefined {
  const domain = failureDomain(ctx);
  const inDomain = domain === '' ? [] : hosts.filter((host) => host.metadata.labels?.[FAILURE_DOMAIN_LABEL] === domain);
  return rankHosts(ctx.uid, inDomain.length > 0 ? inDomain : hosts)[0];
}

/** Chooses a host among `ctx.hosts`, skipping the names in `skip` (hosts just lost). */
export function chooseHost(ctx: MachineContext, skip: readonly string[] = []): Choice {
  const selector = compileSelector(ctx.spec.hostSelector);
  if (!selector.ok) return { kind: 'invalid', error: selector.error };
  const candidates = ctx.hosts.filter((host) => selector.matches(host.metadata.labels ?? {}) && !skip.includes(host.metadata.name ?? ''));
  const reuse = reuseLabelValue(ctx);
  const sorted = sortHosts(ctx, candidates, reuse);
  if (sorted.mine !== undefined) return { kind: 'host', host: sorted.mine, viaReuse: false };
  if (sorted.withReuse.length > 0) return chooseReused(ctx, sorted.withReuse, reuse ?? '');
  const domainError = sorted.available.length > 0 ? failureDomainError(ctx) : undefined;
  if (domainError !== undefined) return { kind: 'invalid', error: domainError };
  const host = pick(ctx, sorted.available);
  if (host !== undefined) return { kind: 'host', host, viaReuse: false };
  return {
    kind: 'none',
    reason: `no available BareMetalHost in namespace ${ctx.namespace} matches the hostSelector (${candidates.length} of ${ctx.hosts.length} hosts match it; a host must be available or ready, unclaimed, not paused, healthy and without error)`,
  };
}

/**
 * Node reuse, as upstream: every host labelled for this machine must be available or ready, else
 * the machine waits (taking one would leave the other to another machine). Upstream looks at the
 * hosts in list order (namespace and name, as here) and fails at the first ready one when the
 * failure domain is not a valid label value.
 */
function chooseReused(ctx: MachineContext, hosts: readonly KObject[], reuse: string): Choice {
  const domainError = failureDomainError(ctx);
  for (const host of hosts) {
    if (!AVAILABLE_STATES.includes(hostState(host))) return reuseWait(hosts, reuse);
    if (domainError !== undefined) return { kind: 'invalid', error: domainError };
  }
  const host = pick(ctx, hosts);
  return host === undefined ? reuseWait(hosts, reuse) : { kind: 'host', host, viaReuse: true };
}

function reuseWait(hosts: readonly KObject[], reuse: string): Choice {
  const waiting = hosts.filter((host) => !AVAILABLE_STATES.includes(hostState(host)));
  const names = waiting.map((h) => `${h.metadata.name ?? ''} (${hostState(h) || 'no state'})`).join(', ');
  return { kind: 'reuseWait', reason: `BareMetalHost(s) labelled ${NODE_REUSE_LABEL}=${reuse} are not available yet: ${names}` };
}
