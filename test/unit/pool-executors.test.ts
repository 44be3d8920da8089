// Each executor against the fake BMC fleet and the fake agent: the commands the BMC saw, the
// steps written to status, the result, the classified error and the events. Virtual time only.
import { describe, expect, it } from 'vitest';
import { Phase } from '../../domain/operations.js';
import type { HostOperation, HostOperationSpec } from '../../domain/operations.js';
import { BMCError } from '../../drivers/bmc/types.js';
import type { Secret } from '../../drivers/kube/port.js';
import { createHarness, credentialsSecret, dataSecret, operation, NAMESPACE } from '../support/fake-driver.js';
import type { FakeBMC, Harness, OperationOptions } from '../support/fake-driver.js';

const REDFISH = 'redfish+http://127.0.0.1:8000/redfish/v1/Systems/1';
const VMEDIA = 'redfish-virtualmedia+http://127.0.0.1:8000/redfish/v1/Systems/1';
const UEFIHTTP = 'redfish-uefihttp+http://127.0.0.1:8000/redfish/v1/Systems/1';
const IPMI = 'ipmi://127.0.0.1:6230';

interface Setup {
  h: Harness;
  bmc: FakeBMC;
}

async function setup(
  address = REDFISH,
  configure: (bmc: FakeBMC, h: Harness) => void = () => undefined,
  settings: Parameters<typeof createHarness>[0] = {},
): Promise<Setup> {
  const h = createHarness(settings);
  const bmc = h.fleet.add(address);
  h.kube.put('secrets', credentialsSecret('server-01-bmc', 'admin', 'password'));
  h.agent.link({ namespace: NAMESPACE, name: 'server-01' }, bmc);
  h.agent.onAgentPowerOff = () => {
    bmc.setNow('off');
  };
  configure(bmc, h);
  await h.pool.start();
  return { h, bmc };
}

async function run(
  h: Harness,
  action: HostOperationSpec['action'],
  options: OperationOptions & { address?: string } = {},
): Promise<NonNullable<HostOperation['status']>> {
  const { address = REDFISH, ...rest } = options;
  const op = operation(action, rest.sequence ?? 1, { bmc: { address, credentialsName: 'server-01-bmc' }, ...rest });
  h.kube.put('hostoperations', op);
  await h.settle();
  const stored = h.kube.get('hostoperations', NAMESPACE, op.metadata.name ?? '') as HostOperation;
  return stored.status ?? {};
}

function stepNames(status: HostOperation['status']): string[] {
  return (status?.steps ?? []).map((step) => step.name);
}

function reasons(h: Harness): string[] {
  return h.kube.events.map((event) => event.reason);
}

describe('Register', () => {
  it('reads, claims and checks, and reports the credentials version after the claim', async () => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.power = 'on';
    });
    const status = await run(h, 'Register');
    expect(status.phase).toBe(Phase.Succeeded);
    expect(stepNames(status)).toEqual(['ReadCredentials', 'ClaimCredentials', 'CheckBMC']);
    const secret = h.kube.get('secrets', NAMESPACE, 'server-01-bmc') as Secret;
    expect(secret.metadata.labels).toEqual({ 'environment.metal3.io': 'baremetal' });
    expect(secret.metadata.finalizers).toEqual(['baremetalhost.metal3.io/secret']);
    expect(secret.metadata.ownerReferences).toEqual([
      { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: 'server-01', uid: 'uid-server-01', controller: false },
    ]);
    expect(status.result).toEqual({
      credentials: { name: 'server-01-bmc', namespace: NAMESPACE, credentialsVersion: secret.metadata.resourceVersion },
      provisioningID: 'uid-server-01',
      poweredOn: true,
      hardwareProfile: 'unknown',
    });
    expect(reasons(h)).toEqual(['BMCAccessValidated', 'Registered']);
    expect(bmc.commands).toEqual([]);
  });

  it('rewrites an old controller owner reference and adds no finalizer to a Secret being deleted', async () => {
    const { h } = await setup(REDFISH, (_bmc, harness) => {
      const secret = credentialsSecret('server-01-bmc', 'admin', 'password');
      secret.metadata.deletionTimestamp = '2026-11-29T14:00:00Z';
      secret.metadata.ownerReferences = [
        { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: 'server-01', uid: 'uid-server-01', controller: true },
      ];
      harness.kube.put('secrets', secret);
    });
    expect((await run(h, 'Register')).phase).toBe(Phase.Succeeded);
    const secret = h.kube.get('secrets', NAMESPACE, 'server-01-bmc') as Secret;
    expect(secret.metadata.ownerReferences?.[0]?.controller).toBe(false);
    expect(secret.metadata.finalizers).toBeUndefined();
  });

  it('emits BMCAccessValidated only (no Registered) when re-registering a provisioned host', async () => {
    const { h } = await setup();
    await run(h, 'Register', { hostStatus: { state: 'provisioned', errorCount: 0, provisioningFailCount: 0 } });
    expect(reasons(h)).toEqual(['BMCAccessValidated']);
  });

  it.each([
    {
      name: 'missing Secret',
      configure: (_bmc: FakeBMC, h: Harness) => {
        h.kube.remove('secrets', NAMESPACE, 'server-01-bmc');
      },
      error: { kind: 'Permanent', reason: 'CredentialsNotFound' },
      event: 'BMCCredentialError',
      metric: 'metal3_credentials_missing_total 1',
    },
    {
      name: 'Secret without a password',
      configure: (_bmc: FakeBMC, h: Harness) => {
        h.kube.put('secrets', {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'server-01-bmc', namespace: NAMESPACE },
          data: { username: Buffer.from('admin').toString('base64'), password: Buffer.from('  \n').toString('base64') },
        });
      },
      error: {
        kind: 'Permanent',
        reason: 'CredentialsInvalid',
        message:
          'Validation error with BMC credentials: Missing BMC connection detail \'password\' in secret metal3/server-01-bmc: the key "password" is empty',
      },
      event: 'BMCCredentialError',
      metric: 'metal3_credentials_invalid_total 1',
    },
    {
      name: 'wrong password',
      configure: (bmc: FakeBMC) => {
        bmc.password = 'other';
      },
      error: {
        kind: 'Permanent',
        reason: 'AuthenticationFailed',
        message: expect.stringMatching(
          /^BMC registration failed at authentication: redfish\+http BMC at .+ rejected the credentials in secret metal3\/server-01-bmc; correct the credentials in that Secret/u,
        ) as string,
      },
      event: 'BMCCredentialError',
      metric: 'metal3_credentials_no_management_access_total 1',
    },
    {
      name: 'unreachable BMC',
      configure: (bmc: FakeBMC) => {
        bmc.reachable = false;
      },
      error: { kind: 'Transient', reason: 'BMCUnreachable' },
      event: 'RegistrationError',
    },
    {
      name: 'BMC lacking a capability the scheme needs',
      configure: (bmc: FakeBMC) => {
        bmc.missing = ['VirtualMedia'];
      },
      error: {
        kind: 'Permanent',
        reason: 'Unsupported',
        message: expect.stringMatching(
          /^BMC registration failed at the capability check: .+ lacks what the redfish scheme needs: VirtualMedia; pick the scheme/u,
        ) as string,
      },
      event: 'RegistrationError',
    },
  ])('$name → $error.kind $error.reason', async ({ configure, error, event, metric }) => {
    const { h } = await setup(REDFISH, configure);
    const status = await run(h, 'Register');
    expect(status.phase).toBe(Phase.Failed);
    expect(status.error).toMatchObject(error);
    expect(status.completionTime).toBeDefined();
    expect(reasons(h)).toEqual([event]);
    if (metric !== undefined) {
      expect(await h.metrics.registry.metrics()).toContain(metric);
    }
  });

  it('a credentialsName naming another namespace fails Permanent CredentialsInvalid without reading any Secret', async () => {
    const { h } = await setup(REDFISH, (_bmc, harness) => {
      harness.kube.failures.set('getSecret', new Error('the pool must not ask for this Secret'));
    });
    const status = await run(h, 'Register', { bmc: { address: REDFISH, credentialsName: 'kube-system/bmc-secret' } });
    expect(status.error).toMatchObject({
      kind: 'Permanent',
      reason: 'CredentialsInvalid',
      message:
        "BMC CredentialsName kube-system/bmc-secret is not the name of a Secret in the host's namespace: cross-namespace Secret references are not allowed",
    });
    expect(h.kube.failures.has('getSecret')).toBe(true);
  });

  it('a rejected login fails the CheckBMC step, so the steps show where registration stopped', async () => {
    const { h } = await setup(REDFISH, (bmc) => {
      bmc.password = 'other';
    });
    const status = await run(h, 'Register');
    expect(status.steps?.at(-1)).toMatchObject({
      name: 'CheckBMC',
      state: Phase.Failed,
      message: expect.stringMatching(/^BMC registration failed at authentication/u) as string,
    });
  });

  it('reports the tried credentials version even when the BMC rejects them', async () => {
    const { h } = await setup(REDFISH, (bmc) => {
      bmc.password = 'other';
    });
    const status = await run(h, 'Register');
    expect(status.result?.credentials?.name).toBe('server-01-bmc');
  });

  it.each([
    { name: 'unknown scheme', address: 'foo://127.0.0.1/x', reason: 'UnknownBMCScheme' },
    { name: 'address outside the allowed networks', address: 'redfish+http://10.0.0.5/redfish/v1/Systems/1', reason: 'AddressNotAllowed' },
    { name: 'IPv6 address outside the allowed networks', address: 'ipmi://[fd00::5]:623', reason: 'AddressNotAllowed' },
    { name: 'host name resolving outside the allowed networks', address: 'redfish+http://bmc.example.test/redfish/v1/Systems/1', reason: 'AddressNotAllowed' },
    { name: 'cloud metadata address', address: 'redfish+http://169.254.169.254/redfish/v1/Systems/1', reason: 'AddressNotAllowed' },
  ])('$name → Permanent $reason, no driver created', async ({ address, reason }) => {
    const { h } = await setup(address);
    const status = await run(h, 'Register', { address });
    expect(status.error).toMatchObject({ kind: 'Permanent', reason });
    expect(h.fleet.connections).toEqual([]);
  });

  it('names the allowed networks in the AddressNotAllowed message', async () => {
    const { h } = await setup('redfish+http://10.0.0.5/redfish/v1/Systems/1');
    const status = await run(h, 'Register', { address: 'redfish+http://10.0.0.5/redfish/v1/Systems/1' });
    expect(status.error?.message).toBe(
      'BMC registration failed at the network guard: BMC address 10.0.0.5 is outside the networks the driver pool may contact (127.0.0.0/8, ::1/128); add the network to ALLOWED_BMC_NETWORKS if the pool may contact it',
    );
  });

  it('connects to a host name that resolves inside the allowed networks, pinned to the resolved address', async () => {
    const address = 'ipmi://localhost:6230';
    const { h } = await setup(address);
    expect((await run(h, 'Register', { address })).phase).toBe(Phase.Succeeded);
    expect(h.fleet.connections[0]?.address.host).toBe('127.0.0.1');
  });
});

describe('PowerOn, PowerOff, Reboot', () => {
  it.each([
    { name: 'PowerOn from off', action: 'PowerOn' as const, before: 'off' as const, commands: ['power:on'], poweredOn: true, message: 'powered on' },
    {
      name: 'PowerOn when already on',
      action: 'PowerOn' as const,
      before: 'on' as const,
      commands: [],
      poweredOn: true,
      message: 'already on; no command sent',
    },
    { name: 'PowerOff hard', action: 'PowerOff' as const, before: 'on' as const, commands: ['power:off'], poweredOn: false, message: 'powered off (hard)' },
    {
      name: 'PowerOff when already off',
      action: 'PowerOff' as const,
      before: 'off' as const,
      commands: [],
      poweredOn: false,
      message: 'already off; no command sent',
    },
  ])('$name', async ({ action, before, commands, poweredOn, message }) => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.power = before;
      b.settlePolls = 3;
    });
    const status = await run(h, action);
    expect(status.phase).toBe(Phase.Succeeded);
    expect(bmc.commands).toEqual(commands);
    expect(status.result?.poweredOn).toBe(poweredOn);
    expect(status.steps?.at(-1)?.message).toBe(message);
    expect(reasons(h)).toEqual([action]);
  });

  it('soft power off: only the graceful command when the OS shuts down', async () => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.power = 'on';
    });
    const status = await run(h, 'PowerOff', { power: { mode: 'soft' } });
    expect(bmc.commands).toEqual(['power:soft-off']);
    expect(status.steps?.at(-1)?.message).toBe('powered off (soft)');
  });

  it('soft power off falls back to hard after the soft timeout', async () => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.power = 'on';
      b.ignoreSoftOff = true;
    });
    const started = h.clock.now();
    const status = await run(h, 'PowerOff', { power: { mode: 'soft' } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(bmc.commands).toEqual(['power:soft-off', 'power:off']);
    expect(status.steps?.at(-1)?.message).toBe('soft power off did not finish within 180s; powered off hard');
    expect(h.clock.now() - started).toBeGreaterThanOrEqual(180_000);
  });

  it('soft power off on a BMC without it goes hard at once', async () => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.power = 'on';
      b.failures.set('setPower', new BMCError('Permanent', 'Unsupported', 'GracefulShutdown is not allowed'));
    });
    await run(h, 'PowerOff', { power: { mode: 'soft' } });
    expect(bmc.commands).toEqual(['power:off']);
  });

  it('power that does not settle fails as Transient PowerStateTimeout after the settle timeout', async () => {
    const { h } = await setup(REDFISH, (b) => {
      b.stuck = true;
    });
    const status = await run(h, 'PowerOn');
    expect(status.error).toEqual({ kind: 'Transient', reason: 'PowerStateTimeout', message: 'the host did not reach power on within 60s' });
    expect(status.steps?.at(-1)).toMatchObject({ name: 'PowerOn', state: Phase.Failed });
    expect(reasons(h)).toEqual(['PowerManagementError']);
  });

  it('a BMC that stays unreachable fails the step after four attempts and 14 s of pauses', async () => {
    const { h, bmc } = await setup(REDFISH, (b, harness) => {
      b.reachable = false;
      harness.clock.autoAdvance = true;
    });
    const started = h.clock.now();
    const status = await run(h, 'PowerOn');
    expect(status.error).toMatchObject({ kind: 'Transient', reason: 'BMCUnreachable' });
    expect(bmc.calls.filter((call) => call === 'getPower')).toHaveLength(4);
    expect(h.clock.now() - started).toBeGreaterThanOrEqual(14_000);
    expect(status.steps?.at(-1)).toMatchObject({ name: 'PowerOn', state: Phase.Failed });
  });
});

const dropped = (): BMCError => new BMCError('Transient', 'BMCUnreachable', 'socket closed by the BMC');

describe('BMC steps repeat a transient BMC failure inside the request', () => {
  it.each([
    {
      name: 'a power command dropped before the BMC acted is sent again',
      configure: (b: FakeBMC) => {
        b.failures.set('setPower', dropped());
      },
      commands: ['power:on'],
      message: 'powered on (after 1 transient BMC failure)',
    },
    {
      name: 'a command that took effect before its answer was lost is not sent again (the repeat reads the state first)',
      configure: (b: FakeBMC) => {
        const accept = b.requestPower.bind(b);
        b.requestPower = (action) => {
          accept(action);
          b.failures.set('getPower', new BMCError('Transient', 'Timeout', 'GET /redfish/v1/Systems/1 timed out after 5s'));
        };
      },
      commands: ['power:on'],
      message: 'already on; no command sent (after 1 transient BMC failure)',
    },
    {
      name: 'a 503 on the state read is repeated',
      configure: (b: FakeBMC) => {
        b.failures.set('getPower', new BMCError('Transient', 'BMCBusy', 'GET /redfish/v1/Systems/1 answered 503'));
      },
      commands: ['power:on'],
      message: 'powered on (after 1 transient BMC failure)',
    },
  ])('$name', async ({ configure, commands, message }) => {
    const { h, bmc } = await setup(REDFISH, (b, harness) => {
      configure(b);
      harness.clock.autoAdvance = true;
    });
    const status = await run(h, 'PowerOn');
    expect(status.phase).toBe(Phase.Succeeded);
    expect(bmc.commands).toEqual(commands);
    expect(status.steps).toEqual([expect.objectContaining({ name: 'PowerOn', state: Phase.Succeeded, message })]);
  });

  it.each([
    {
      name: 'a permanent BMC error',
      configure: (b: FakeBMC) => {
        b.failures.set('setPower', new BMCError('Permanent', 'BMCRequestRejected', 'POST Reset answered 400'));
      },
      reason: 'BMCRequestRejected',
    },
    {
      name: 'a host that does not follow the command (PowerStateTimeout)',
      configure: (b: FakeBMC) => {
        b.stuck = true;
      },
      reason: 'PowerStateTimeout',
    },
  ])('is not repeated: $name', async ({ configure, reason }) => {
    const { h, bmc } = await setup(REDFISH, (b, harness) => {
      configure(b);
      harness.clock.autoAdvance = true;
    });
    const status = await run(h, 'PowerOn');
    expect(status.error?.reason).toBe(reason);
    expect(bmc.calls.filter((call) => call === 'setPower')).toHaveLength(1);
  });

  it('virtual media, boot device and eject steps are repeated too; the agent steps are not', async () => {
    const { h, bmc } = await setup(VMEDIA, (b, harness) => {
      b.failures.set('insertVirtualMedia', dropped());
      b.failures.set('setBootDevice', dropped());
      harness.agent.failures.set('inventory', dropped());
      harness.clock.autoAdvance = true;
    });
    const status = await run(h, 'Inspect', { address: VMEDIA });
    expect(bmc.commandsOf('insert:')).toHaveLength(1);
    expect(status.steps?.filter((step) => step.message?.includes('transient BMC failure')).map((step) => step.name)).toEqual([
      'InsertVirtualMedia',
      'SetBootDevice',
    ]);
    expect(status.error?.reason).toBe('BMCUnreachable');
    expect(status.steps?.at(-1)).toMatchObject({ name: 'CollectInventory', state: Phase.Failed });
  });
  it('counts metal3_operation_power_change_total only for commands sent', async () => {
    const { h } = await setup();
    await run(h, 'PowerOn');
    await run(h, 'PowerOn', { sequence: 2 });
    const text = await h.metrics.registry.getSingleMetricAsString('metal3_operation_power_change_total');
    expect(text).toContain('metal3_operation_power_change_total{namespace="metal3",host="server-01",on_off="on"} 1');
  });

  it.each([
    { name: 'Reboot of a host that is on: off, then on', before: 'on' as const, commands: ['power:off', 'power:on'] },
    { name: 'Reboot of a host that is off: only on', before: 'off' as const, commands: ['power:on'] },
  ])('$name', async ({ before, commands }) => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.power = before;
    });
    const status = await run(h, 'Reboot');
    expect(bmc.commands).toEqual(commands);
    expect(stepNames(status)).toEqual(['PowerOff', 'PowerOn']);
    expect(status.result?.poweredOn).toBe(true);
  });

  it('a resumed Reboot whose off half is recorded only powers on', async () => {
    const { h, bmc } = await setup(REDFISH, (b) => {
      b.power = 'on';
    });
    const status = await run(h, 'Reboot', { status: { phase: Phase.Running, steps: [{ name: 'PowerOff', state: Phase.Succeeded }] } });
    expect(bmc.commands).toEqual([]);
    expect(stepNames(status)).toEqual(['PowerOff', 'Resume', 'PowerOn']);
  });
});

describe('Inspect', () => {
  it('fast: reads the Redfish inventory', async () => {
    const { h, bmc } = await setup();
    const status = await run(h, 'Inspect', { inspect: { mode: 'fast' } });
    expect(status.result?.hardware).toEqual(bmc.hardware);
    expect(stepNames(status)).toEqual(['ReadInventory']);
    expect(reasons(h)).toEqual(['InspectionStarted', 'InspectionComplete']);
    expect(h.agent.calls).toEqual([]);
  });

  it('fast over IPMI is Unsupported', async () => {
    const { h } = await setup(IPMI);
    const status = await run(h, 'Inspect', { address: IPMI, inspect: { mode: 'fast' } });
    expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'Unsupported' });
    expect(reasons(h)).toEqual(['InspectionStarted', 'InspectionError']);
  });

  it('agent over PXE: boot Pxe once, power on, wait, inventory, agent power off', async () => {
    const { h, bmc } = await setup(IPMI);
    const status = await run(h, 'Inspect', { address: IPMI, inspect: { mode: 'agent' } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(bmc.commands).toEqual(['boot:pxe/once', 'power:on']);
    expect(h.agent.calls).toEqual(['expect', 'waitForAgent', 'inventory', 'powerOff']);
    expect(stepNames(status)).toEqual([
      'PrepareAgent',
      'SetBootDevice',
      'PowerOffForAgent',
      'PowerOnAgent',
      'WaitForAgent',
      'CollectInventory',
      'AgentPowerOff',
      'PowerOffAfterAgent',
    ]);
    expect(status.result).toEqual({ hardware: h.agent.hardware, poweredOn: false });
    expect(bmc.power).toBe('off');
  });

  it('agent over virtual media: power off, eject, insert the agent ISO, boot Cd once, power on, eject at the end', async () => {
    const { h, bmc } = await setup(VMEDIA, (b) => {
      b.power = 'on';
    });
    const status = await run(h, 'Inspect', { address: VMEDIA, inspect: { mode: 'agent' } });
    expect(status.phase).toBe(Phase.Succeeded);
    const iso = 'http://127.0.0.1:8081/ipa.iso?ipa-api-url=http%3A%2F%2F127.0.0.1%3A6385&BOOTIF=00%3A11%3A22%3A33%3A44%3A55';
    expect(bmc.commands).toEqual(['power:off', 'eject', `insert:${iso}`, 'boot:cdrom/once', 'power:on', 'eject']);
    expect(JSON.stringify(status)).not.toContain('ipa-api-url');
  });

  it('agent boot without the agent images configured is Permanent AgentBootNotConfigured', async () => {
    const { h } = await setup(VMEDIA, () => undefined, { deployISOURL: undefined });
    const status = await run(h, 'Inspect', { address: VMEDIA, inspect: { mode: 'agent' } });
    expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'AgentBootNotConfigured' });
  });

  it('an agent that calls back from outside the allowed networks is refused', async () => {
    const { h } = await setup(IPMI, (_bmc, harness) => {
      harness.agent.callbackURL = 'http://10.1.2.3:9999';
    });
    const status = await run(h, 'Inspect', { address: IPMI, inspect: { mode: 'agent' } });
    expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'AddressNotAllowed' });
    expect(h.agent.calls).not.toContain('inventory');
  });

  it('an agent that never boots: the wait is cancelled with the request, status left Running', async () => {
    const { h, bmc } = await setup(IPMI, (b) => {
      b.onPowerOn = undefined;
    });
    h.kube.put('hostoperations', operation('Inspect', 1, { bmc: { address: IPMI, credentialsName: 'server-01-bmc' }, inspect: { mode: 'agent' } }));
    for (let i = 0; i < 20; i += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(h.pool.operations.snapshot().running).toEqual(['server-01-inspect-1']);
    h.kube.remove('hostoperations', NAMESPACE, 'server-01-inspect-1');
    await h.settle();
    expect(h.pool.operations.snapshot().running).toEqual([]);
    expect(bmc.power).toBe('on');
  });
});

describe('Prepare', () => {
  it('without RAID: succeeds with honest notes', async () => {
    const { h } = await setup();
    const status = await run(h, 'Prepare', { prepare: { rootDeviceHints: { deviceName: '/dev/sda' } } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(status.steps?.map((step) => step.message)).toEqual([
      'no RAID volumes requested; nothing to configure',
      'root device hints are passed to the agent when the image is written',
    ]);
  });

  it.each([
    { name: 'hardware RAID', raid: { hardwareRAIDVolumes: [{ level: '1' as const }] } },
    { name: 'software RAID', raid: { softwareRAIDVolumes: [{ level: '1' as const }] } },
  ])('$name is Permanent Unsupported', async ({ raid }) => {
    const { h } = await setup();
    const status = await run(h, 'Prepare', { prepare: { raid } });
    expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'Unsupported' });
    expect(reasons(h)).toEqual(['PreparationError']);
  });
});

const IMAGE = {
  url: 'http://127.0.0.1:8081/images/ubuntu.qcow2',
  checksum: 'http://127.0.0.1:8081/images/ubuntu.qcow2.sha256sum',
  checksumType: 'auto' as const,
  format: 'qcow2' as const,
};

describe('Provision', () => {
  it('live-iso over virtual media: insert, boot Cd persistent, power on, no agent', async () => {
    const { h, bmc } = await setup(VMEDIA);
    const url = 'http://127.0.0.1:8081/live.iso';
    const status = await run(h, 'Provision', { address: VMEDIA, provision: { image: { url, format: 'live-iso' } } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(bmc.commands).toEqual(['eject', `insert:${url}`, 'boot:cdrom/persistent', 'power:on']);
    expect(h.agent.calls).toEqual([]);
    expect(reasons(h)).toEqual(['ProvisioningStarted', 'ProvisioningComplete']);
    expect(h.kube.events[0]?.message).toBe(`Image provisioning started for ${url}`);
  });

  it('live-iso already inserted is not inserted again', async () => {
    const url = 'http://127.0.0.1:8081/live.iso';
    const { h, bmc } = await setup(VMEDIA, (b) => {
      b.media = { inserted: true, image: url };
    });
    await run(h, 'Provision', { address: VMEDIA, provision: { image: { url, format: 'live-iso' } } });
    expect(bmc.commands).toEqual(['boot:cdrom/persistent', 'power:on']);
  });

  it('live-iso over UEFI HTTP: boot UefiHttp persistent with the ISO URL', async () => {
    const { h, bmc } = await setup(UEFIHTTP);
    await run(h, 'Provision', { address: UEFIHTTP, provision: { image: { url: 'http://127.0.0.1:8081/live.iso', format: 'live-iso' } } });
    expect(bmc.commands).toEqual(['boot:uefi-http/persistent', 'power:on']);
    expect(bmc.boot?.httpBootURI).toBe('http://127.0.0.1:8081/live.iso');
  });

  it('live-iso over IPMI is Permanent Unsupported', async () => {
    const { h } = await setup(IPMI);
    const status = await run(h, 'Provision', { address: IPMI, provision: { image: { url: 'http://127.0.0.1:8081/live.iso', format: 'live-iso' } } });
    expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'Unsupported' });
  });

  it('disk image through the agent, with the config drive from Secrets (key or "value")', async () => {
    const { h, bmc } = await setup(IPMI, (_bmc, harness) => {
      harness.kube.put('secrets', dataSecret('user-data', { userData: '#cloud-config\n' }));
      harness.kube.put('secrets', dataSecret('network-data', { value: 'links: []' }));
    });
    const provision = {
      image: IMAGE,
      userData: { name: 'user-data' },
      networkData: { name: 'network-data', namespace: NAMESPACE },
      rootDeviceHints: { deviceName: '/dev/sda' },
    };
    const status = await run(h, 'Provision', { address: IPMI, provision });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(h.agent.images).toEqual([
      { image: { ...IMAGE, rootDeviceHints: { deviceName: '/dev/sda' } }, configDrive: { userData: '#cloud-config\n', networkData: 'links: []' } },
    ]);
    expect(bmc.commands).toEqual(['boot:pxe/once', 'power:on', 'boot:disk/persistent', 'power:on']);
    expect(stepNames(status)).toEqual([
      'ReadConfigDrive',
      'PrepareAgent',
      'SetBootDevice',
      'PowerOffForAgent',
      'PowerOnAgent',
      'WaitForAgent',
      'WriteImage',
      'AgentPowerOff',
      'PowerOffAfterAgent',
      'SetBootDevice',
      'PowerOn',
    ]);
    expect(JSON.stringify(status)).not.toContain('cloud-config');
  });

  it('a resumed provision whose image was written does not write it again', async () => {
    const { h, bmc } = await setup(IPMI, (b) => {
      b.power = 'on';
    });
    const status = await run(h, 'Provision', {
      address: IPMI,
      provision: { image: IMAGE },
      status: { phase: Phase.Running, steps: [{ name: 'WriteImage', state: Phase.Succeeded }] },
    });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(h.agent.calls).toEqual([]);
    expect(bmc.commands).toEqual(['power:off', 'boot:disk/persistent', 'power:on']);
  });

  it.each([
    { name: 'custom deploy', provision: { customDeploy: { method: 'install_coreos' } }, reason: 'Unsupported' },
    { name: 'no image', provision: {}, reason: 'InvalidImage' },
    {
      name: 'image outside the allowed networks',
      provision: { image: { url: 'http://10.9.9.9/image.qcow2', checksum: 'x'.repeat(64) } },
      reason: 'AddressNotAllowed',
    },
    { name: 'user data Secret missing', provision: { image: IMAGE, userData: { name: 'nowhere' } }, reason: 'SecretNotFound' },
  ])('$name → Permanent $reason', async ({ provision, reason }) => {
    const { h } = await setup(IPMI);
    const status = await run(h, 'Provision', { address: IPMI, provision });
    expect(status.error).toMatchObject({ kind: 'Permanent', reason });
    expect(reasons(h)).toEqual(['ProvisioningStarted', 'ProvisioningError']);
  });

  it.each([
    { name: 'userData', provision: { image: IMAGE, userData: { name: 'foreign', namespace: 'kube-system' } } },
    { name: 'networkData', provision: { image: IMAGE, networkData: { name: 'foreign', namespace: 'kube-system' } } },
    { name: 'metaData', provision: { image: IMAGE, metaData: { name: 'foreign', namespace: 'kube-system' } } },
  ])('$name in another namespace: Permanent CrossNamespaceSecret, the Secret is not used', async ({ name, provision }) => {
    const { h } = await setup(IPMI, (_bmc, harness) => {
      harness.kube.put('secrets', dataSecret('foreign', { [name]: 'stolen' }, 'kube-system'));
    });
    const status = await run(h, 'Provision', { address: IPMI, provision });
    expect(status.error).toMatchObject({ kind: 'Permanent', reason: 'CrossNamespaceSecret' });
    expect(status.error?.message).toContain(`${name} names a Secret in namespace kube-system, not the host's namespace ${NAMESPACE}`);
    expect(h.agent.images).toEqual([]);
    expect(JSON.stringify(status)).not.toContain('stolen');
  });

  it('an agent failure carrying its own classification is kept', async () => {
    const { h } = await setup(IPMI, (_bmc, harness) => {
      harness.agent.failures.set('writeImage', Object.assign(new Error('image checksum mismatch'), { kind: 'Permanent', reason: 'ImageChecksumMismatch' }));
    });
    const status = await run(h, 'Provision', { address: IPMI, provision: { image: IMAGE } });
    expect(status.error).toEqual({ kind: 'Permanent', reason: 'ImageChecksumMismatch', message: 'image checksum mismatch' });
  });
});

describe('Deprovision', () => {
  it('metadata cleaning boots the agent and erases', async () => {
    const { h, bmc } = await setup(IPMI, (b) => {
      b.power = 'on';
    });
    const status = await run(h, 'Deprovision', { address: IPMI, deprovision: { automatedCleaningMode: 'metadata' } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(h.agent.calls).toEqual(['expect', 'waitForAgent', 'eraseDevicesMetadata', 'powerOff']);
    expect(bmc.commands).toEqual(['boot:pxe/once', 'power:off', 'power:on']);
    expect(status.result?.poweredOn).toBe(false);
    expect(reasons(h)).toEqual(['DeprovisioningStarted', 'CleaningDisks', 'DeprovisioningComplete']);
    // The default cleaning erases disks: a Warning on the host says so as it starts.
    expect(h.kube.events[1]).toMatchObject({
      type: 'Warning',
      message: expect.stringMatching(/^automatedCleaningMode is metadata: erasing the partition tables/u) as string,
    });
  });

  it('cleaning disabled: eject the live ISO and power off, no agent', async () => {
    const { h, bmc } = await setup(VMEDIA, (b) => {
      b.power = 'on';
      b.media = { inserted: true, image: 'http://127.0.0.1:8081/live.iso' };
    });
    const status = await run(h, 'Deprovision', { address: VMEDIA, deprovision: { automatedCleaningMode: 'disabled' } });
    expect(bmc.commands).toEqual(['eject', 'power:off']);
    expect(h.agent.calls).toEqual([]);
    expect(stepNames(status)).toEqual(['Clean', 'EjectVirtualMedia', 'PowerOff']);
    expect(reasons(h)).toEqual(['DeprovisioningStarted', 'DeprovisioningComplete']);
  });

  it('a resumed deprovision whose disks were erased does not erase again', async () => {
    const { h } = await setup(IPMI);
    await run(h, 'Deprovision', {
      address: IPMI,
      deprovision: { automatedCleaningMode: 'metadata' },
      status: { phase: Phase.Running, steps: [{ name: 'EraseDevicesMetadata', state: Phase.Succeeded }] },
    });
    expect(h.agent.calls).toEqual([]);
  });
});

describe('Detach and Delete', () => {
  it('Detach forgets the agent and touches nothing', async () => {
    const { h, bmc } = await setup();
    const status = await run(h, 'Detach');
    expect(status.phase).toBe(Phase.Succeeded);
    expect(h.agent.forgotten).toEqual([`${NAMESPACE}/server-01`]);
    expect(bmc.calls).toEqual([]);
  });

  it('Delete removes the Secret finalizer and forgets the host', async () => {
    const { h } = await setup();
    await run(h, 'Register');
    const status = await run(h, 'Delete', { sequence: 2 });
    expect(status.phase).toBe(Phase.Succeeded);
    const secret = h.kube.get('secrets', NAMESPACE, 'server-01-bmc') as Secret;
    expect(secret.metadata.finalizers).toEqual([]);
    expect(secret.metadata.labels).toEqual({ 'environment.metal3.io': 'baremetal' });
    expect(status.steps?.[0]?.message).toBe('finalizer removed from secret metal3/server-01-bmc');
  });

  it('Delete succeeds when the Secret is already gone', async () => {
    const { h } = await setup(REDFISH, (_bmc, harness) => {
      harness.kube.remove('secrets', NAMESPACE, 'server-01-bmc');
    });
    const status = await run(h, 'Delete');
    expect(status.phase).toBe(Phase.Succeeded);
    expect(status.steps?.[0]?.message).toBe('no finalizer to remove');
  });

  it('Delete of a host whose credentialsName names another namespace succeeds without asking for any Secret', async () => {
    const { h } = await setup(REDFISH, (_bmc, harness) => {
      harness.kube.failures.set('getSecret', new Error('the pool must not ask for this Secret'));
    });
    const status = await run(h, 'Delete', { bmc: { address: REDFISH, credentialsName: 'kube-system/bmc-secret' } });
    expect(status.phase).toBe(Phase.Succeeded);
    expect(status.steps?.[0]?.message).toBe('no finalizer to remove');
    expect(h.kube.failures.has('getSecret')).toBe(true);
  });
});
