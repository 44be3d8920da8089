// The ipmi_sim launcher itself (emulators/ipmi): the chassis-control script's contract,
// two simulators side by side, and the hand-run CLI (credentials from the environment or a
// file, never flags; stopped by SIGTERM to its PID, taking ipmi_sim with it).
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { CHASSIS_SCRIPT } from '../../emulators/ipmi/files.js';
import { IPMISimulator } from '../../emulators/ipmi/simulator.js';
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { createIPMIDriver } from '../../drivers/ipmi/driver.js';
import { GateRegistry } from '../../drivers/ipmi/gate.js';

const CREDENTIALS = { username: 'admin', password: 'Launch-Pw-88' };
const started: IPMISimulator[] = [];

afterAll(async () => {
  await Promise.all(started.map(async (sim) => sim.stop()));
});

function driverFor(address: string) {
  const parsed = parseBMCAddress(address);
  if (parsed.kind !== 'parsed') {
    throw new Error('bad address');
  }
  return createIPMIDriver(
    { address: parsed.bmc, credentials: CREDENTIALS, disableCertificateVerification: false, timeoutMs: 30_000 },
    { minCommandIntervalMs: 0, retries: 1, retryIntervalSeconds: 1, gates: new GateRegistry() },
  );
}

async function sh(script: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile('/bin/sh', [script, ...args], (error, stdout) => {
      resolve({ code: error === null ? 0 : Number(error.code ?? 1), stdout });
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('chassis-control script contract', () => {
  it('get, set, the event log and the fail flag', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ironhook-chassis-'));
    try {
      const script = join(dir, 'chassis.sh');
      await writeFile(script, CHASSIS_SCRIPT, { mode: 0o700 });
      expect(await sh(script, [dir, 'get', 'power', 'boot'])).toEqual({ code: 0, stdout: 'power:0\nboot:none\n' });
      expect((await sh(script, [dir, 'set', 'power', '1', 'boot', 'pxe'])).code).toBe(0);
      expect(await sh(script, [dir, 'get', 'power', 'boot'])).toEqual({ code: 0, stdout: 'power:1\nboot:pxe\n' });
      expect((await sh(script, [dir, 'set', 'shutdown', '1'])).code).toBe(0);
      expect((await readFile(join(dir, 'power'), 'utf8')).trim()).toBe('0');
      expect((await sh(script, [dir, 'check'])).code).toBe(1);
      await writeFile(join(dir, 'fail'), '');
      expect((await sh(script, [dir, 'get', 'power'])).code).toBe(1);
      const log = await readFile(join(dir, 'events.log'), 'utf8');
      expect(
        log
          .split('\n')
          .filter(Boolean)
          .map((line) => line.split(' ').slice(1).join(' ')),
      ).toEqual(['set power 1', 'set boot pxe', 'set shutdown 1', 'fail get power']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('two simulators at once', () => {
  it('separate ports, separate hosts, 0700 directories and a 0600 lan.conf', async () => {
    const a = await IPMISimulator.start({ credentials: CREDENTIALS });
    started.push(a);
    const b = await IPMISimulator.start({ credentials: CREDENTIALS, initialPower: 'on', fru: false });
    started.push(b);
    expect(a.port).not.toBe(b.port);
    await driverFor(a.address).setBootDevice({ device: 'cdrom', persistent: false, mode: 'legacy' });
    expect(await a.state()).toEqual({ power: 'off', bootDevice: 'cdrom' });
    expect(await b.state()).toEqual({ power: 'on', bootDevice: 'none' });
    expect(await driverFor(b.address).getPower()).toBe('on');
    expect(await driverFor(b.address).inventory()).toEqual({ systemVendor: { manufacturer: 'MontaVista Software, Inc.' } });
    expect((await stat(a.files.dir)).mode & 0o777).toBe(0o700);
    expect((await stat(a.files.lanConf)).mode & 0o777).toBe(0o600);
  });

  it('stop() ends ipmi_sim and removes the directory it created', async () => {
    const sim = await IPMISimulator.start({ credentials: CREDENTIALS });
    const pid = sim.pid!;
    await sim.stop();
    expect(alive(pid)).toBe(false);
    await expect(stat(sim.files.dir)).rejects.toThrow();
  });
});

describe('the CLI (npx tsx emulators/ipmi/main.ts)', () => {
  const main = join(process.cwd(), 'emulators/ipmi/main.ts');

  function run(args: string[], env: Record<string, string>) {
    return spawn(process.execPath, ['--import', 'tsx', main, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  it('credentials from the environment: prints the address, serves, stops ipmi_sim on SIGTERM', async () => {
    const child = run([], { BMC_USERNAME: CREDENTIALS.username, BMC_PASSWORD: CREDENTIALS.password });
    const lines = createInterface({ input: child.stdout });
    const first = await new Promise<string>((resolve) => lines.once('line', resolve));
    const info = JSON.parse(first) as { address: string; pid: number; dir: string };
    expect(info.address).toMatch(/^ipmi:\/\/127\.0\.0\.1:\d+$/);
    await driverFor(info.address).setPower('on');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(alive(info.pid)).toBe(false);
    await expect(stat(info.dir)).rejects.toThrow();
  });

  it('credentials from a file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ironhook-creds-'));
    const file = join(dir, 'creds.json');
    await writeFile(file, JSON.stringify(CREDENTIALS), { mode: 0o600 });
    const child = run(['--credentials-file', file], {});
    const first = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve));
    const info = JSON.parse(first) as { address: string; pid: number };
    expect(await driverFor(info.address).getPower()).toBe('off');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(alive(info.pid)).toBe(false);
    await rm(dir, { recursive: true, force: true });
  });

  const refused = [
    { name: 'a --password flag', args: ['--password', 'x'], env: {}, message: /Unknown option '--password'/ },
    { name: 'no credentials at all', args: [], env: {}, message: /no credentials/ },
  ];
  it.each(refused)('refuses $name', async ({ args, env, message }) => {
    const child = run(args, env);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
  });
});
