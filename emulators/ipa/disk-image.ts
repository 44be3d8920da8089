// Whole-disk images for the real IPA tests and what they leave on a sandbox disk. The image has
// a real GPT (IPA adds its config-2 partition to the image's partition table: with none at
// all, parted refuses), one partition whose bytes are random, and a qcow2 copy made by
// qemu-img. Reading back uses the tools a user would: blkid for labels and partition tables,
// isoinfo for the config drive's files.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MiB = 1024 * 1024;
/** The image's partition 1 starts at sector 2048. */
export const PAYLOAD_OFFSET = 1 * MiB;

export interface DiskImage {
  raw: Buffer;
  qcow2: Buffer;
  /** The random bytes of partition 1, at PAYLOAD_OFFSET on the disk once written. */
  payload: Buffer;
  sha256: { raw: string; qcow2: string };
}

export function sha256Of(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A 16 MiB raw image with a GPT and an 8 MiB Linux partition full of random bytes, and its qcow2. */
export async function buildDiskImage(dir: string): Promise<DiskImage> {
  const rawPath = join(dir, 'disk.raw');
  const payload = randomBytes(8 * MiB);
  const raw = Buffer.alloc(16 * MiB);
  payload.copy(raw, PAYLOAD_OFFSET);
  writeFileSync(rawPath, raw);
  await run('sgdisk', ['--new=1:2048:+8M', '--typecode=1:8300', '--change-name=1:ironhook-root', rawPath]);
  await run('qemu-img', ['convert', '-f', 'raw', '-O', 'qcow2', rawPath, join(dir, 'disk.qcow2')]);
  const written = readFileSync(rawPath);
  const qcow2 = readFileSync(join(dir, 'disk.qcow2'));
  return { raw: written, qcow2, payload, sha256: { raw: sha256Of(written), qcow2: sha256Of(qcow2) } };
}

async function probe(device: string, tag: string): Promise<string> {
  try {
    const { stdout } = await run('blkid', ['--probe', '--match-tag', tag, '--output', 'value', device], { encoding: 'utf8' });
    return stdout.trim();
  } catch {
    return ''; // blkid exits 2 when it finds nothing
  }
}

/** The partition-table type on a disk ("gpt", "dos"), or "" when there is none. */
export async function partitionTableOf(device: string): Promise<string> {
  return probe(device, 'PTTYPE');
}

/** The partitions of a disk, by path (lsblk). */
async function partitionsOf(device: string): Promise<string[]> {
  const { stdout } = await run('lsblk', ['--list', '--noheadings', '--paths', '--output', 'NAME,TYPE', device], { encoding: 'utf8' });
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/u))
    .filter(([, type]) => type === 'part')
    .map(([name]) => name ?? '');
}

/** The files of the config-2 partition on a disk, or undefined when it has none. */
export async function readConfigDrive(device: string): Promise<Record<string, string> | undefined> {
  for (const partition of await partitionsOf(device)) {
    if ((await probe(partition, 'LABEL')) !== 'config-2') continue;
    const files: Record<string, string> = {};
    for (const name of ['meta_data.json', 'network_data.json', 'user_data']) {
      const { stdout } = await run('isoinfo', ['-i', partition, '-R', '-x', `/openstack/latest/${name}`], { encoding: 'utf8' });
      if (stdout !== '') files[name] = stdout;
    }
    return files;
  }
  return undefined;
}
