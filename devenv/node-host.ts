// The host-side leftovers of a local node (devenv/node.ts): containerd's tasks and shims, the
// mounts the kubelet and containerd make, and the kubepods cgroups the kubelet creates and leaves
// behind when it exits. Everything here acts on the fixed paths of one node slot
// (docs/dev/real-node.md); processes are found by their command line and ended by PID.
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './processes.js';

const run = promisify(execFile);

/**
 * Where one local node lives on this host. Slot 0 uses the standard paths and ports; another slot
 * (a second management cluster's node, for clusterctl move) gets its own ports, containerd socket
 * and state, kubelet root, pod log directory and cgroup root, so two kubelets never touch each
 * other's pods, mounts or cgroups.
 */
export interface NodeSlot {
  index: number;
  kubeletPort: number;
  healthzPort: number;
  containerdSocket: string;
  containerdState: string;
  runcRoot: string;
  kubeletRoot: string;
  podLogsDir: string;
  /** The kubelet's cgroupRoot (cgroupfs): its kubepods tree goes under it. */
  cgroupRoot: string;
  /** Who runs the slot's node now: written at start, removed by stop. */
  lock: string;
  /** Where the slot's kubelet and containerd mount things (plus the node's own containerd root). */
  mountRoots: string[];
}

export function nodeSlot(index: number): NodeSlot {
  if (index === 0) {
    return {
      index,
      kubeletPort: 10250,
      healthzPort: 10248,
      containerdSocket: '/run/containerd/containerd.sock',
      containerdState: '/run/containerd',
      runcRoot: '/run/containerd/runc',
      kubeletRoot: '/var/lib/kubelet',
      podLogsDir: '/var/log/pods',
      cgroupRoot: '/',
      lock: '/run/ironhook-node.json',
      mountRoots: ['/var/lib/kubelet', '/run/containerd', '/var/lib/containerd', '/run/netns'],
    };
  }
  const name = `ironhook-node-${String(index)}`;
  return {
    index,
    kubeletPort: 10250 + 100 * index,
    healthzPort: 10248 + 100 * index,
    containerdSocket: `/run/${name}/containerd/containerd.sock`,
    containerdState: `/run/${name}/containerd`,
    runcRoot: `/run/${name}/runc`,
    kubeletRoot: `/var/lib/${name}/kubelet`,
    podLogsDir: `/var/log/${name}/pods`,
    cgroupRoot: `/${name}`,
    lock: `/run/${name}.json`,
    mountRoots: [`/var/lib/${name}`, `/run/${name}`],
  };
}

const FIRST_SLOT = nodeSlot(0);
/** Where the first slot's kubelet and containerd mount things. */
export const MOUNT_ROOTS = FIRST_SLOT.mountRoots;

export async function ctr(args: string[], slot: NodeSlot = FIRST_SLOT): Promise<string> {
  const options = { maxBuffer: 16 * 1024 * 1024 };
  return (await run('ctr', ['--address', slot.containerdSocket, '--namespace', 'k8s.io', ...args], options)).stdout;
}

/** SIGKILLs and deletes every task, then removes every container, in the slot's containerd (k8s.io namespace). */
export async function removeContainers(slot: NodeSlot = FIRST_SLOT): Promise<void> {
  const lines = (text: string): string[] => text.split('\n').filter((line) => line.trim() !== '');
  for (const line of lines(await ctr(['tasks', 'ls', '-q'], slot))) {
    await ctr(['tasks', 'delete', '--force', line.trim()], slot).catch(() => '');
  }
  for (const id of lines(await ctr(['containers', 'ls', '-q'], slot))) {
    await ctr(['containers', 'rm', id.trim()], slot).catch(() => '');
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

/** PIDs of containerd-shim-runc-v2 processes serving the slot's containerd (`-address <socket>`). */
function shimPids(slot: NodeSlot): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const shim = argv[0]?.endsWith('containerd-shim-runc-v2') === true && argv.includes(slot.containerdSocket);
    if (shim && running(Number(entry))) pids.push(Number(entry));
  }
  return pids;
}

/** SIGKILLs the shims left after containerd stopped; returns how many there were. */
export async function killLeftoverShims(slot: NodeSlot = FIRST_SLOT): Promise<number> {
  const pids = shimPids(slot);
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

/** The cgroup hierarchies: the v1 controllers' and the hybrid v2 tree's mounts, or a pure v2 root. */
function hierarchies(): string[] {
  const base = '/sys/fs/cgroup';
  if (!existsSync(base)) return [];
  if (existsSync(join(base, 'cgroup.controllers'))) return [base];
  // cpu,cpuacct-style names are symlinks to a hierarchy listed anyway.
  return readdirSync(base)
    .map((entry) => join(base, entry))
    .filter((path) => !lstatSync(path).isSymbolicLink() && statSync(path).isDirectory());
}

/**
 * The slot's kubepods cgroup directories, de-duplicated: `kubepods` at the root of every hierarchy
 * for the first slot, the slot's whole cgroup root for another.
 */
export function kubepodsCgroups(slot: NodeSlot = FIRST_SLOT): string[] {
  const name = slot.cgroupRoot === '/' ? 'kubepods' : slot.cgroupRoot.slice(1);
  const found = hierarchies()
    .map((hierarchy) => join(hierarchy, name))
    .filter((path) => existsSync(path) && statSync(path).isDirectory())
    .map((path) => realpathSync(path));
  return [...new Set(found)];
}

/**
 * Creates a slot's own cgroup root in every hierarchy (the kubelet refuses a cgroupRoot that does
 * not exist); a v1 cpuset cgroup starts with no CPUs or memory nodes, so it gets its parent's.
 */
export function makeCgroupRoot(slot: NodeSlot): void {
  if (slot.cgroupRoot === '/') return;
  for (const hierarchy of hierarchies()) {
    const dir = join(hierarchy, slot.cgroupRoot);
    mkdirSync(dir, { recursive: true });
    for (const file of ['cpuset.cpus', 'cpuset.mems']) {
      const inherited = join(hierarchy, file);
      if (existsSync(inherited) && readFileSync(join(dir, file), 'utf8').trim() === '') writeFileSync(join(dir, file), readFileSync(inherited, 'utf8'));
    }
  }
}

/** Subdirectories of `dir` after their own subdirectories (post-order), then `dir`. */
function deepestFirst(dir: string): string[] {
  const children = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  return [...children.flatMap((entry) => deepestFirst(join(dir, entry.name))), dir];
}

/** Removes the slot's empty kubepods cgroups, deepest first; returns those that remain (still in use). */
export function removeKubepodsCgroups(slot: NodeSlot = FIRST_SLOT): string[] {
  for (const root of kubepodsCgroups(slot)) {
    for (const dir of deepestFirst(root)) {
      try {
        rmdirSync(dir);
      } catch {
        // busy (a process is still in it): reported below
      }
    }
  }
  return kubepodsCgroups(slot);
}
