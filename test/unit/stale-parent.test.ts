// Every hook with a parent one status write behind its children (issue 10, test/unit/stale/
// harness.ts): sync N answers S_N and C_N, Metacontroller stores C_N, and the next sync still
// reads S_{N-1}. No child of C_N may be dropped or rewritten, nothing new asked for, and the
// status may not go back behind S_N.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { KObject } from '../../domain/k8s.js';
import type { DecoratorSyncResponse } from '../../domain/metacontroller.js';
import { hookRegistry } from '../../hooks/registry.js';
import { DEFAULT_HOOK_CONFIG } from '../../hooks/types.js';
import { capiClaim, NS, pool } from '../../devenv/builders/ippool.js';
import { bmhRoute, bmhScenarios } from './stale/bmh.rows.js';
import { m3cRoute, m3cScenarios, m3mRoute, m3mScenarios, m3mtRoute, m3mtScenarios } from './stale/capm3.rows.js';
import {
  ipclaimRoute,
  ipclaimScenarios,
  ippoolRoute,
  ippoolScenarios,
  metal3dataclaimRoute,
  metal3dataclaimScenarios,
  metal3dataRoute,
  metal3dataScenarios,
  metal3datatemplateRoute,
  metal3datatemplateScenarios,
} from './stale/data.rows.js';
import { checkStale, type Route, type Scenario } from './stale/harness.js';
import { m3rRoute, m3rScenarios } from './stale/m3r.rows.js';

const tables: [Route, Scenario[]][] = [
  [bmhRoute, bmhScenarios],
  [m3rRoute, m3rScenarios],
  [m3mRoute, m3mScenarios],
  [m3mtRoute, m3mtScenarios],
  [m3cRoute, m3cScenarios],
  [ippoolRoute, ippoolScenarios],
  [ipclaimRoute, ipclaimScenarios],
  [metal3dataRoute, metal3dataScenarios],
  [metal3datatemplateRoute, metal3datatemplateScenarios],
  [metal3dataclaimRoute, metal3dataclaimScenarios],
];

describe.each(tables)('a parent one status write behind: $route', (route, scenarios) => {
  it.each(scenarios)('$name', (scenario) => {
    checkStale(route, scenario);
  });
});

// Decorators have no children; their object can still be one write behind.

type DecoratorRequest = { object: KObject; related: Record<string, Record<string, KObject>> } & Record<string, unknown>;

function decorate(route: string, request: DecoratorRequest): DecoratorSyncResponse {
  const sync = hookRegistry[route]?.sync;
  if (sync === undefined) throw new Error(`no sync hook for ${route}`);
  return sync(structuredClone(request), { config: DEFAULT_HOOK_CONFIG }) as DecoratorSyncResponse;
}

function decoratorFixture(route: string, scenario: string): DecoratorRequest {
  return JSON.parse(readFileSync(new URL(`../fixtures/${route}/${scenario}/request.json`, import.meta.url), 'utf8')) as DecoratorRequest;
}

function removals(answer: DecoratorSyncResponse): string[] {
  return Object.entries(answer.annotations ?? {}).flatMap(([key, value]) => (value === null ? [key] : []));
}

describe('a decorated object one status write behind', () => {
  it('baremetalhost-annotations: a status that has not recorded the consumption yet removes nothing more', () => {
    const request = decoratorFixture('baremetalhost-annotations', 'consumed-annotations-removed');
    const fresh = decorate('baremetalhost-annotations', request);
    const behind = structuredClone(request);
    delete (behind.object.status as { ironhook?: unknown }).ironhook;
    const stale = decorate('baremetalhost-annotations', behind);
    expect(removals(fresh)).toEqual(['inspect.metal3.io/hardwaredetails', 'reboot.metal3.io']);
    expect(removals(fresh)).toEqual(expect.arrayContaining(removals(stale)));
    expect(stale.status).toBeNull();
  });

  it('metal3remediation-power: a host not showing the annotation written last gets the same one again', () => {
    const request = decoratorFixture('metal3remediation-power', 'running-adds-annotation');
    const fresh = decorate('metal3remediation-power', request);
    const written = structuredClone(request);
    written.object.metadata.annotations = { ...written.object.metadata.annotations, ...(fresh.annotations as Record<string, string>) };
    expect(decorate('metal3remediation-power', written).annotations).toBeUndefined();
    expect(decorate('metal3remediation-power', request)).toEqual(fresh);
  });

  it('ipaddressclaim-ipam: a claim not showing its last status write reports the same status', () => {
    const address: KObject = {
      apiVersion: 'ipam.cluster.x-k8s.io/v1beta2',
      kind: 'IPAddress',
      metadata: { name: 'm', namespace: NS, creationTimestamp: '2026-11-29T15:00:03Z' },
      spec: { address: '10.0.0.1', claimRef: { name: 'm' }, poolRef: { apiGroup: 'ipam.metal3.io', kind: 'IPPool', name: 'pool1' }, prefix: 24 },
    };
    const ippool = pool('pool1', { namePrefix: 'p', pools: [{ start: '10.0.0.1', end: '10.0.0.3' }] }, { status: { indexes: { m: '10.0.0.1' } } });
    const related = { 'IPPool.ipam.metal3.io/v1alpha1': { [`${NS}/pool1`]: ippool }, 'IPAddress.ipam.cluster.x-k8s.io/v1beta2': { [`${NS}/m`]: address } };
    const before = decorate('ipaddressclaim-ipam', {
      object: capiClaim('m'),
      related: { 'IPPool.ipam.metal3.io/v1alpha1': related['IPPool.ipam.metal3.io/v1alpha1'] },
    });
    const fresh = decorate('ipaddressclaim-ipam', { object: capiClaim('m', { status: before.status ?? {} }), related });
    const stale = decorate('ipaddressclaim-ipam', { object: capiClaim('m'), related });
    expect(fresh.status).toMatchObject({ addressRef: { name: 'm' } });
    expect(stale.status).toEqual(fresh.status);
  });
});
