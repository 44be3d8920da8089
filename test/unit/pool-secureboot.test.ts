// UEFI secure boot in the pool's executors, against the fake BMC fleet and the fake agent:
// Register refuses a UEFISecureBoot host whose BMC has no SecureBoot resource; Provision turns
// secure boot on (UEFISecureBoot) or off (other modes) after the boot device and before the
// power-on that boots the OS, reading first (a resumed request changes nothing twice) and
// rebooting a BMC that applies the change at the next boot; Deprovision turns it off before the
// agent boots. Virtual time only.
import { describe, expect, it } from 'vitest';
import { Phase } from '../../domain/operations.js';
import { BMCError } from '../../drivers/bmc/types.js';
import type { HostOperation, HostOperationSpec } from '../../domain/operations.js';
import { createHarness, credentialsSecret, operation, NAMESPACE } from '../support/fake-driver.js';
import type { FakeBMC, Harness, OperationOptions } from '../support/fake-driver.js';

const REDFISH = 'redfish+http://127.0.0.1:8000/redfish/v1/Systems/1';
const VMEDIA = 'redfish-virtualmedia+http://127.0.0.1:8000/redfish/v1/Systems/1';
const LIVE_ISO = 'http://127.0.0.1:8081/live.iso';
const IMAGE = {
  url: 'http://127.0.0.1:8081/images/ubuntu.qcow2',
  checksum: 'http://127.0.0.1:8081/images/ubuntu.qcow2.sha256sum',
  checksumType: 'auto' as const,
  format: 'qcow2' as const,
};

async function setup(address: string, configure: (bmc: FakeBMC) => void): Promise<{ h: Harness; bmc: FakeBMC }> {
  const h = createHarness({});
  const bmc = h.fleet.add(address);
  h.kube.put('secrets', credentialsSecret('server-01-bmc', 'admin', 'password'));
  h.agent.link({ namespace: NAMESPACE, name: 'server-01' }, bmc);
  h.agent.onAgentPowerOff = () => {
    bmc.setNow('off');
  };
  configure(bmc);
  await h.pool.start();
  return { h, bmc };
}

async function run(h: Harness, action: HostOperationSpec['action'], address: string, options: OperationOptions): Promise<NonNullable<HostOperation['status']>> {
  const op = operation(action, 1, { bmc: { address, credentialsName: 'server-01-bmc' }, ...options });
  h.kube.put('hostoperations', op);
  await h.settle();
  return (h.kube.get('hostoperations', NAMESPACE, op.metadata.name ?? '') as HostOperation).status ?? {};
}

const stepsOf = (status: HostOperation['status']): string[] =>
  (status?.steps ?? []).map((step) => (step.message === undefined ? step.name : `${step.name}: ${step.message}`));
const after = (commands: string[], marker: string): string[] => commands.slice(commands.lastIndexOf(marker));

describe('Register', () => {
  it.each([
    { name: 'UEFISecureBoot, BMC with SecureBoot', bootMode: 'UEFISecureBoot' as const, secureBoot: false, phase: Phase.Succeeded },
    { name: 'UEFISecureBoot, BMC without SecureBoot', bootMode: 'UEFISecureBoot' as const, secureBoot: undefined, phase: Phase.Failed },
    { name: 'UEFI, BMC without SecureBoot', bootMode: 'UEFI' as const, secureBoot: undefined, phase: Phase.Succeeded },
  ])('$name → $phase', async ({ bootMode, secureBoot, phase }) => {
    const { h } = await setup(REDFISH, (bmc) => {
      bmc.secureBoot = secureBoot;
    });
    const status = await run(h, 'Register', REDFISH, { bootMode });
    expect(status.phase).toBe(phase);
    if (phase === Phase.Failed) {
      expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'Unsupported' });
      expect(status.error?.message).toMatch(
        /^BMC registration failed at the capability check: .* lacks what the redfish scheme needs: SecureBoot; set spec\.bootMode to UEFI/u,
      );
    }
  });
});

describe('Provision', () => {
  it.each([
    {
      name: 'UEFISecureBoot: enabled after the boot device, before the OS boots',
      bootMode: 'UEFISecureBoot' as const,
      before: false,
      tail: ['boot:disk/persistent', 'secureboot:on', 'power:on'],
      step: 'SetSecureBoot: secure boot enabled (read back)',
    },
    {
      name: 'UEFISecureBoot already on: a note, no command',
      bootMode: 'UEFISecureBoot' as const,
      before: true,
      tail: ['boot:disk/persistent', 'power:on'],
      step: 'SetSecureBoot: secure boot already enabled',
    },
    {
      name: 'UEFI on a BMC with secure boot on: disabled',
      bootMode: 'UEFI' as const,
      before: true,
      tail: ['boot:disk/persistent', 'secureboot:off', 'power:on'],
      step: 'SetSecureBoot: secure boot disabled (read back)',
    },
    { name: 'UEFI with secure boot off: no step', bootMode: 'UEFI' as const, before: false, tail: ['boot:disk/persistent', 'power:on'], step: undefined },
  ])('disk image, $name', async ({ bootMode, before, tail, step }) => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.secureBoot = before;
    });
    const status = await run(h, 'Provision', REDFISH, { bootMode, provision: { image: IMAGE } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(after(bmc.commands, 'boot:disk/persistent')).toEqual(tail);
    expect(bmc.secureBoot).toBe(bootMode === 'UEFISecureBoot');
    const steps = stepsOf(status);
    const secureSteps = steps.filter((entry) => entry.startsWith('SetSecureBoot'));
    expect(secureSteps).toEqual(step === undefined ? [] : [step]);
    if (step !== undefined) {
      expect(steps.slice(steps.indexOf(step) - 1, steps.indexOf(step) + 2).map((entry) => entry.split(':')[0])).toEqual([
        'SetBootDevice',
        'SetSecureBoot',
        'PowerOn',
      ]);
    }
  });

  it.each([
    { name: 'UEFI: a note, the OS boots', bootMode: 'UEFI' as const, phase: Phase.Succeeded },
    { name: 'UEFISecureBoot: the request fails', bootMode: 'UEFISecureBoot' as const, phase: Phase.Failed },
  ])('a SecureBoot resource linked but not served (404), $name', async ({ bootMode, phase }) => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.failures.set('getSecureBoot', new BMCError('Permanent', 'ResourceNotFound', 'GET /redfish/v1/Systems/1/SecureBoot: 404'));
    });
    const status = await run(h, 'Provision', REDFISH, { bootMode, provision: { image: IMAGE } });
    expect(status.phase).toBe(phase);
    if (phase === Phase.Succeeded) {
      expect(stepsOf(status)).toContain("SetSecureBoot: the BMC's secure boot state cannot be read (ResourceNotFound); left as it is");
      expect(bmc.commands.at(-1)).toBe('power:on');
    } else {
      expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'ResourceNotFound' });
    }
  });

  it('a dropped read of the secure boot state is made again after a pause, not failing the request', async () => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.failures.set('getSecureBoot', new BMCError('Transient', 'BMCUnreachable', 'socket closed by the BMC'));
    });
    h.clock.autoAdvance = true;
    const status = await run(h, 'Provision', REDFISH, { bootMode: 'UEFISecureBoot', provision: { image: IMAGE } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(bmc.calls.filter((call) => call === 'getSecureBoot').length).toBeGreaterThanOrEqual(2);
    expect(bmc.commands.slice(-2)).toEqual(['secureboot:on', 'power:on']);
  });

  it('live-iso over virtual media with UEFISecureBoot: enabled before the power-on', async () => {
    const { h, bmc } = await setup(VMEDIA, () => undefined);
    const status = await run(h, 'Provision', VMEDIA, { bootMode: 'UEFISecureBoot', provision: { image: { url: LIVE_ISO, format: 'live-iso' } } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(bmc.commands).toEqual(['eject', `insert:${LIVE_ISO}`, 'boot:cdrom/persistent', 'secureboot:on', 'power:on']);
  });

  it('UEFISecureBoot on a BMC without SecureBoot: Permanent Unsupported, and the OS is not booted', async () => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.secureBoot = undefined;
    });
    const status = await run(h, 'Provision', REDFISH, { bootMode: 'UEFISecureBoot', provision: { image: IMAGE } });
    expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'Unsupported' });
    expect(status.error?.message).toContain('no SecureBoot resource; set spec.bootMode to UEFI');
    expect(bmc.commands.at(-1)).toBe('boot:disk/persistent');
  });

  it('a BMC that applies secure boot at the next boot: power on, wait for it, power off, then boot the OS', async () => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.secureBootAppliesAtBoot = true;
    });
    const status = await run(h, 'Provision', REDFISH, { bootMode: 'UEFISecureBoot', provision: { image: IMAGE } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(after(bmc.commands, 'boot:disk/persistent')).toEqual(['boot:disk/persistent', 'secureboot:on', 'power:on', 'power:off', 'power:on']);
    const steps = stepsOf(status).map((entry) => entry.split(':')[0]);
    expect(steps.slice(steps.indexOf('SetSecureBoot'))).toEqual([
      'SetSecureBoot',
      'PowerOnForSecureBoot',
      'WaitForSecureBoot',
      'PowerOffAfterSecureBoot',
      'PowerOn',
    ]);
    expect(bmc.secureBoot).toBe(true);
  });

  it('a resumed provision whose secure boot change took does not change it again', async () => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.secureBoot = true;
    });
    const status = await run(h, 'Provision', REDFISH, {
      bootMode: 'UEFISecureBoot',
      provision: { image: IMAGE },
      status: {
        phase: Phase.Running,
        steps: [
          { name: 'WriteImage', state: Phase.Succeeded },
          { name: 'SetSecureBoot', state: Phase.Succeeded },
        ],
      },
    });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(bmc.commandsOf('secureboot')).toEqual([]);
  });
});

describe('Deprovision', () => {
  it.each([
    { name: 'metadata cleaning', mode: 'metadata' as const, first: ['secureboot:off', 'boot:pxe/once'] },
    { name: 'cleaning disabled', mode: 'disabled' as const, first: ['secureboot:off', 'power:off'] },
  ])('$name: secure boot off before anything else', async ({ mode, first }) => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.power = 'on';
      b.secureBoot = true;
    });
    const status = await run(h, 'Deprovision', REDFISH, { bootMode: 'UEFISecureBoot', deprovision: { automatedCleaningMode: mode } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(bmc.commands.slice(0, 2)).toEqual(first);
    expect(bmc.secureBoot).toBe(false);
  });

  it('a BMC without SecureBoot: nothing to undo, no step', async () => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.secureBoot = undefined;
    });
    const status = await run(h, 'Deprovision', REDFISH, { deprovision: { automatedCleaningMode: 'disabled' } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(bmc.commandsOf('secureboot')).toEqual([]);
    expect(stepsOf(status).some((entry) => entry.startsWith('SetSecureBoot'))).toBe(false);
  });
});
