// Known-good Metacontroller v2 requests for every route the hook server serves: the golden
// fixtures that answer 200 (test/fixtures), a customize or finalize request derived from a sync
// fixture where a route has none, and builder-made requests for routes without fixtures.
import { capiClaim, NS, pool } from '../../devenv/builders/ippool.js';
import type { KObject } from '../../domain/k8s.js';
import { hookRegistry } from '../../hooks/registry.js';
import type { HookKind } from '../../hooks/types.js';
import { listScenarios } from '../fixtures/harness.js';
import type { Json } from './fuzz-json.js';
import { objectMap } from './object-map.js';

export interface HookBase {
  controller: string;
  hook: HookKind;
  /** Where the request came from: a fixture's name or a builder's. */
  name: string;
  request: { [key: string]: Json };
}

/** A canary a log line or an error body must never contain. */
export const HOOK_CANARY = 'fuzz-canary-Pa55w0rd-4b1d';

const HOOK_KINDS: readonly HookKind[] = ['sync', 'finalize', 'customize'];

/** Every `{controller, hook}` route the registry serves. */
export function servedRoutes(): { controller: string; hook: HookKind }[] {
  return Object.entries(hookRegistry).flatMap(([controller, hooks]) =>
    HOOK_KINDS.filter((hook) => hooks[hook] !== undefined).map((hook) => ({ controller, hook })),
  );
}

const V2 = 'infrastructure.cluster.x-k8s.io/v1beta2';

function obj([apiVersion, kind]: [string, string], name: string, fields: Record<string, unknown> = {}, meta: Partial<KObject['metadata']> = {}): KObject {
  return { apiVersion, kind, metadata: { name, namespace: NS, uid: `uid-${kind}-${name}`, creationTimestamp: '2026-11-29T10:00:00Z', ...meta }, ...fields };
}

const owner = (o: KObject, controller: boolean): Record<string, unknown> => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name,
  uid: o.metadata.uid,
  ...(controller && { controller: true }),
});

function dataClaimRequest(): { [key: string]: Json } {
  const machine = obj(['cluster.x-k8s.io/v1beta2', 'Machine'], 'w-abc-m');
  const m3m = obj(
    [V2, 'Metal3Machine'],
    'w-abc',
    {},
    { annotations: { 'metal3.io/BareMetalHost': `${NS}/node-3` }, ownerReferences: [owner(machine, true) as never] },
  );
  const claim = obj([V2, 'Metal3DataClaim'], 'w-abc', { spec: { template: { name: 'workers' } } }, { ownerReferences: [owner(m3m, true) as never] });
  const template = obj([V2, 'Metal3DataTemplate'], 'workers', { spec: { clusterName: 'c1' } });
  const data = obj(
    [V2, 'Metal3Data'],
    'workers-4',
    { spec: { index: 4, claim: { name: 'w-abc', namespace: NS }, template: { name: 'workers', namespace: NS } } },
    {
      ownerReferences: [owner(claim, false) as never],
    },
  );
  return JSON.parse(JSON.stringify({ controller: {}, parent: claim, children: {}, related: objectMap(template, m3m, data), finalizing: false })) as {
    [key: string]: Json;
  };
}

function addressClaimRequest(): { [key: string]: Json } {
  const ippool = pool('pool1', { namePrefix: 'p', pools: [{ start: '10.0.0.1', end: '10.0.0.3' }] }, { status: { indexes: { m: '10.0.0.1' } } });
  const request = { controller: {}, object: capiClaim('m'), attachments: {}, related: objectMap(ippool), finalizing: false };
  return JSON.parse(JSON.stringify(request)) as { [key: string]: Json };
}

const BUILT: readonly HookBase[] = [
  { controller: 'metal3dataclaim', hook: 'sync', name: 'builder: claim with template and machine', request: dataClaimRequest() },
  { controller: 'ipaddressclaim-ipam', hook: 'sync', name: 'builder: CAPI claim with an allocated pool', request: addressClaimRequest() },
];

function derived(controller: string, hook: HookKind, from: HookBase): HookBase {
  const request: { [key: string]: Json } =
    hook === 'customize'
      ? { controller: from.request.controller ?? {}, parent: from.request.parent ?? from.request.object ?? null }
      : { ...from.request, finalizing: hook === 'finalize' };
  return { controller, hook, name: `${from.name} as ${hook}`, request };
}

/** Adds the canary where only a leak could carry it: a related Secret's data. */
function withCanary(base: HookBase): HookBase {
  if (base.hook === 'customize') return base;
  const related = (base.request.related ?? {}) as { [key: string]: Json };
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'fuzz-bmc-secret', namespace: 'fuzz-elsewhere' },
    data: { password: Buffer.from(HOOK_CANARY).toString('base64') },
    stringData: { password: HOOK_CANARY },
  };
  return { ...base, request: { ...base.request, related: { ...related, 'Secret.v1': { 'fuzz-elsewhere/fuzz-bmc-secret': secret } } } };
}

/** At least one known-good request per served route. */
export function hookBases(): HookBase[] {
  const fixtures: HookBase[] = servedRoutes().flatMap(({ controller }) =>
    listScenarios(controller)
      .filter((s) => s.expected.kind === 'response')
      .map((s) => ({ controller, hook: s.hook, name: `fixture ${controller}/${s.name}`, request: JSON.parse(s.requestText) as { [key: string]: Json } })),
  );
  const known = [...fixtures, ...BUILT].filter(
    (b, i, all) => all.findIndex((o) => o.controller === b.controller && o.hook === b.hook && o.name === b.name) === i,
  );
  const out = [...known];
  for (const { controller, hook } of servedRoutes()) {
    if (out.some((b) => b.controller === controller && b.hook === hook)) continue;
    const source = known.find((b) => b.controller === controller && b.hook !== 'customize');
    if (source !== undefined) out.push(derived(controller, hook, source));
  }
  return out.map(withCanary);
}
