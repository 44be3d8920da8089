// The pools a Metal3DataTemplate references and the claims a Metal3Data makes for them: CAPM3
// v1.13.2's getReferencedPools and DataManager (Reconcile and ReleaseLeases against a fake API
// server holding the world's objects) against domain/metal3data/pools.ts and the Metal3Data hook.
// Compared: which pools are referenced and as which kind (or that the template is rejected),
// which IPClaims / IPAddressClaims exist afterwards (kind, name, spec, labels other than
// Ironhook's own), whether the data is in error or done, and the rendered Secrets' texts, here
// from Cluster API IPAddresses as well as Metal3 ones. Rendering itself is
// test/differential/metal3data-render's subject; these templates have no links.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { canonicalJSON } from '../../domain/canonical.js';
import type { KObject } from '../../domain/k8s.js';
import type { Metal3DataTemplateSpec, Route } from '../../domain/metal3data/types.js';
import { RenderError } from '../../domain/metal3data/context.js';
import { templatePools } from '../../domain/metal3data/pools.js';
import { metal3dataFinalize, metal3dataSync } from '../../hooks/metal3data/data.js';
import { expectIdentical, runSweep, verdictOf, type OracleAnswer, type Verdict } from './oracle.js';
import {
  hookRequest,
  ourPools,
  poolsCase,
  world,
  worldObjects,
  type Annotations,
  type ClaimState,
  type PoolsCase,
  type World,
} from './metal3data-pools-world.js';

// --- referenced pools -----------------------------------------------------------------------

function poolsToOracle(c: PoolsCase): unknown {
  return {
    spec: c.spec,
    metal3machine: c.annotations.metal3machine,
    machine: c.annotations.machine,
    baremetalhost: c.annotations.baremetalhost,
    objects: true,
  };
}

function oursPools(c: PoolsCase): Verdict {
  try {
    const found = ourPools(c);
    if ('waitingFor' in found) throw new Error(`waits with every object known: ${found.waitingFor}`);
    return { accepted: true, value: found.pools };
  } catch (error) {
    if (error instanceof RenderError) return { accepted: false, error: error.message };
    throw error;
  }
}

// --- claims ---------------------------------------------------------------------------------

interface Outcome {
  claims: { kind: string; name: string; spec: unknown; labels: Record<string, string> }[];
  secrets: { name: string; type: string; labels: Record<string, string>; data: Record<string, string> }[];
  error: boolean;
  done: boolean;
}

/** Labels both sides set, without Ironhook's own (ironhook.dev/*) and Metacontroller's selector. */
function userLabels(labels: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(labels ?? {}).filter(([key]) => !key.startsWith('ironhook.dev/') && key !== 'controller-uid'));
}

const byName = <T extends { kind?: string; name: string }>(items: T[]): T[] =>
  items.sort((a, b) => `${a.kind ?? ''}/${a.name}`.localeCompare(`${b.kind ?? ''}/${b.name}`));

interface UpstreamAnswer {
  ready: boolean | null;
  errorMessage: string;
  claims: { kind: string; name: string; spec: unknown; labels?: Record<string, string>; deleting?: boolean }[];
  secrets: { name: string; type: string; labels?: Record<string, string>; data: Record<string, string> }[];
}

function upstreamOutcome(a: UpstreamAnswer): Outcome {
  return {
    claims: byName(a.claims.map((c) => ({ kind: c.kind, name: c.name, spec: c.spec, labels: userLabels(c.labels) }))),
    secrets: byName(a.secrets.map((s) => ({ name: s.name, type: s.type, labels: userLabels(s.labels), data: s.data }))),
    error: a.errorMessage !== '',
    done: a.ready === true,
  };
}

const decode = (data: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString('utf8')]));

function ironhookOutcome(response: { children: KObject[]; status: Record<string, unknown> }, needed: number): Outcome {
  const claims = response.children.filter((c) => c.kind === 'IPClaim' || c.kind === 'IPAddressClaim');
  const secrets = response.children.filter((c) => c.kind === 'Secret') as (KObject & { type: string; data: Record<string, string> })[];
  const error = typeof response.status.errorMessage === 'string';
  return {
    claims: byName(claims.map((c) => ({ kind: c.kind, name: c.metadata.name ?? '', spec: c.spec, labels: userLabels(c.metadata.labels) }))),
    secrets: byName(secrets.map((s) => ({ name: s.metadata.name ?? '', type: s.type, labels: userLabels(s.metadata.labels), data: decode(s.data) }))),
    error,
    // Ironhook reports ready on the sync after the one that writes the Secrets; upstream at once.
    done: response.status.ready === true || (!error && secrets.length === needed),
  };
}

function claimsToOracle(w: World): unknown {
  const o = worldObjects(w);
  return { data: o.data, objects: [...o.related, ...o.claims] };
}

function oursClaims(w: World): Verdict {
  const response = metal3dataSync(hookRequest(worldObjects(w)));
  const needed = [w.spec.metaData, w.spec.networkData].filter((section) => section !== undefined).length;
  return { accepted: true, value: ironhookOutcome(response, needed) };
}

function theirsClaims(answer: OracleAnswer): Verdict {
  const verdict = verdictOf(answer);
  return verdict.accepted ? { accepted: true, value: upstreamOutcome(verdict.value as UpstreamAnswer) } : verdict;
}

/**
 * Both done or both not, both in error or not, and the same claims and Secrets (key order aside).
 * When both are in error, upstream may hold a metaData Secret Ironhook did not write: upstream
 * creates the metaData Secret before rendering networkData fails. Which Secrets a failed
 * rendering leaves is the rendering sweep's subject (metal3data-render), so that one is not
 * compared here.
 */
function sameOutcome(ours: Verdict, theirs: Verdict): boolean {
  if (!ours.accepted || !theirs.accepted) return false;
  const [o, t] = [ours.value as Outcome, theirs.value as Outcome];
  const partial = o.error && t.error && o.secrets.length === 0 && t.secrets.every((s) => s.name === 'm3m-0-metadata');
  return canonicalJSON(partial ? { ...o, secrets: [] } : o) === canonicalJSON(partial ? { ...t, secrets: [] } : t);
}

// --- release --------------------------------------------------------------------------------

/** The template without its fromPoolAnnotation references: what upstream's release path sees. */
function withoutAnnotations(spec: Metal3DataTemplateSpec): Metal3DataTemplateSpec {
  return JSON.parse(JSON.stringify(spec, (key, value: unknown) => (key === 'fromPoolAnnotation' ? undefined : value))) as Metal3DataTemplateSpec;
}

/**
 * Worlds whose every claim upstream's ReleaseLeases finds: the template resolves without
 * annotations and no claimed pool is named by an annotation only (documented deviation "release
 * drops every claim"; the pinned cases below show the others).
 */
function upstreamReleasesAll(w: World): boolean {
  try {
    const found = templatePools(withoutAnnotations(w.spec), () => undefined);
    if (!('pools' in found)) return false;
    const names = new Set(found.pools.map((p) => p.name));
    return w.claims.every((c) => c.state === 'none' || names.has(c.pool.name));
  } catch {
    return false;
  }
}

/** The claims a release leaves in place (not deleted, not being deleted). */
function kept(claims: { kind: string; name: string; deleting?: boolean }[]): string[] {
  return claims
    .filter((c) => c.deleting !== true)
    .map((c) => `${c.kind}/${c.name}`)
    .sort();
}

function releaseToOracle(w: World): unknown {
  const o = worldObjects(w, true);
  return { data: o.data, objects: [...o.related, ...o.claims], release: true };
}

function oursRelease(w: World): Verdict {
  const o = worldObjects(w, true);
  const response = metal3dataFinalize(hookRequest(o, true)) as { children: KObject[]; finalized: boolean };
  // Children left out are deleted by Metacontroller; those being deleted already stay so.
  const left = response.children.filter((c) => c.kind === 'IPClaim' || c.kind === 'IPAddressClaim');
  return { accepted: true, value: kept(left.map((c) => ({ kind: c.kind, name: c.metadata.name ?? '' }))) };
}

function theirsRelease(answer: OracleAnswer): Verdict {
  const verdict = verdictOf(answer);
  return verdict.accepted ? { accepted: true, value: kept((verdict.value as UpstreamAnswer).claims) } : verdict;
}

describe('differential: Metal3DataTemplate pool references (CAPM3 v1.13.2 getReferencedPools)', () => {
  it('references the same pools as the same kinds, or rejects the same templates', () => {
    expectIdentical(
      runSweep({ area: 'metal3data-pools', arbitrary: poolsCase, defaultCases: 600, toOracle: poolsToOracle, ours: oursPools, theirs: verdictOf }),
    );
  });
});

describe('differential: Metal3Data claims (CAPM3 v1.13.2 DataManager, fake API server)', () => {
  it('makes the same IPClaims and IPAddressClaims, errs or finishes alike and renders the same Secrets', () => {
    expectIdentical(
      runSweep({
        area: 'metal3data-claims',
        arbitrary: world,
        defaultCases: 400,
        toOracle: claimsToOracle,
        ours: oursClaims,
        theirs: theirsClaims,
        same: sameOutcome,
      }),
    );
  });

  it('releases the same claims when the data is deleted', () => {
    expectIdentical(
      runSweep({
        area: 'metal3data-release',
        oracleArea: 'metal3data-claims',
        arbitrary: world.filter(upstreamReleasesAll),
        defaultCases: 200,
        toOracle: releaseToOracle,
        ours: oursRelease,
        theirs: theirsRelease,
      }),
    );
  });
});

// --- pinned cases ---------------------------------------------------------------------------

/** Both sides' answers to one case (the sweep machinery with a single, fixed case): Ironhook's value, upstream's raw answer. */
function bothSides<Case>(input: Case, toOracle: (c: Case) => unknown, ours: (c: Case) => Verdict): { ours: unknown; theirs: unknown } {
  const report = runSweep(
    { area: 'pinned', oracleArea: 'metal3data-claims', arbitrary: fc.constant(input), defaultCases: 1, toOracle, ours, theirs: verdictOf, same: () => false },
    { cases: 1, seed: 0 },
  );
  const [difference] = report.differences;
  if (difference === undefined) throw new Error('no answer');
  const theirs = difference.theirs as Verdict;
  const value = difference.ours.accepted ? difference.ours.value : { error: difference.ours.error };
  return { ours: value, theirs: theirs.accepted ? theirs.value : { error: theirs.error } };
}

const NO_ANNOTATIONS: Annotations = { machine: { 'pool-v4': 'a' }, metal3machine: {}, baremetalhost: {} };
const IN_CLUSTER = { apiGroup: 'ipam.cluster.x-k8s.io', kind: 'InClusterIPPool' };
const v4 = (net: Record<string, unknown>): Metal3DataTemplateSpec => ({ networkData: { networks: { ipv4: [{ id: 'n', link: 'eth0', ...net }] } } });
const gatewayRoute = (gateway: Route['gateway']): Route => ({ network: '0.0.0.0', gateway });
const bound = (name: string, extra: Partial<ClaimState['pool']> = {}): ClaimState => ({
  pool: { name, apiGroup: 'ipam.metal3.io', kind: 'IPPool', ...extra },
  state: 'bound',
  address: { address: '10.0.0.5', prefix: 24, gateway: '10.0.0.1' },
});

describe('pinned templates: the rows of test/unit/metal3data-pools.test.ts that show upstream', () => {
  // prettier-ignore
  it.each<[string, Metal3DataTemplateSpec]>([
    ['a metaData entry naming another apiGroup/kind is the Metal3 IPPool of that name', { metaData: { ipAddressesFromPool: [{ key: 'k', name: 'p', ...IN_CLUSTER }] } }],
    ['fromPoolRef with a kind only', v4({ fromPoolRef: { name: 'p', kind: 'InClusterIPPool' } })],
    ['fromPoolAnnotation and fromPoolRef both claim', v4({ fromPoolAnnotation: { object: 'machine', annotation: 'pool-v4' }, fromPoolRef: { name: 'r', ...IN_CLUSTER } })],
    ['a literal gateway still claims its fromIPPool and its annotation', v4({ ipAddressFromIPPool: 'x', routes: [gatewayRoute({ string: '10.0.0.1', fromIPPool: 'g', fromPoolAnnotation: { object: 'machine', annotation: 'pool-v4' } })] })],
    ['a DHCP route annotation claims nothing', { networkData: { networks: { ipv4DHCP: [{ id: 'd', link: 'eth0', routes: [gatewayRoute({ fromPoolAnnotation: { object: 'machine', annotation: 'pool-v4' } })] }] } } }],
    ['one name as a metaData entry and a Cluster API fromPoolRef', { ...v4({ fromPoolRef: { name: 'p', ...IN_CLUSTER } }), metaData: { gatewaysFromPool: [{ key: 'k', name: 'p' }] } }],
    ['an annotation naming no pool behind a literal gateway', v4({ ipAddressFromIPPool: 'x', routes: [gatewayRoute({ string: '10.0.0.1', fromPoolAnnotation: { object: 'machine', annotation: 'unset' } })] })],
  ])('%s', (_name, spec) => {
    const c: PoolsCase = { spec, annotations: NO_ANNOTATIONS };
    expectIdentical(runSweep({ area: 'metal3data-pools', arbitrary: fc.constant(c), defaultCases: 1, toOracle: poolsToOracle, ours: oursPools, theirs: verdictOf }, { cases: 1, seed: 0 }));
  });
});

interface StoredClaim {
  kind: string;
  name: string;
  finalizers?: string[];
  ownerReferences?: { kind: string; name: string; controller?: boolean }[];
  deleting?: boolean;
}

describe('documented deviations (COMPAT-capiipam.md)', () => {
  const capiPool = v4({ fromPoolRef: { name: 'incluster', ...IN_CLUSTER } });

  it('claims carry no metal3data.infrastructure.cluster.x-k8s.io finalizer (Metacontroller could never remove it from a child); Metacontroller adds the controller owner reference', () => {
    const w: World = {
      spec: { ...capiPool, metaData: { ipAddressesFromPool: [{ key: 'ip', name: 'm3' }] } },
      annotations: NO_ANNOTATIONS,
      labels: {},
      claims: [],
    };
    const { ours, theirs } = bothSides(w, claimsToOracle, (c) => ({ accepted: true, value: metal3dataSync(hookRequest(worldObjects(c))) }));
    const upstream = (theirs as { claims: StoredClaim[] }).claims.map((c) => [
      c.kind,
      c.name,
      c.finalizers,
      c.ownerReferences?.map((o) => `${o.kind}/${o.name} controller=${String(o.controller)}`),
    ]);
    expect(upstream).toEqual([
      ['IPAddressClaim', 'tpl-0-incluster', ['metal3data.infrastructure.cluster.x-k8s.io'], ['Metal3Data/tpl-0 controller=true']],
      ['IPClaim', 'tpl-0-m3', ['metal3data.infrastructure.cluster.x-k8s.io'], ['Metal3Data/tpl-0 controller=true']],
    ]);
    const children = (ours as { children: KObject[] }).children.map((c) => [c.kind, c.metadata.name, c.metadata.finalizers, c.metadata.ownerReferences]);
    expect(children).toEqual([
      ['IPAddressClaim', 'tpl-0-incluster', undefined, undefined],
      ['IPClaim', 'tpl-0-m3', undefined, undefined],
    ]);
  });

  it('an IPClaim being deleted is not rendered from: upstream uses the address of one its data owns, Ironhook waits for it to go and claims again', () => {
    const w: World = { spec: v4({ ipAddressFromIPPool: 'a' }), annotations: NO_ANNOTATIONS, labels: {}, claims: [{ ...bound('a'), state: 'deleting' }] };
    const { ours, theirs } = bothSides(w, claimsToOracle, oursClaims);
    expect((theirs as UpstreamAnswer).ready).toBe(true);
    expect((theirs as UpstreamAnswer).secrets.map((s) => s.name)).toEqual(['m3m-0-networkdata']);
    expect(ours).toMatchObject({ done: false, error: false, secrets: [] });
  });

  it('a claim of a pool the template no longer references is released at once; upstream keeps it', () => {
    const w: World = { spec: v4({ ipAddressFromIPPool: 'a' }), annotations: NO_ANNOTATIONS, labels: {}, claims: [bound('a'), bound('gone', IN_CLUSTER)] };
    const { ours, theirs } = bothSides(w, claimsToOracle, oursClaims);
    expect((theirs as UpstreamAnswer).claims.map((c) => `${c.kind}/${c.name}`)).toEqual(['IPAddressClaim/tpl-0-gone', 'IPClaim/tpl-0-a']);
    expect((ours as Outcome).claims.map((c) => `${c.kind}/${c.name}`)).toEqual(['IPClaim/tpl-0-a']);
  });

  it.each<[string, Metal3DataTemplateSpec, ClaimState[], string[]]>([
    ['a pool named only by an annotation', v4({ fromPoolAnnotation: { object: 'machine', annotation: 'pool-v4' } }), [bound('a')], ['IPClaim/tpl-0-a']],
    [
      'a template whose references conflict',
      { ...v4({ fromPoolRef: { name: 'p', ...IN_CLUSTER } }), metaData: { gatewaysFromPool: [{ key: 'k', name: 'p' }] } },
      [bound('p')],
      ['IPClaim/tpl-0-p'],
    ],
  ])('deletion releases every claim; upstream keeps those of %s', (_name, spec, claims, upstreamKeeps) => {
    const w: World = { spec, annotations: NO_ANNOTATIONS, labels: {}, claims };
    const { ours, theirs } = bothSides(w, releaseToOracle, oursRelease);
    expect(kept((theirs as UpstreamAnswer).claims)).toEqual(upstreamKeeps);
    expect(ours).toEqual([]);
  });
});
