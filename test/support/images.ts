// The container images `npm run image` builds (scripts/image.sh, docs/images.md), as its
// images.json lists them, and podman running them the way the chart's pods run: read-only root
// filesystem with only /tmp writable (the chart's emptyDir), no capabilities, no privilege
// escalation, the host network (every server listens on 127.0.0.1), nothing pulled. runc, not
// crun (crun fails on these machines' hybrid cgroups), and ulimits the machines allow.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function podman(...args: string[]): Promise<string> {
  return (await run('podman', ['--runtime', 'runc', ...args], { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
}

/** `podman run` flags for a container as restricted as the chart's pods. */
export const RESTRICTED = [
  '--pull=never',
  '--read-only',
  '--read-only-tmpfs=false',
  '--tmpfs=/tmp:rw,nosuid,nodev,size=64m',
  '--network=host',
  '--cap-drop=ALL',
  '--security-opt=no-new-privileges',
  '--ulimit=nofile=20000:20000',
  '--ulimit=nproc=4096:4096',
];

/** The real (effective) uid and gid of a running container's main process, read on the host. */
export async function processIds(container: string): Promise<{ uid: string; gid: string }> {
  const pid = await podman('inspect', '--format', '{{.State.Pid}}', container);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): string => new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? '';
  return { uid: field('Uid'), gid: field('Gid') };
}
