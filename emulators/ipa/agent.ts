// One boot of the real ironic-python-agent in a host's sandbox: its config file (what a deploy
// ramdisk gets from its kernel parameters), the process in the namespace, its log, and the
// shutdown requests the sandbox turns into events instead of powering off this machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { IPA_LISTEN_PORT, type IPASandbox } from './sandbox.js';

export interface IPABootSettings {
  python: string;
  /** ipa-api-url as the pool advertises it (a 127.0.0.1 URL, forwarded into the namespace). */
  apiURL: string;
  /** ipa-inspection-callback-url; absent: no in-band inspection post. */
  inspectionURL?: string;
  auditLog: string;
  /** IPA's enable_auto_tls (its default, true): a self-signed certificate sent as agent_verify_ca. */
  autoTLS?: boolean;
  /** Called with "poweroff" or "reboot" when IPA asks to shut the host down. */
  onShutdown(command: string): void;
  onExit(code: number | null, signal: string | null): void;
}

const EVENT_PREFIX = 'IRONHOOK_SANDBOX_EVENT ';

function agentConfig(sandbox: IPASandbox, settings: IPABootSettings): string {
  const lines = [
    '[DEFAULT]',
    `api_url = ${settings.apiURL}`,
    ...(settings.inspectionURL === undefined ? [] : [`inspection_callback_url = ${settings.inspectionURL}`]),
    'listen_host = 127.0.0.1',
    `listen_port = ${String(IPA_LISTEN_PORT)}`,
    // The pool reaches IPA through the relay on this port of the outer 127.0.0.1.
    'advertise_host = 127.0.0.1',
    `advertise_port = ${String(sandbox.commandPort)}`,
    'hardware_initialization_delay = 0',
    'disk_wait_attempts = 1',
    // No DHCP in the namespace: the NICs carry their addresses already.
    'inspection_dhcp_wait_timeout = 0',
    'lookup_timeout = 600',
    'lookup_interval = 1',
    'collect_lldp = False',
    // IPA retries a failed download or checksum 9 times, 10 s apart (90 s per bad image); the
    // tests make one bad image cost 2 s. A deploy ramdisk keeps IPA's defaults.
    'image_download_connection_retries = 2',
    'image_download_connection_retry_interval = 1',
    `enable_auto_tls = ${settings.autoTLS === false ? 'False' : 'True'}`,
    'debug = True',
    'use_stderr = True',
    '',
  ];
  const path = join(sandbox.dir, 'ironic-python-agent.conf');
  writeFileSync(path, lines.join('\n'), { mode: 0o600 });
  return path;
}

export class IPAProcess {
  private readonly child: ChildProcess;
  readonly log: string;

  constructor(sandbox: IPASandbox, settings: IPABootSettings, boot: number) {
    const config = agentConfig(sandbox, settings);
    const sandboxConfig = sandbox.writeConfig(settings.auditLog);
    this.log = join(sandbox.dir, `ipa-boot-${String(boot)}.log`);
    // Its own UTS namespace (the sandbox sets the host's hostname there, never this machine's),
    // PID namespace with a fresh /proc (IPA's fuser checks see only its own processes) and mount
    // namespace (ip netns exec already gives one; --mount-proc needs it).
    const argv = sandbox.inNamespace([
      'unshare',
      '--uts',
      '--pid',
      '--fork',
      '--mount-proc',
      '--',
      settings.python,
      '-m',
      'ironhook_ipa_sandbox',
      '--config-file',
      config,
    ]);
    const [command, ...args] = argv as [string, ...string[]];
    this.child = spawn(command, args, {
      env: { ...process.env, IRONHOOK_IPA_SANDBOX: sandboxConfig, PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const out = createWriteStream(this.log, { flags: 'a', mode: 0o600 });
    this.child.stdout?.pipe(out, { end: false });
    const lines = createInterface({ input: this.child.stderr ?? process.stdin });
    lines.on('line', (line) => {
      out.write(`${line}\n`);
      const at = line.indexOf(EVENT_PREFIX);
      if (at >= 0) settings.onShutdown((JSON.parse(line.slice(at + EVENT_PREFIX.length)) as { event: string }).event);
    });
    this.child.once('exit', (code, signal) => {
      settings.onExit(code, signal);
    });
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The host lost power: IPA and whatever it runs (qemu-img, dd) stop at once. */
  async kill(): Promise<void> {
    if (!this.running || this.child.pid === undefined) return;
    const exited = new Promise<void>((resolve) =>
      this.child.once('exit', () => {
        resolve();
      }),
    );
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      return;
    }
    await exited;
  }
}
