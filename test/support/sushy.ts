// sushy-tools (PyPI, the Redfish emulator Metal3 uses) as a real peer for the Redfish driver:
// installed by scripts/setup-system-deps.sh into <cache>/venv. This writes a config file that
// binds 127.0.0.1 on a free port, uses the fake systems driver, basic auth from a bcrypt
// htpasswd file and (by default) HTTPS with a throwaway certificate; starts sushy-emulator by
// PID and stops it by PID. Passwords reach Python only on stdin and in 0600 files.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { selfSignedCertificate } from '../../emulators/redfish/tls.js';
import { CACHE_DIR, freePort, startProcess, stopProcess, waitFor } from '../../devenv/processes.js';

const SUSHY_VENV = join(CACHE_DIR, 'venv');
const SUSHY_EMULATOR = join(SUSHY_VENV, 'bin', 'sushy-emulator');

/** sushy-tools as a peer for missingPeer (test/support/peers.ts). */
export const SUSHY_PEER = {
  name: 'sushy-tools',
  get present(): boolean {
    return existsSync(SUSHY_EMULATOR);
  },
  install: 'scripts/setup-system-deps.sh',
};

export interface SushySystem {
  uuid: string;
  name: string;
  powerState: 'On' | 'Off';
  nics: { mac: string; ip: string }[];
}

export interface SushyOptions {
  systems: SushySystem[];
  username: string;
  password: string;
  /** HTTPS with a throwaway certificate (default true). */
  tls?: boolean;
}

export interface RunningSushy {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** The certificate to trust (HTTPS only). */
  readonly ca: string | undefined;
  readonly log: string;
  /** A BMC address for a host spec. */
  address(uuid: string, scheme?: string): string;
  stop(): Promise<void>;
}

/** A bcrypt htpasswd line, computed by the venv's bcrypt with the password on stdin. */
async function htpasswdLine(username: string, password: string): Promise<string> {
  const script = 'import sys, bcrypt; print(bcrypt.hashpw(sys.stdin.buffer.read(), bcrypt.gensalt(rounds=4)).decode())';
  const hash = await new Promise<string>((resolve, reject) => {
    const child = execFile(join(SUSHY_VENV, 'bin', 'python'), ['-c', script], { timeout: 30_000 }, (error, stdout) => {
      if (error) {
        reject(new Error(`bcrypt failed: ${error.message}`));
        return;
      }
      resolve(stdout.trim());
    });
    child.stdin?.end(password);
  });
  return `${username}:${hash}\n`;
}

const py = (value: string): string => JSON.stringify(value);

function pythonSystems(systems: SushySystem[]): string {
  const entries = systems.map((system) => {
    const nics = system.nics.map((nic) => `{'mac': ${py(nic.mac)}, 'ip': ${py(nic.ip)}}`).join(', ');
    return `{'uuid': ${py(system.uuid)}, 'name': ${py(system.name)}, 'power_state': ${py(system.powerState)}, 'external_notifier': False, 'nics': [${nics}]}`;
  });
  return `[${entries.join(',\n  ')}]`;
}

interface ConfigInput {
  dir: string;
  port: number;
  systems: SushySystem[];
  tls: boolean;
}

function configText({ dir, port, systems, tls }: ConfigInput): string {
  return [
    `SUSHY_EMULATOR_LISTEN_IP = '127.0.0.1'`,
    `SUSHY_EMULATOR_LISTEN_PORT = ${port}`,
    `SUSHY_EMULATOR_AUTH_FILE = ${py(join(dir, 'htpasswd'))}`,
    `SUSHY_EMULATOR_FAKE_DRIVER = True`,
    `SUSHY_EMULATOR_STATE_DIR = ${py(join(dir, 'state'))}`,
    `SUSHY_EMULATOR_VMEDIA_VERIFY_SSL = False`,
    `EXTERNAL_NOTIFICATION_URL = 'http://127.0.0.1:9'`,
    ...(tls ? [`SUSHY_EMULATOR_SSL_CERT = ${py(join(dir, 'cert.pem'))}`, `SUSHY_EMULATOR_SSL_KEY = ${py(join(dir, 'key.pem'))}`] : []),
    `SUSHY_EMULATOR_FAKE_SYSTEMS = ${pythonSystems(systems)}`,
    '',
  ].join('\n');
}

async function ready(url: string, ca: string | undefined): Promise<boolean> {
  const dispatcher = new Agent({ connect: ca === undefined ? {} : { ca } });
  try {
    const response = await request(`${url}/redfish/v1/`, { dispatcher, headersTimeout: 2_000, bodyTimeout: 2_000 });
    await response.body.dump();
    return response.statusCode === 200;
  } finally {
    await dispatcher.close();
  }
}

export async function startSushy(options: SushyOptions): Promise<RunningSushy> {
  const dir = await mkdtemp(join(tmpdir(), 'ironhook-sushy-'));
  const tls = options.tls !== false;
  const port = await freePort();
  const certificate = tls ? await selfSignedCertificate() : undefined;
  if (certificate !== undefined) {
    await writeFile(join(dir, 'cert.pem'), certificate.cert);
    await writeFile(join(dir, 'key.pem'), certificate.key, { mode: 0o600 });
  }
  await writeFile(join(dir, 'htpasswd'), await htpasswdLine(options.username, options.password), { mode: 0o600 });
  const config = join(dir, 'emulator.conf');
  await writeFile(config, configText({ dir, port, systems: options.systems, tls }), { mode: 0o600 });
  const started = startProcess({
    name: 'sushy-emulator',
    command: SUSHY_EMULATOR,
    args: ['--config', config],
    logDir: dir,
    env: { SUSHY_EMULATOR_FAKE_DRIVER: 'True', SUSHY_EMULATOR_CONFIG: config },
  });
  const protocol = tls ? 'https' : 'http';
  const url = `${protocol}://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    await stopProcess(started.pid, 5_000);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitFor('sushy-emulator', async () => ready(url, certificate?.cert), 30_000, 200);
  } catch (error) {
    await stopProcess(started.pid, 5_000);
    throw error;
  }
  return {
    url,
    port,
    pid: started.pid,
    ca: certificate?.cert,
    log: started.log,
    address: (uuid, scheme = 'redfish') => `${scheme}+${protocol}://127.0.0.1:${port}/redfish/v1/Systems/${uuid}`,
    stop,
  };
}
