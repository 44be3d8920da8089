// One Metal3Data case on both sides. Ironhook: two Metacontroller v2 sync requests to
// /hooks/metal3data/sync through the hook server — the first with no children (its IPClaims are
// the pools it claims), the second with those IPClaims answered as the case's pools answer them
// (status.address and the related IPAddress, or status.errorMessage) — and the Secret children of
// the second response. Upstream: the same objects in the oracle's area `metal3data`.
import request from 'supertest';

import { DEFAULT_HOOK_CONFIG } from '../../hooks/types.js';
import { createHookServer, type HookServerApp } from '../../hooks/server/app.js';
import { hookRegistry } from '../../hooks/registry.js';
import type { KObject } from '../../domain/k8s.js';
import type { Metal3DataCase, PoolState } from './metal3data-cases.js';
import type { OracleAnswer, Verdict } from './oracle.js';

const INFRA = 'infrastructure.cluster.x-k8s.io/v1beta2';
const IPAM = 'ipam.metal3.io/v1alpha1';
const DATA = 'workers-tpl-0';
const TEMPLATE = 'workers-tpl';
const CLAIM = 'w-abc';
const CLUSTER_LABEL = 'cluster.x-k8s.io/cluster-name';

/** What a case comes to, on either side. */
interface Metal3DataOutcome {
  /** The pools claimed, sorted (none when collecting them failed). */
  readonly pools: string[];
  readonly outcome: 'rendered' | 'waiting' | 'error';
  /** The Secrets created, by data key, as text. */
  readonly secrets: Record<string, string>;
}

function object(namespace: string, [apiVersion, kind]: [string, string], name: string, rest: Partial<KObject> = {}): KObject {
  return { apiVersion, kind, ...rest, metadata: { name, namespace, uid: `uid-${kind}-${name}`, ...rest.metadata } };
}

interface Sources {
  template: KObject;
  data: KObject;
  m3m: KObject;
  machine: KObject;
  host: KObject;
}

function sources(c: Metal3DataCase): Sources {
  const { names, m3m, machine, host } = c.objects;
  const { bootMACAddress, hardware, ...hostMeta } = host;
  const at = (apiVersion: string, kind: string, name: string, rest: Partial<KObject>): KObject => object(names.namespace, [apiVersion, kind], name, rest);
  const renderedFrom = { 'ironhook.dev/metal3machine': names.m3m, 'ironhook.dev/baremetalhost': names.host, 'ironhook.dev/machine': names.machine };
  return {
    template: at(INFRA, 'Metal3DataTemplate', TEMPLATE, { metadata: { name: TEMPLATE, labels: { [CLUSTER_LABEL]: 'test1' } }, spec: c.spec }),
    data: at(INFRA, 'Metal3Data', DATA, {
      metadata: {
        name: DATA,
        labels: { [CLUSTER_LABEL]: 'test1' },
        annotations: renderedFrom,
        ownerReferences: [{ apiVersion: INFRA, kind: 'Metal3DataClaim', name: CLAIM, uid: `uid-Metal3DataClaim-${CLAIM}` }],
      },
      spec: { ...(c.objects.index !== undefined && { index: c.objects.index }), template: { name: TEMPLATE }, claim: { name: CLAIM } },
    }),
    m3m: at(INFRA, 'Metal3Machine', names.m3m, { metadata: { name: names.m3m, ...m3m } }),
    machine: at('cluster.x-k8s.io/v1beta2', 'Machine', names.machine, { metadata: { name: names.machine, ...machine } }),
    host: at('metal3.io/v1alpha1', 'BareMetalHost', names.host, {
      metadata: { name: names.host, ...hostMeta },
      spec: bootMACAddress === undefined ? {} : { bootMACAddress },
      ...(hardware !== undefined && { status: { hardware } }),
    }),
  };
}

/** The case as the oracle reads it: the same objects, and the pools' answers. */
export function toOracle(c: Metal3DataCase): unknown {
  const s = sources(c);
  const pools = Object.fromEntries(Object.entries(c.pools).map(([name, state]) => [name, 'error' in state ? { error: state.error } : state]));
  return { template: s.template, data: s.data, metal3Machine: s.m3m, machine: s.machine, host: s.host, pools };
}

const keyed = (objects: KObject[]): Record<string, KObject> =>
  Object.fromEntries(objects.map((o) => [`${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, o]));

function syncRequest(c: Metal3DataCase, ipClaims: KObject[], addresses: KObject[]): unknown {
  const s = sources(c);
  const { namespace, m3m } = c.objects.names;
  const claim = object(namespace, [INFRA, 'Metal3DataClaim'], CLAIM, {
    metadata: { name: CLAIM, ownerReferences: [{ apiVersion: INFRA, kind: 'Metal3Machine', name: m3m, uid: `uid-Metal3Machine-${m3m}` }] },
    spec: { template: { name: TEMPLATE } },
  });
  return {
    controller: { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'ironhook-metal3data' } },
    parent: s.data,
    children: { [`IPClaim.${IPAM}`]: keyed(ipClaims), 'Secret.v1': {} },
    related: {
      [`Metal3DataTemplate.${INFRA}`]: keyed([s.template]),
      [`Metal3DataClaim.${INFRA}`]: keyed([claim]),
      [`Metal3Machine.${INFRA}`]: keyed([s.m3m]),
      'BareMetalHost.metal3.io/v1alpha1': keyed([s.host]),
      'Machine.cluster.x-k8s.io/v1beta2': keyed([s.machine]),
      [`IPAddress.${IPAM}`]: keyed(addresses),
      'Secret.v1': {},
    },
    finalizing: false,
  };
}

interface SyncAnswer {
  children: KObject[];
  status: { errorMessage?: string; ready?: boolean };
}

async function sync(app: HookServerApp, body: unknown): Promise<SyncAnswer> {
  const res = await request(app).post('/hooks/metal3data/sync').set('Content-Type', 'application/json').send(JSON.stringify(body));
  if (res.status !== 200) throw new Error(`the metal3data sync hook answered ${String(res.status)}: ${res.text}`);
  return JSON.parse(res.text) as SyncAnswer;
}

const poolOf = (claim: KObject): string => (claim.spec as { pool?: { name?: string } } | undefined)?.pool?.name ?? '';

/** An IPClaim child as Metacontroller shows it once the pool answered, and the IPAddress it names. */
function answered(namespace: string, claim: KObject, state: PoolState | undefined): { claim: KObject; address?: KObject } {
  const name = claim.metadata.name ?? '';
  const observed = { ...claim, metadata: { ...claim.metadata, namespace, uid: `uid-IPClaim-${name}` } };
  if (state === undefined) return { claim: observed };
  if ('error' in state) return { claim: { ...observed, status: { errorMessage: state.error } } };
  const addressName = `${name}-address`;
  const address = object(namespace, [IPAM, 'IPAddress'], addressName, {
    metadata: { name: addressName, labels: { 'ironhook.dev/metal3data': DATA, 'ironhook.dev/ipclaim': name } },
    spec: { ...state, claim: { name, namespace }, pool: { name: poolOf(claim), namespace } },
  });
  return { claim: { ...observed, status: { address: { name: addressName, namespace } } }, address };
}

function outcomeOf(answer: SyncAnswer, pools: string[]): Metal3DataOutcome {
  const secrets: Record<string, string> = {};
  for (const child of answer.children.filter((o) => o.kind === 'Secret')) {
    for (const [key, value] of Object.entries((child as { data?: Record<string, string> }).data ?? {}))
      secrets[key] = Buffer.from(value, 'base64').toString('utf8');
  }
  if (answer.status.errorMessage !== undefined) return { pools, outcome: 'error', secrets };
  return { pools, outcome: answer.status.ready === false && Object.keys(secrets).length === 0 ? 'waiting' : 'rendered', secrets };
}

/** Ironhook's answer to a case: the two syncs through the hook server. */
export function ironhookSide(): (c: Metal3DataCase) => Promise<Verdict> {
  const app = createHookServer({ registry: hookRegistry, config: DEFAULT_HOOK_CONFIG });
  return async (c) => {
    const first = await sync(app, syncRequest(c, [], []));
    const claims = first.children.filter((o) => o.kind === 'IPClaim');
    const pools = claims.map(poolOf).sort();
    if (first.status.errorMessage !== undefined) return { accepted: true, value: outcomeOf(first, pools) };
    const observed = claims.map((claim) => answered(c.objects.names.namespace, claim, c.pools[poolOf(claim)]));
    const second = await sync(
      app,
      syncRequest(
        c,
        observed.map((o) => o.claim),
        observed.flatMap((o) => (o.address === undefined ? [] : [o.address])),
      ),
    );
    const again = second.children
      .filter((o) => o.kind === 'IPClaim')
      .map(poolOf)
      .sort();
    if (JSON.stringify(again) !== JSON.stringify(pools)) throw new Error(`the second sync claimed ${again.join(', ')} after ${pools.join(', ')}`);
    return { accepted: true, value: outcomeOf(second, pools) };
  };
}

interface OracleResult {
  pools: Record<string, string>;
  outcome: Metal3DataOutcome['outcome'];
  error?: string;
  secrets: Record<string, string>;
}

/** Upstream's answer, in the same shape (its error text is kept aside: the texts differ by design). */
export function upstreamSide(answer: OracleAnswer): Verdict {
  if (!('ok' in answer)) throw new Error(`the oracle could not answer: ${JSON.stringify(answer)}`);
  const result = answer.ok as OracleResult;
  const value: Metal3DataOutcome = { pools: Object.keys(result.pools).sort(), outcome: result.outcome, secrets: result.secrets };
  return { accepted: true, value };
}
