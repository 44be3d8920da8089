// Canaries: a BMC password, an agent token and user data that must never appear in any log
// line (at debug level), Event, request or monitor status, or metric, even when a driver puts
// the password into its error message.
import { describe, expect, it } from 'vitest';
import { BMCError } from '../../drivers/bmc/types.js';
import { createLogger } from '../../drivers/pool/logging.js';
import { AGENT_TOKEN, createHarness, credentialsSecret, dataSecret, LogCapture, monitor, operation, NAMESPACE } from '../support/fake-driver.js';
import type { Harness } from '../support/fake-driver.js';

const CANARY_PASSWORD = 'canary-P4ssw0rd-7f3a91';
const CANARY_USER_DATA = '#cloud-config canary-user-data-5be2';
const IPMI = 'ipmi://127.0.0.1:6230';

async function everything(h: Harness): Promise<string> {
  return [
    h.logs.text(),
    JSON.stringify(h.kube.events),
    JSON.stringify(h.kube.statusPatches),
    JSON.stringify(h.kube.get('bmcmonitors', NAMESPACE, 'server-01')),
    await h.metrics.registry.metrics(),
  ].join('\n');
}

async function scenario(): Promise<Harness> {
  const h = createHarness();
  const bmc = h.fleet.add(IPMI, (b) => {
    b.password = CANARY_PASSWORD;
  });
  h.agent.link({ namespace: NAMESPACE, name: 'server-01' }, bmc);
  h.agent.onAgentPowerOff = () => {
    bmc.setNow('off');
  };
  h.kube.put('secrets', credentialsSecret('server-01-bmc', 'admin', CANARY_PASSWORD));
  h.kube.put('secrets', dataSecret('user-data', { userData: CANARY_USER_DATA }));
  h.kube.put('bmcmonitors', monitor('server-01', { address: IPMI }));
  await h.pool.start();
  const spec = { bmc: { address: IPMI, credentialsName: 'server-01-bmc' } };
  h.kube.put('hostoperations', operation('Register', 1, spec));
  await h.settle();
  h.kube.put(
    'hostoperations',
    operation('Provision', 2, {
      ...spec,
      provision: { image: { url: 'http://127.0.0.1:8081/i.qcow2', checksum: 'a'.repeat(64) }, userData: { name: 'user-data' } },
    }),
  );
  await h.settle();
  // A driver that echoes the password in its error (the worst case), for a request and the monitor.
  bmc.failures.set('getPower', new BMCError('Transient', 'BMCUnreachable', `ipmitool -P ${CANARY_PASSWORD} failed`));
  h.kube.put('hostoperations', operation('PowerOff', 3, spec));
  await h.settle();
  bmc.failures.set('getPower', new BMCError('Transient', 'BMCUnreachable', `session for admin:${CANARY_PASSWORD} refused`));
  h.clock.advance(120_000);
  await h.settle();
  return h;
}

describe('canaries', () => {
  it('the scenario really exercised the secrets', async () => {
    const h = await scenario();
    expect(h.fleet.connections.some((connection) => connection.credentials.password === CANARY_PASSWORD)).toBe(true);
    expect(h.agent.images[0]?.configDrive?.userData).toBe(CANARY_USER_DATA);
    expect(h.kube.statusPatches.some((patch) => JSON.stringify(patch).includes('[REDACTED]'))).toBe(true);
  });

  it.each([
    { name: 'BMC password', canary: CANARY_PASSWORD },
    { name: 'agent token', canary: AGENT_TOKEN },
    { name: 'user data', canary: 'canary-user-data-5be2' },
  ])('the $name appears in no log line, event, status or metric', async ({ canary }) => {
    const h = await scenario();
    expect(await everything(h)).not.toContain(canary);
  });
});

describe('log redaction (second line of defence)', () => {
  it.each([
    { name: 'password at the top level', fields: { password: CANARY_PASSWORD } },
    { name: 'nested password', fields: { credentials: { password: CANARY_PASSWORD } } },
    { name: 'agent token', fields: { agent: { token: AGENT_TOKEN } } },
    { name: 'user data', fields: { configDrive: { userData: CANARY_USER_DATA } } },
    { name: 'a Secret object', fields: { secret: { data: { password: CANARY_PASSWORD } } } },
  ])('$name is censored', ({ fields }) => {
    const capture = new LogCapture();
    createLogger({ level: 'debug', destination: capture }).info(fields, 'line');
    expect(capture.text()).toContain('[REDACTED]');
    expect(capture.text()).not.toContain(CANARY_PASSWORD);
    expect(capture.text()).not.toContain(AGENT_TOKEN);
    expect(capture.text()).not.toContain('canary-user-data');
  });
});
