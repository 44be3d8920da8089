// Run one simulated IPMI BMC by hand (docs/ipmi.md, "Running the simulator"):
//   BMC_USERNAME=admin BMC_PASSWORD=… npx tsx emulators/ipmi/main.ts --port 9623
//   npx tsx emulators/ipmi/main.ts --port 9623 --credentials-file creds.json
// Credentials come from a JSON file {"username": …, "password": …} or the environment, never
// from flags (argv is visible to every user). Prints one JSON line with the address, then one
// JSON line per chassis event; stops ipmi_sim on SIGINT/SIGTERM.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { IPMISimulator } from './simulator.js';
import type { IPMISimulatorOptions } from './simulator.js';

const USAGE = `usage: npx tsx emulators/ipmi/main.ts [--port N] [--name NAME] [--dir DIR] [--power on|off] [--no-fru] [--credentials-file FILE]
credentials: --credentials-file FILE (JSON {"username": "...", "password": "..."}) or BMC_USERNAME and BMC_PASSWORD in the environment`;

interface Credentials {
  username: string;
  password: string;
}

function isCredentials(value: unknown): value is Credentials {
  const record = value as Partial<Record<keyof Credentials, unknown>> | null;
  return typeof record === 'object' && record !== null && typeof record.username === 'string' && typeof record.password === 'string';
}

async function credentials(file: string | undefined): Promise<Credentials> {
  if (file !== undefined) {
    const parsed: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (!isCredentials(parsed)) {
      throw new Error(`${file} must hold a JSON object with string "username" and "password"`);
    }
    return parsed;
  }
  const { BMC_USERNAME: username, BMC_PASSWORD: password } = process.env;
  if (username === undefined || password === undefined) {
    throw new Error('no credentials: set BMC_USERNAME and BMC_PASSWORD, or pass --credentials-file');
  }
  return { username, password };
}

function options(): ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'] {
  try {
    return parseArgs({ options: OPTIONS, allowPositionals: false }).values;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
}

const OPTIONS = {
  port: { type: 'string' },
  name: { type: 'string' },
  dir: { type: 'string' },
  power: { type: 'string' },
  'no-fru': { type: 'boolean' },
  'credentials-file': { type: 'string' },
  help: { type: 'boolean' },
} as const;

function portOf(text: string | undefined): number {
  const port = text === undefined ? 0 : Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be a port number, got ${text ?? ''}`);
  }
  return port;
}

async function simulatorOptions(values: ReturnType<typeof options>): Promise<IPMISimulatorOptions> {
  return {
    credentials: await credentials(values['credentials-file']),
    port: portOf(values.port),
    ...(values.name === undefined ? {} : { name: values.name }),
    ...(values.dir === undefined ? {} : { dir: values.dir }),
    initialPower: values.power === 'on' ? 'on' : 'off',
    ...(values['no-fru'] === true ? { fru: false as const } : {}),
  };
}

async function main(): Promise<void> {
  const values = options();
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const simulator = await IPMISimulator.start(await simulatorOptions(values));
  process.stdout.write(`${JSON.stringify({ address: simulator.address, port: simulator.port, pid: simulator.pid, dir: simulator.files.dir })}\n`);
  simulator.onStateChange((event, state) => {
    process.stdout.write(`${JSON.stringify({ event, state })}\n`);
  });
  const shutdown = (): void => {
    void simulator.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  setInterval(() => undefined, 1 << 30);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
