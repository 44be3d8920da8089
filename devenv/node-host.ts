// The host-side leftovers of the local node (devenv/node.ts): containerd's tasks and shims, the
// mounts the kubelet and containerd make, and the kubepods cgroups the kubelet creates at the root
// of every hierarchy and leaves behind when it exits. Everything here acts on fixed paths of this
// one node (docs/dev/real-node.md); processes are found by their command line and ended by PID.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync, rmSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './processes.js';

const run = promisify(execFile);

/** The node's fixed containerd socket (its shims' sockets live under /run/containerd too). */
export const CONTAINERD_SOCKET = '/run/containerd/containerd.sock';
/** Where the kubelet and containerd mount things (plus the node's own containerd root). */
export const MOUNT_ROOTS = ['/var/lib/kubelet', '/run/containerd', '/var/lib/containerd', '/run/netns'];

export async function ctr(args: string[]): Promise<string> {
  return (await run('ctr', ['--address', CONTAINERD_SOCKET, '--namespace', 'k8s.io', ...args], { maxBuffer: 16 * 1024 * 1024 })).stdout;
}

/** SIGKILLs and deletes every task, then removes every container, in containerd's k8s.io namespace. */
export async function removeContainers(): Promise<void> {
  const lines = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '');
  for (const line of lines(await ctr(['tasks', 'ls', '-q']))) {
    await ctr(['tasks', 'delete', '--force', line.trim()]).catch(() => '');
  }
  for (const id of lines(await ctr(['containers', 'ls', '-q']))) {
    await ctr(['containers', 'rm', id.trim()]).catch(() => '');
  }
}

/** A process that exists and is not a zombie (detached shims are reaped by init, sometimes late). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** PIDs of containerd-shim-runc-v2 processes serving this node's containerd (`-address <socket>`). */
function shimPids(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const shim = argv[0]?.endsWith('containerd-shim-runc-v2') === true && argv.includes(CONTAINERD_SOCKET);
    if (shim && running(Number(entry))) pids.push(Number(entry));
  }
  return pids;
}

/** SIGKILLs the shims left after containerd stopped; returns how many there were. */
export async function killLeftoverShims(): Promise<number> {
  const pids = shimPids();
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await waitFor('leftover containerd shims to exit', async () => Promise.resolve(pids.every((pid) => !running(pid))), 10_000, 100);
  return pids.length;
}

/** Mount points under `roots`, deepest first (from /proc/self/mountinfo, octal escapes decoded). */
export function mountsUnder(roots: string[]): string[] {
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => (line.split(' ')[4] ?? '').replace(/\\([0-7]{3})/gu, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    .filter((point) => roots.some((root) => point === root || point.startsWith(`${root}/`)));
  return [...new Set(points)].sort((a, b) => b.split('/').length - a.split('/').length || b.length - a.length);
}

/** Unmounts everything under `roots`, deepest first, a few passes for stacked mounts; returns what is still mounted. */
export async function unmountAll(roots: string[]): Promise<string[]> {
  for (let pass = 0; pass < 5 && mountsUnder(roots).length > 0; pass += 1) {
    for (const point of mountsUnder(roots)) {
      await run('umount', [point]).catch(() => run('umount', ['--lazy', point]).catch(() => undefined));
    }
  }
  // containerd's CNI network namespace files, once unmounted, are plain files.
  if (existsSync('/run/netns')) {
    for (const name of readdirSync('/run/netns').filter((entry) => entry.startsWith('cni-'))) {
      rmSync(join('/run/netns', name), { force: true });
    }
  }
  return mountsUnder(roots);
}

/** The kubepods cgroup directories (v1 hierarchies, the hybrid v2 tree, or a pure v2 root), de-duplicated. */
export function kubepodsCgroups(): string[] {
  const base = '/sys/fs/cgroup';
  if (!existsSync(base)) return [];
  const candidates = [join(base, 'kubepods'), ...readdirSync(base).map((entry) => join(base, entry, 'kubepods'))];
  const found = candidates.filter((path) => existsSync(path) && statSync(path).isDirectory()).map((path) => realpathSync(path));
  return [...new Set(found)];
}

/** Subdirectories of `dir` after their own subdirectories (post-order), then `dir`. */
function deepestFirst(dir: string): string[] {
  const children = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  return [...children.flatMap((entry) => deepestFirst(join(dir, entry.name))), dir];
}

/** Removes the empty kubepods cgroups, deepest first; returns those that remain (still in use). */
export function removeKubepodsCgroups(): string[] {
  for (const root of kubepodsCgroups()) {
    for (const dir of deepestFirst(root)) {
      try {
        rmdirSync(dir);
      } catch {
        // busy (a process is still in it): reported below
      }
    }
  }
  return kubepodsCgroups();
}
