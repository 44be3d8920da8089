// The emulator's chaos-soak features: seeded random faults (one seed, one sequence; every kind
// counted), a BMC reboot that cuts connections and keeps the machine's state, and a password
// change that locks out the old password.
import { describe, expect, it } from 'vitest';
import { RandomFaults } from '../../emulators/redfish/faults.js';
import { startRedfishEmulator } from '../../emulators/redfish/index.js';

const RATES = { dropRate: 0.05, delayRate: 0.05, delayMs: [10, 20] as const, errorRate: 0.05, timeoutRate: 0.05, timeoutMs: 50 };

function kinds(seed: number, count: number): string[] {
  const faults = new RandomFaults({ seed, ...RATES });
  return Array.from({ length: count }, () => {
    const decision = faults.decide();
    if (decision === undefined) return 'none';
    return decision.kind === 'close' ? (decision.delayMs === undefined ? 'drop' : 'timeout') : decision.kind;
  });
}

describe('random faults', () => {
  it('replay the same sequence for one seed and a different one for another', () => {
    expect(kinds(7, 200)).toEqual(kinds(7, 200));
    expect(kinds(7, 200)).not.toEqual(kinds(8, 200));
  });

  it('inject each kind near its rate and count what they injected', () => {
    const faults = new RandomFaults({ seed: 3, ...RATES });
    for (let index = 0; index < 4000; index += 1) faults.decide();
    const { dropped, delayed, serverErrors, timedOut } = faults.injected;
    for (const count of [dropped, delayed, serverErrors, timedOut]) {
      expect(count).toBeGreaterThan(120);
      expect(count).toBeLessThan(280);
    }
    expect(kinds(3, 4000).filter((kind) => kind === 'pass').length).toBe(delayed);
  });
});

async function status(url: string, password: string): Promise<number | 'refused'> {
  try {
    const response = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` } });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 'refused';
  }
}

describe('a BMC reboot and a password change', () => {
  it('answer on the same port with the same machine state, and only to the new password', async () => {
    const emulator = await startRedfishEmulator({ http: true, systems: [{ id: 'h0', username: 'admin', password: 'old-pw' }] });
    try {
      const url = `${emulator.url}/redfish/v1/Systems/h0`;
      const response = await fetch(`${url}/Actions/ComputerSystem.Reset`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('admin:old-pw').toString('base64')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ResetType: 'On' }),
      });
      expect(response.status).toBeLessThan(300);
      const down = emulator.restart(300);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await status(url, 'old-pw')).toBe('refused');
      await down;
      expect(await status(url, 'old-pw')).toBe(200);
      expect(emulator.system('h0').powerState).toBe('On');
      expect(emulator.system('h0').actions.map((action) => action.detail)).toEqual(['On']);
      emulator.system('h0').setPassword('new-pw');
      expect(await status(url, 'old-pw')).toBe(401);
      expect(await status(url, 'new-pw')).toBe(200);
    } finally {
      await emulator.stop();
    }
  });
});

describe('one BMC endpoint per system (portPerSystem)', () => {
  it('gives each system a port of its own that its address names, cut and restored together by a reboot', async () => {
    const systems = ['h0', 'h1'].map((id) => ({ id, username: 'admin', password: 'pw' }));
    const emulator = await startRedfishEmulator({ http: true, systems, portPerSystem: true });
    try {
      const urls = ['h0', 'h1'].map((id) => emulator.address(id).replace(/^redfish\+/u, ''));
      const ports = urls.map((url) => new URL(url).port);
      expect(new Set([...ports, String(emulator.port)]).size).toBe(3);
      expect(await Promise.all(urls.map(async (url) => status(url, 'pw')))).toEqual([200, 200]);
      await emulator.restart(0);
      expect(await Promise.all(urls.map(async (url) => status(url, 'pw')))).toEqual([200, 200]);
      expect(await status(`${emulator.url}/redfish/v1/Systems/h1`, 'pw')).toBe(200);
    } finally {
      await emulator.stop();
    }
  });
});

describe('a password change on one system of a shared session', () => {
  it('takes that system from the session and ends it only when it was the last one', async () => {
    const systems = ['h0', 'h1'].map((id) => ({ id, username: 'admin', password: 'pw' }));
    const emulator = await startRedfishEmulator({ http: true, systems });
    try {
      const login = await fetch(`${emulator.url}/redfish/v1/SessionService/Sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ UserName: 'admin', Password: 'pw' }),
      });
      await login.arrayBuffer();
      const token = login.headers.get('x-auth-token') ?? '';
      const get = async (id: string): Promise<number> => {
        const response = await fetch(`${emulator.url}/redfish/v1/Systems/${id}`, { headers: { 'x-auth-token': token } });
        await response.arrayBuffer();
        return response.status;
      };
      emulator.system('h0').setPassword('pw');
      expect([await get('h0'), await get('h1')]).toEqual([200, 200]);
      emulator.system('h1').setPassword('new-pw');
      expect([await get('h0'), await get('h1')]).toEqual([200, 401]);
      expect(emulator.sessionCount()).toBe(1);
      emulator.system('h0').setPassword('new-pw');
      expect(emulator.sessionCount()).toBe(0);
    } finally {
      await emulator.stop();
    }
  });
});
