// The machine a real ironic-python-agent runs on in tests: a sparse file as a loop-device disk,
// a network namespace whose veth NICs carry the emulated host's MACs, and socat relays over
// Unix sockets so that IPA's 127.0.0.1 (inside the namespace) reaches the pool's 127.0.0.1
// ports and the pool reaches IPA's command port: no address outside loopback is ever used.
// The Python side (emulators/ipa/sandbox/) narrows what IPA sees and guards every write.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, openSync, closeSync, ftruncateSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, startProcess, stopProcess, waitFor, type StartedProcess } from '../../devenv/processes.js';

const run = promisify(execFile);
/** IPA's own listen port inside the namespace (its default). */
const IPA_LISTEN_PORT = 9999;

interface SandboxDisk {
  sizeBytes: number;
  /** What the emulated BMC reports for it, so root device hints written against it match. */
  serialNumber?: string;
  model?: string;
  vendor?: string;
  rotational?: boolean;
}

export interface SandboxHostSpec {
  id: string;
  /** The first NIC is the boot (PXE) interface. */
  nics: { mac: string; ip?: string }[];
  disks: SandboxDisk[];
  hostname?: string;
  systemVendor?: { manufacturer?: string; productName?: string; serialNumber?: string; biosVersion?: string };
}

export interface SandboxDevice {
  path: string;
  backingFile: string;
}

async function sh(command: string, args: string[]): Promise<string> {
  const { stdout } = await run(command, args, { encoding: 'utf8' });
  return stdout.trim();
}

function sparseFile(path: string, sizeBytes: number): void {
  const fd = openSync(path, 'w', 0o600);
  try {
    ftruncateSync(fd, sizeBytes);
  } finally {
    closeSync(fd);
  }
}

/** One emulated host's sandbox: created once, IPA booted into it any number of times. */
export class IPASandbox {
  readonly devices: SandboxDevice[] = [];
  readonly namespace: string;
  commandPort = 0;
  private readonly relays: StartedProcess[] = [];
  private readonly forwarded = new Set<number>();

  constructor(
    readonly spec: SandboxHostSpec,
    readonly dir: string,
    index: number,
  ) {
    this.namespace = `ih-ipa-${String(process.pid)}-${String(index)}`;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** Disks, namespace, NICs and the command relay. Undone by destroy() even when it fails halfway. */
  async create(): Promise<void> {
    for (const [index, disk] of this.spec.disks.entries()) {
      const backingFile = join(this.dir, `disk${String(index)}.img`);
      sparseFile(backingFile, disk.sizeBytes);
      const path = await sh('losetup', ['--find', '--show', '--partscan', backingFile]);
      this.devices.push({ path, backingFile });
    }
    await sh('ip', ['netns', 'add', this.namespace]);
    await sh('ip', ['-n', this.namespace, 'link', 'set', 'lo', 'up']);
    for (const [index, nic] of this.spec.nics.entries()) {
      await this.addNIC(index, nic);
    }
    this.commandPort = await freePort();
    const socket = join(this.dir, 'commands.sock');
    this.relay('cmd-inner', this.inNamespace(['socat', `UNIX-LISTEN:${socket},fork,unlink-early`, `TCP:127.0.0.1:${String(IPA_LISTEN_PORT)}`]));
    await waitFor(`${this.spec.id} command relay`, async () => Promise.resolve(existsSync(socket)), 10_000, 20);
    this.relay('cmd-outer', ['socat', `TCP-LISTEN:${String(this.commandPort)},bind=127.0.0.1,reuseaddr,fork`, `UNIX-CONNECT:${socket}`]);
  }

  private async addNIC(index: number, nic: { mac: string; ip?: string }): Promise<void> {
    // Both ends stay in the namespace: the NIC exists (with its MAC) and carries nothing.
    const name = `eth${String(index)}`;
    const link = ['-n', this.namespace, 'link'];
    await sh('ip', [...link, 'add', name, 'address', nic.mac, 'type', 'veth', 'peer', 'name', `peer${String(index)}`]);
    await sh('ip', [...link, 'set', name, 'up']);
    await sh('ip', [...link, 'set', `peer${String(index)}`, 'up']);
    if (nic.ip !== undefined) {
      await sh('ip', ['-n', this.namespace, 'addr', 'add', `${nic.ip}/24`, 'dev', name]);
    }
  }

  /** Makes 127.0.0.1:port inside the namespace reach 127.0.0.1:port outside it. */
  async forward(port: number): Promise<void> {
    if (this.forwarded.has(port)) return;
    this.forwarded.add(port);
    const socket = join(this.dir, `forward-${String(port)}.sock`);
    this.relay(`fwd-${String(port)}-outer`, ['socat', `UNIX-LISTEN:${socket},fork,unlink-early`, `TCP:127.0.0.1:${String(port)}`]);
    await waitFor(`${this.spec.id} relay for port ${String(port)}`, async () => Promise.resolve(existsSync(socket)), 10_000, 20);
    this.relay(`fwd-${String(port)}-inner`, this.inNamespace(['socat', `TCP-LISTEN:${String(port)},bind=127.0.0.1,reuseaddr,fork`, `UNIX-CONNECT:${socket}`]));
  }

  inNamespace(argv: string[]): string[] {
    return ['ip', 'netns', 'exec', this.namespace, ...argv];
  }

  private relay(name: string, argv: string[]): void {
    const [command, ...args] = argv as [string, ...string[]];
    this.relays.push(startProcess({ name: `${this.spec.id}-${name}`, command, args, logDir: this.dir }));
  }

  /** The sandbox configuration the Python side reads (IRONHOOK_IPA_SANDBOX). */
  writeConfig(auditLog: string): string {
    const disks = this.devices.map((device, index) => {
      const disk = this.spec.disks[index];
      return {
        path: device.path,
        serial: disk?.serialNumber,
        model: disk?.model,
        vendor: disk?.vendor,
        rotational: disk?.rotational ?? false,
      };
    });
    const config = {
      disks,
      nics: this.spec.nics.map((_nic, index) => ({ name: `eth${String(index)}` })),
      bootMAC: this.spec.nics[0]?.mac,
      hostname: this.spec.hostname ?? this.spec.id,
      systemVendor: this.spec.systemVendor ?? {},
      auditLog,
      outerUTS: readlinkSync('/proc/self/ns/uts'),
    };
    const path = join(this.dir, 'sandbox.json');
    writeFileSync(path, JSON.stringify(config, null, 2), { mode: 0o600 });
    return path;
  }

  /** Reads `length` bytes of a sandbox disk at `offset` (the test reads written images back). */
  async read(index: number, offset: number, length: number): Promise<Buffer> {
    const { open } = await import('node:fs/promises');
    const handle = await open(this.devices[index]?.path ?? '', 'r');
    try {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, offset);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  async destroy(): Promise<void> {
    await Promise.all(this.relays.map(async (relay) => stopProcess(relay.pid, 2_000)));
    await sh('ip', ['netns', 'delete', this.namespace]).catch(() => '');
    for (const device of this.devices) {
      await sh('losetup', ['--detach', device.path]).catch(() => '');
    }
  }
}

export { IPA_LISTEN_PORT };
