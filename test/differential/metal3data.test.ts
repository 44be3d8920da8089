// Metal3Data rendering through the real hook request path: the metaData and networkData Secret
// texts byte for byte, whether the case renders, waits or fails, and which pools are claimed,
// against CAPM3 v1.13.2's createSecrets (getReferencedPools, renderMetaData, renderNetworkData).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { canonicalJSON } from '../../domain/canonical.js';
import { crdByKind, loadCrds, schemaErrors } from '../support/crds.js';
import { metal3DataCase, type Metal3DataCase } from './metal3data-cases.js';
import { ironhookSide, toOracle, upstreamSide } from './metal3data-hook.js';
import { askOracle, expectIdentical, runAsyncSweep, type Verdict } from './oracle.js';

const same = (ours: Verdict, theirs: Verdict): boolean => canonicalJSON(ours) === canonicalJSON(theirs);

describe('differential: Metal3Data rendering (CAPM3 v1.13.2 metal3data_manager)', () => {
  it('renders random templates for random hosts as upstream does: the Secret texts, the outcome and the claimed pools', async () => {
    const report = await runAsyncSweep({
      area: 'metal3data',
      arbitrary: metal3DataCase,
      defaultCases: 400,
      toOracle,
      ours: ironhookSide(),
      theirs: upstreamSide,
      same,
    });
    expectIdentical(report);
  });

  it("the generated templates are ones Ironhook's CRD schema admits", () => {
    const crd = crdByKind(loadCrds(), 'Metal3DataTemplate');
    expect(crd.version.name).toBe('v1beta2');
    const specs = fc.sample(metal3DataCase, { seed: 1, numRuns: 300 }).map((c) => c.spec);
    const rejected = specs
      .map((spec) => schemaErrors(crd, { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3DataTemplate', metadata: {}, spec }))
      .filter((e) => e.length > 0);
    expect(rejected.slice(0, 3)).toEqual([]);
  });
});

const host = { labels: {}, annotations: {}, bootMACAddress: '52:54:00:aa:bb:cc' };

/** A template whose only pool is named by an annotation, on the gateway of a DHCP route. */
const dhcpAnnotationGateway: Metal3DataCase = {
  spec: {
    networkData: {
      networks: {
        ipv4DHCP: [{ id: 'dhcp0', link: 'eth0', routes: [{ network: '0.0.0.0', gateway: { fromPoolAnnotation: { object: 'machine', annotation: 'pool' } } }] }],
      },
    },
  },
  objects: {
    names: { namespace: 'metal3', m3m: 'w-abc', machine: 'w-abc-m', host: 'node-3' },
    index: 0,
    m3m: { labels: {}, annotations: {} },
    machine: { labels: {}, annotations: { pool: 'pool-a' } },
    host,
  },
  pools: { 'pool-a': { address: '192.168.10.5', prefix: 24, gateway: '192.168.10.1' } },
};

describe('once different, now as upstream', () => {
  it('a DHCP route gateway from a pool annotation claims nothing, so its rendering fails unless the pool is referenced elsewhere', async () => {
    const [upstream] = askOracle('metal3data', [toOracle(dhcpAnnotationGateway)]);
    expect(upstream).toEqual({ ok: { pools: {}, outcome: 'error', error: 'failed to fetch pool from cache', secrets: {} } });
    const ours = await ironhookSide()(dhcpAnnotationGateway);
    expect(ours).toEqual({ accepted: true, value: { pools: [], outcome: 'error', secrets: {} } });
  });
});
