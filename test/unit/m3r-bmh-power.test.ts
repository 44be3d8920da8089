// The BareMetalHost lifecycle honours the remediation's power-off annotation
// (reboot.metal3.io/metal3-remediation-<uid>) as upstream BMO does a phased reboot: powered off
// while it is there, never consumed by the host, powered on (spec.online) once it is removed.
import { describe, expect, it } from 'vitest';
import { ProvisioningState as S } from '../../domain/baremetalhost.js';
import type { KObject } from '../../domain/k8s.js';
import { syncHostAnnotations } from '../../hooks/baremetalhost/decorator.js';
import { syncBareMetalHost } from '../../hooks/baremetalhost/sync.js';
import { DEFAULT_HOOK_CONFIG } from '../../hooks/types.js';
import { host, succeeded } from '../../devenv/builders/host.js';
import { monitorOff, monitorOn, T1 } from './bmh/registration.rows.js';

const KEY = 'reboot.metal3.io/metal3-remediation-uid-m3r-1';
const HARD = '{"mode":"hard"}';
const IMAGE = { url: 'http://127.0.0.1:8081/images/ubuntu.qcow2', checksum: 'http://127.0.0.1:8081/images/ubuntu.qcow2.sha256sum', format: 'qcow2' as const };
const deployed = { provisioning: { state: S.Provisioned, ID: 'x', image: IMAGE, rootDeviceHints: { deviceName: '/dev/sda' } } };

interface HostStatus {
  poweredOn?: boolean;
  ironhook?: { consumedAnnotations?: string[] };
}

function sync(builder: ReturnType<typeof host>): { operation: KObject | undefined; status: HostStatus } {
  const response = syncBareMetalHost(builder.request(), { config: DEFAULT_HOOK_CONFIG });
  return { operation: response.children.find((child) => child.kind === 'HostOperation'), status: response.status };
}

describe('BareMetalHost and the remediation power-off annotation', () => {
  it('provisioned and on: a hard PowerOff', () => {
    const { operation } = sync(host().spec({ online: true, image: IMAGE }).annotate(KEY, HARD).inState(S.Provisioned, deployed).monitor(monitorOn));
    expect(operation?.spec).toMatchObject({ action: 'PowerOff', power: { mode: 'hard' } });
  });

  it('off while the annotation is there: no request, status says off, annotation not consumed', () => {
    const { operation, status } = sync(host().spec({ online: true, image: IMAGE }).annotate(KEY, HARD).inState(S.Provisioned, deployed).monitor(monitorOff));
    expect(operation).toBeUndefined();
    expect(status.poweredOn).toBe(false);
    expect(status.ironhook?.consumedAnnotations ?? []).not.toContain(KEY);
  });

  it('after the PowerOff succeeded the annotation is still not consumed, so the annotations decorator keeps it', () => {
    const { status } = sync(
      host()
        .spec({ online: true, image: IMAGE })
        .annotate(KEY, HARD)
        .inState(S.Provisioned, deployed)
        .operation('PowerOff', 1, { status: succeeded(T1, { poweredOn: false }) })
        .monitor(monitorOn),
    );
    const decorated = syncHostAnnotations({
      object: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'server-01', annotations: { [KEY]: HARD } }, status },
    });
    expect(decorated.annotations).toBeUndefined();
  });

  it('a phased key listed as answered (disablePowerOff) is still never removed by the annotations decorator', () => {
    const status = { ironhook: { consumedAnnotations: ['reboot.metal3.io', KEY] } };
    const decorated = syncHostAnnotations({
      object: {
        apiVersion: 'metal3.io/v1alpha1',
        kind: 'BareMetalHost',
        metadata: { name: 'server-01', annotations: { 'reboot.metal3.io': '', [KEY]: HARD } },
        status,
      },
    });
    expect(decorated.annotations).toEqual({ 'reboot.metal3.io': null });
  });

  it('annotation removed while off: PowerOn (spec.online)', () => {
    const { operation } = sync(host().spec({ online: true, image: IMAGE }).inState(S.Provisioned, deployed).monitor(monitorOff));
    expect(operation?.spec).toMatchObject({ action: 'PowerOn' });
  });
});
