// The container images `npm run image` builds (scripts/image.sh, docs/images.md), as its
// images.json lists them, and podman running them the way the chart's pods run: read-only root
// filesystem with only /tmp writable (the chart's emptyDir), no capabilities, no privilege
// escalation, the host network (every server listens on 127.0.0.1), nothing pulled. runc, not
// crun (crun fails on these machines' hybrid cgroups), and ulimits the machines allow.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CACHE_DIR } from '../../devenv/processes.js';

const run = promisify(execFile);

const IMAGES_MANIFEST = join(CACHE_DIR, 'images', 'images.json');

export interface BuiltImage {
  name: string;
  reference: string;
  digest: string;
  imageId: string;
  sizeBytes: number;
  created: string;
  archives: { oci: { path: string; bytes: number }; docker: { path: string; bytes: number } };
  buildSeconds: number;
  exportSeconds: number;
}

/** The images of the last `npm run image`, by name. Throws (so a test fails, never skips) when there are none. */
export function builtImages(): Map<string, BuiltImage> {
  if (!existsSync(IMAGES_MANIFEST)) {
    throw new Error(`${IMAGES_MANIFEST} is missing: run \`npm run image\` first (scripts/test.sh does for the integration tier)`);
  }
  const { images } = JSON.parse(readFileSync(IMAGES_MANIFEST, 'utf8')) as { images: BuiltImage[] };
  return new Map(images.map((image) => [image.name, image]));
}

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
