// The remediation power-off decorator: the annotation is on the host exactly while a Running
// remediation targets it (docs/capm3-remediation.md).
import { describe, expect, it } from 'vitest';
import { remediationPowerCustomize, remediationPowerSync } from '../../hooks/metal3remediation/index.js';
import { POWER_KEY } from './m3r/remediation-rows.js';
import { powerRequest, type PowerWorld } from './m3r/power-rows.js';

const HARD = '{"mode":"hard"}';

const rows: { name: string; world: PowerWorld; annotations: Record<string, string | null> | undefined }[] = [
  { name: 'Running remediation, no annotation: added', world: { remediationPhase: 'Running' }, annotations: { [POWER_KEY]: HARD } },
  { name: 'Running remediation, annotation present: no change', world: { remediationPhase: 'Running', annotated: true }, annotations: undefined },
  {
    name: 'Running remediation, wrong value: corrected',
    world: { remediationPhase: 'Running', extraAnnotations: { [POWER_KEY]: '{"mode":"soft"}' } },
    annotations: { [POWER_KEY]: HARD },
  },
  { name: 'Waiting remediation, annotation present: removed', world: { remediationPhase: 'Waiting', annotated: true }, annotations: { [POWER_KEY]: null } },
  {
    name: 'Deleting machine, annotation present: removed',
    world: { remediationPhase: 'Deleting machine', annotated: true },
    annotations: { [POWER_KEY]: null },
  },
  { name: 'Failed, no annotation: nothing', world: { remediationPhase: 'Failed' }, annotations: undefined },
  { name: 'new remediation (no phase): nothing yet', world: {}, annotations: undefined },
  {
    name: 'remediation deleted while Running: removed',
    world: { remediationPhase: 'Running', remediationDeleting: true, annotated: true },
    annotations: { [POWER_KEY]: null },
  },
  { name: 'remediation gone, annotation left behind: removed', world: { noRemediation: true, annotated: true }, annotations: { [POWER_KEY]: null } },
  { name: 'Running remediation of another host: nothing here', world: { remediationPhase: 'Running', otherHost: true }, annotations: undefined },
  { name: 'host found by consumerRef', world: { remediationPhase: 'Running', hostByConsumerRef: true }, annotations: { [POWER_KEY]: HARD } },
  {
    name: 'other reboot annotations are not touched',
    world: { remediationPhase: 'Waiting', extraAnnotations: { 'reboot.metal3.io/other': '', 'reboot.metal3.io': '' } },
    annotations: undefined,
  },
];

describe('metal3remediation-power decorator', () => {
  for (const row of rows) {
    it(row.name, () => {
      const response = remediationPowerSync(powerRequest(row.world));
      expect(response.annotations).toEqual(row.annotations);
      expect(response.status).toBeNull();
      expect(response.attachments).toEqual([]);
      expect(response.labels).toBeUndefined();
    });
  }

  it('rejects a request that is not about a BareMetalHost', () => {
    expect(() => remediationPowerSync({ object: { kind: 'Pod', metadata: {} } })).toThrow(/BareMetalHost/u);
  });

  it("customize selects the namespace's remediations, Machines and Metal3Machines", () => {
    const request = powerRequest({});
    expect(remediationPowerCustomize({ parent: request.object }).relatedResources.map((r) => `${r.apiVersion} ${r.resource} ${r.namespace ?? ''}`)).toEqual([
      'infrastructure.cluster.x-k8s.io/v1beta2 metal3remediations metal3',
      'cluster.x-k8s.io/v1beta2 machines metal3',
      'infrastructure.cluster.x-k8s.io/v1beta2 metal3machines metal3',
    ]);
  });
});
