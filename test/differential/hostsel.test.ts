// Host selection: which BareMetalHosts CAPM3 v1.13.2's chooseHost (over a controller-runtime fake
// client) would associate with a Metal3Machine, against what Ironhook's Metal3Machine sync hook
// claims for the same world. Upstream picks at random, so both sides are asked again without the
// host just chosen until none is left, and the answers are compared as tiers of interchangeable
// hosts: the host already consumed by this machine, node-reuse hosts, hosts of the Machine's
// failure domain, the rest; then how the run ended (no host, waiting for node reuse, an error).
import { describe, expect, it } from 'vitest';

import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse } from '../../domain/metacontroller.js';
import { metal3machineSync } from '../../hooks/metal3machine/sync.js';
import { FD_LABEL, hostselCase, M3M_NAME, NS, REUSE_LABEL, type HostselCase } from './hostsel-cases.js';
import { askOracle, expectIdentical, runSweep, verdictOf, type OracleAnswer, type Verdict } from './oracle.js';

type End = 'none' | 'wait' | 'error';

interface Tier {
  via: 'mine' | 'reuse' | 'available';
  inDomain?: boolean;
  hosts: string[];
}

interface Selection {
  tiers: Tier[];
  end: End;
}

function toOracle(c: HostselCase): unknown {
  return { metal3Machine: c.metal3Machine, machine: c.machine, machineSets: c.machineSets, hosts: c.hosts };
}

/** A chosen host's tier: consumed (by this machine: upstream takes no other), node reuse, or by failure domain. */
function tierOf(c: HostselCase, name: string): Tier {
  const domain = (c.machine.spec as { failureDomain?: string }).failureDomain ?? '';
  const host = c.hosts.find((h) => h.metadata.name === name && h.metadata.namespace === NS);
  const labels = host?.metadata.labels ?? {};
  if ((host?.spec as { consumerRef?: unknown } | undefined)?.consumerRef !== undefined) return { via: 'mine', hosts: [] };
  if (labels[REUSE_LABEL] !== undefined) return { via: 'reuse', hosts: [] };
  return { via: 'available', inDomain: domain !== '' && labels[FD_LABEL] === domain, hosts: [] };
}

/** Groups the hosts in the order they were chosen; within a tier the order is upstream's chance. */
function tiersOf(c: HostselCase, chosen: readonly string[], end: End): Selection {
  const tiers: Tier[] = [];
  for (const name of chosen) {
    const tier = tierOf(c, name);
    const last = tiers.at(-1);
    if (last?.via === tier.via && last.inDomain === tier.inDomain) last.hosts.push(name);
    else tiers.push({ ...tier, hosts: [name] });
  }
  return { tiers: tiers.map((t) => ({ ...t, hosts: [...t.hosts].sort() })), end };
}

/** The Metacontroller v2 sync request for the machine, with `hosts` as the related hosts. */
function hookRequest(c: HostselCase, hosts: readonly KObject[]): unknown {
  const byKey = (objects: readonly KObject[]) => Object.fromEntries(objects.map((o) => [`${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`, o]));
  const cluster: KObject = {
    apiVersion: 'cluster.x-k8s.io/v1beta2',
    kind: 'Cluster',
    metadata: { name: c.clusterName, namespace: NS, uid: 'cluster-uid' },
    spec: { infrastructureRef: { apiGroup: 'infrastructure.cluster.x-k8s.io', kind: 'Metal3Cluster', name: c.clusterName } },
    status: { initialization: { infrastructureProvisioned: true } },
  };
  const metal3Cluster: KObject = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    kind: 'Metal3Cluster',
    metadata: { name: c.clusterName, namespace: NS, uid: 'm3c-uid' },
    spec: { controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 } },
    status: { initialization: { provisioned: true } },
  };
  return {
    controller: { apiVersion: 'metacontroller.k8s.io/v1alpha1', kind: 'CompositeController', metadata: { name: 'ironhook-metal3machine' } },
    parent: c.metal3Machine,
    children: {
      'Metal3DataClaim.infrastructure.cluster.x-k8s.io/v1beta2': {},
      'ObjectPatch.ironhook.dev/v1alpha1': {},
      'NodeOperation.ironhook.dev/v1alpha1': {},
    },
    related: {
      'Machine.cluster.x-k8s.io/v1beta2': byKey([c.machine]),
      'Cluster.cluster.x-k8s.io/v1beta2': byKey([cluster]),
      'Metal3Cluster.infrastructure.cluster.x-k8s.io/v1beta2': byKey([metal3Cluster]),
      'BareMetalHost.metal3.io/v1alpha1': byKey(hosts),
    },
    finalizing: false,
  };
}

interface Operation {
  op: string;
  path: string;
  value?: unknown;
}

function requestChild(response: CompositeSyncResponse, purpose: string): KObject | undefined {
  return response.children.find((child) => child.kind === 'ObjectPatch' && child.metadata.labels?.['ironhook.dev/purpose'] === purpose);
}

/** The host named by the machine's own `metal3.io/BareMetalHost` annotation patch (a host it already consumes). */
function annotatedHost(response: CompositeSyncResponse): string | undefined {
  const associate = requestChild(response, 'associate');
  const ops = (associate?.spec as { operations: Operation[] } | undefined)?.operations ?? [];
  const value = JSON.stringify(ops.find((op) => op.op === 'add')?.value ?? '');
  return /"metal3\/([^"]+)"/u.exec(value)?.[1];
}

/** The host the sync claims (or, already consumed by the machine, names in its annotation), else how it stopped. */
function readSync(response: CompositeSyncResponse): { host: string } | { end: End } {
  const claim = requestChild(response, 'claim');
  if (claim !== undefined) return { host: (claim.spec as { target: { name: string } }).target.name };
  const annotated = annotatedHost(response);
  return annotated === undefined ? { end: stopOf(response) } : { host: annotated };
}

/** How a sync that claims nothing stopped: no host, waiting for node-reuse hosts, or failed. */
function stopOf(response: CompositeSyncResponse): End {
  const status = response.status as { ironhook?: { state?: string; waitingFor?: string }; deprecated?: { v1beta1?: { failureReason?: string } } };
  if (status.ironhook?.state !== 'Associating') throw new Error(`the sync stopped in ${String(status.ironhook?.state)}, not Associating`);
  if (status.deprecated?.v1beta1?.failureReason !== undefined) return 'error';
  return (status.ironhook.waitingFor ?? '').startsWith('BareMetalHost(s) labelled') ? 'wait' : 'none';
}

/** Ironhook's side: the sync hook, asked again without each host it claims. */
function oursSelection(c: HostselCase): Selection {
  let remaining = [...c.hosts];
  const chosen: string[] = [];
  for (;;) {
    const result = readSync(metal3machineSync(hookRequest(c, remaining)));
    if ('end' in result) return tiersOf(c, chosen, result.end);
    chosen.push(result.host);
    const before = remaining.length;
    remaining = remaining.filter((h) => !(h.metadata.name === result.host && h.metadata.namespace === NS));
    if (remaining.length === before) throw new Error(`the hook claimed ${result.host}, which it was not offered`);
  }
}

interface OracleSelection {
  chosen: string[];
  reasons: string[];
  end: End | 'terminal';
  message?: string;
}

function theirsSelection(answer: OracleAnswer, c: HostselCase): Verdict {
  const verdict = verdictOf(answer);
  if (!verdict.accepted) return verdict;
  const upstream = verdict.value as OracleSelection;
  const selection = tiersOf(c, upstream.chosen, upstream.end as End);
  // The tiers read "node reuse" off the host's label; upstream's condition reason must agree.
  const reuse = new Set(selection.tiers.filter((t) => t.via === 'reuse').flatMap((t) => t.hosts));
  const reasons = upstream.chosen.map((name) => (reuse.has(name) ? 'AssociateBareMetalHostViaNodeReuseSuccess' : 'AssociateBareMetalHostSuccess'));
  if (JSON.stringify(reasons) !== JSON.stringify(upstream.reasons)) return { accepted: false, error: `upstream reasons ${upstream.reasons.join(', ')}` };
  return { accepted: true, value: selection };
}

function ours(c: HostselCase): Verdict {
  return { accepted: true, value: oursSelection(c) };
}

describe('differential: host selection (CAPM3 v1.13.2 chooseHost)', () => {
  it('claims a host of the same tier as upstream, for random hosts, selectors, owners and failure domains', () => {
    expectIdentical(runSweep({ area: 'hostsel', arbitrary: hostselCase, defaultCases: 500, toOracle, ours, theirs: theirsSelection }));
  });
});

// Named worlds that show a deliberate difference: upstream's answer and Ironhook's side by side.
function world(patch: { machine?: Partial<KObject>; machineSets?: KObject[]; hosts: KObject[]; selector?: unknown }): HostselCase {
  return {
    clusterName: 'c1',
    metal3Machine: {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'Metal3Machine',
      metadata: {
        name: M3M_NAME,
        namespace: NS,
        uid: 'uid-1',
        generation: 1,
        labels: { 'cluster.x-k8s.io/cluster-name': 'c1' },
        ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', name: 'w-1-m', uid: 'machine-uid' }],
      },
      spec: patch.selector === undefined ? {} : { hostSelector: patch.selector },
    },
    machine: {
      apiVersion: 'cluster.x-k8s.io/v1beta2',
      kind: 'Machine',
      metadata: { name: 'w-1-m', namespace: NS, uid: 'machine-uid', labels: { 'cluster.x-k8s.io/cluster-name': 'c1' } },
      spec: { clusterName: 'c1', bootstrap: { dataSecretName: 'w-1-bootstrap' } },
      ...patch.machine,
    },
    machineSets: patch.machineSets ?? [],
    hosts: patch.hosts,
  };
}

function plainHost(name: string, labels: Record<string, string> = {}): KObject {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: NS, labels },
    spec: { online: false },
    status: { provisioning: { state: 'available' } },
  };
}

function upstreamSelection(c: HostselCase): OracleSelection {
  const [answer] = askOracle('hostsel', [toOracle(c)]);
  return (answer as { ok: OracleSelection }).ok;
}

describe('documented deviations (docs/compatibility.md)', () => {
  it('MachineDeployment name from the Machine label: an orphaned MachineSet still reuses the host', () => {
    // The Machine keeps cluster.x-k8s.io/deployment-name=workers, but its MachineSet lost its
    // MachineDeployment owner (for example, the deployment was deleted with orphaning).
    const c = world({
      machine: {
        metadata: {
          name: 'w-1-m',
          namespace: NS,
          uid: 'machine-uid',
          labels: { 'cluster.x-k8s.io/cluster-name': 'c1', 'cluster.x-k8s.io/deployment-name': 'workers' },
          ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', name: 'ms-1', uid: 'ms-1-uid' }],
        },
      },
      machineSets: [{ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'MachineSet', metadata: { name: 'ms-1', namespace: NS, uid: 'ms-1-uid' } }],
      hosts: [plainHost('fresh'), plainHost('reused', { [REUSE_LABEL]: 'md-workers' })],
    });
    expect(upstreamSelection(c)).toMatchObject({ chosen: ['fresh'], end: 'none' });
    expect(oursSelection(c)).toEqual({
      tiers: [
        { via: 'reuse', hosts: ['reused'] },
        { via: 'available', inDomain: false, hosts: ['fresh'] },
      ],
      end: 'none',
    });
  });

  it('an invalid hostSelector: upstream retries with an error, Ironhook fails the machine (failureReason)', () => {
    const c = world({ hosts: [plainHost('a')], selector: { matchExpressions: [{ key: 'rack', operator: 'DoesNotExist' }] } });
    const upstream = upstreamSelection(c);
    expect(upstream.end).toBe('error');
    expect(upstream.message).toMatch(/Unsupported value: "doesnotexist"/u);
    const response = metal3machineSync(hookRequest(c, c.hosts));
    const status = response.status as { deprecated: { v1beta1: { failureReason?: string; failureMessage?: string } } };
    expect(status.deprecated.v1beta1.failureReason).toBe('CreateError');
    expect(status.deprecated.v1beta1.failureMessage).toMatch(/DoesNotExist cannot be used/u);
  });
});
