// The rendering step of a Metal3Data sync: pools → claims → addresses → metaData and
// networkData → the missing Secrets. Any step that cannot finish yet keeps every observed child
// and says what it waits for; a template that cannot be rendered for this host is an error. As
// upstream, a pool's allocation error outranks pools that have not answered yet, and the Secrets
// are rendered in order (metaData, then networkData): one that fails stops the rest, the ones
// before it are created.
import { RenderError, type PoolAddress, type RenderContext } from '../../domain/metal3data/context.js';
import { renderMetaData } from '../../domain/metal3data/metadata.js';
import { renderNetworkData } from '../../domain/metal3data/networkdata.js';
import { templatePools } from '../../domain/metal3data/pools.js';
import { META_DATA_KEY, type SourceObject } from '../../domain/metal3data/types.js';
import type { KObject } from '../../domain/k8s.js';
import { echoSecret, keepAll, newSecret, statusOf, waiting, type DesiredData, type SecretState } from './data-children.js';
import { poolAddresses, poolClaims } from './data-claims.js';
import type { DataView, NeededSecret } from './data-view.js';
import { rec } from '../kit/index.js';

function lookupIn(v: DataView): (object: SourceObject, annotation: string) => string | undefined {
  return (object, annotation) => {
    const obj = object === 'machine' ? v.machine : object === 'metal3machine' ? v.m3m : v.host;
    return obj === undefined ? undefined : (obj.metadata.annotations?.[annotation] ?? '');
  };
}

function failed(v: DataView, children: KObject[], error: string): DesiredData {
  return { children, status: { errorMessage: error, ...statusOf(v, false) } };
}

function contextOf(v: DataView, addresses: Map<string, PoolAddress>): RenderContext | string {
  if (v.m3m === undefined) return `Metal3Machine ${v.m3mName}`;
  if (v.host === undefined) return 'the BareMetalHost (annotation ironhook.dev/baremetalhost)';
  if (v.machine === undefined) return 'the Machine (annotation ironhook.dev/machine)';
  const index = rec(v.data.spec).index;
  return { namespace: v.namespace, index: typeof index === 'number' ? index : 0, metal3Machine: v.m3m, machine: v.machine, host: v.host, addresses };
}

function secretText(v: DataView, secret: NeededSecret, ctx: RenderContext): string {
  if (secret.key === META_DATA_KEY) return renderMetaData(v.spec.metaData ?? {}, ctx);
  return renderNetworkData(v.spec.networkData ?? {}, ctx);
}

/** The needed Secrets: observed ones as they are, missing ones rendered, until one fails to render. */
function writeSecrets(
  v: DataView,
  needed: readonly NeededSecret[],
  states: readonly SecretState[],
  ctx: RenderContext,
): { secrets: KObject[]; error?: string } {
  const secrets: KObject[] = [];
  for (const [i, secret] of needed.entries()) {
    const state = states[i];
    if (state?.kind === 'owned') secrets.push(echoSecret(state.obj));
    if (state?.kind !== 'missing') continue;
    try {
      secrets.push(newSecret(v, secret, secretText(v, secret, ctx)));
    } catch (error) {
      if (!(error instanceof RenderError)) throw error;
      return { secrets, error: error.message };
    }
  }
  return { secrets };
}

/** Every observed Secret, and the new ones of `written` (those not observed yet). */
function observedAnd(v: DataView, written: readonly KObject[]): KObject[] {
  const observed = new Set(v.secrets.map((s) => s.metadata.name));
  return [...v.secrets.map(echoSecret), ...written.filter((s) => !observed.has(s.metadata.name))];
}

function renderWith(
  v: DataView,
  claims: KObject[],
  addresses: Map<string, PoolAddress>,
  secrets: { needed: readonly NeededSecret[]; states: readonly SecretState[] },
): DesiredData {
  const ctx = contextOf(v, addresses);
  if (typeof ctx === 'string') return { children: [...claims, ...v.secrets.map(echoSecret)], status: statusOf(v, false, ctx) };
  const written = writeSecrets(v, secrets.needed, secrets.states, ctx);
  if (written.error !== undefined) return failed(v, [...claims, ...observedAnd(v, written.secrets)], written.error);
  return { children: [...claims, ...written.secrets], status: statusOf(v, false, 'the rendered Secrets to be created') };
}

/** Renders the missing Secrets (the caller has checked that at least one is missing). */
export function render(v: DataView, needed: readonly NeededSecret[], states: readonly SecretState[]): DesiredData {
  let resolved;
  try {
    resolved = templatePools(v.spec, lookupIn(v));
  } catch (error) {
    if (error instanceof RenderError) return failed(v, keepAll(v), error.message);
    throw error;
  }
  if ('waitingFor' in resolved) return waiting(v, resolved.waitingFor);
  const planned = poolClaims(v, resolved.pools);
  if ('error' in planned) return failed(v, keepAll(v), planned.error);
  const claims = planned.claims;
  const found = poolAddresses(v, resolved.pools);
  if ('error' in found) return failed(v, [...claims, ...v.secrets.map(echoSecret)], found.error);
  if ('waitingFor' in found) return { children: [...claims, ...v.secrets.map(echoSecret)], status: statusOf(v, false, found.waitingFor) };
  return renderWith(v, claims, found.addresses, { needed, states });
}
