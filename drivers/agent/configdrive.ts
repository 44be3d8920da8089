// The config drive as Ironic's conductor hands it to the agent: the files of an OpenStack config
// drive (openstack/latest/meta_data.json, user_data, network_data.json) in an ISO 9660 image
// labelled config-2, made with genisoimage and Ironic's flags (xorriso's genisoimage emulation
// when genisoimage is absent), gzip-compressed and base64-encoded. The files are written in a
// private temporary directory that is always removed; user data only ever goes into those files,
// never into argv, the child's environment or a message.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';
import { parse as parseYAML } from 'yaml';
import { canonicalJSON } from '../../domain/canonical.js';
import { AgentError } from './errors.js';
import type { AgentConfigDrive } from './port.js';

const gzipAsync = promisify(gzip);

/** Ironic's flags after `-o <file>` (openstacksdk's configdrive.pack), then the directory. */
const ISO_FLAGS = ['-ldots', '-allow-lowercase', '-allow-multidot', '-l', '-publisher', 'ironic', '-quiet', '-J', '-r', '-V', 'config-2'];

/** Tried in this order; the next one only when a tool is not installed. */
const ISO_TOOLS: readonly { file: string; prefix: readonly string[] }[] = [
  { file: 'genisoimage', prefix: [] },
  { file: 'xorriso', prefix: ['-as', 'genisoimage'] },
];

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const DEFAULT_TIMEOUT_MS = 60_000;
const MAX_OUTPUT_BYTES = 1024 * 1024;
const LATEST = 'openstack/latest';

export interface ConfigDriveOptions {
  /** Where the private build directory is made (default: the OS temporary directory). */
  tmpDir?: string;
  /** The PATH genisoimage and xorriso are looked up in (default: the pool's PATH). */
  searchPath?: string;
  /** The ISO tool is killed after this long (default 60 s). */
  timeoutMs?: number;
}

interface DriveFile {
  path: string;
  content: string;
}

interface ToolResult {
  /** null when the tool did not exit on its own (killed, or never started). */
  exitCode: number | null;
  stderr: string;
  timedOut: boolean;
  /** The errno code when the tool could not be started (ENOENT: not installed). */
  spawnError?: string;
}

function document(text: string | undefined, what: string): Record<string, unknown> | undefined {
  if (text === undefined || text.trim() === '') {
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = parseYAML(text);
  } catch {
    throw new AgentError('ImageInvalid', `${what} is neither JSON nor YAML`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AgentError('ImageInvalid', `${what} must be a JSON or YAML object`);
  }
  return parsed as Record<string, unknown>;
}

/** The drive's files, or undefined when there is nothing to put on it. */
function driveFiles(drive: AgentConfigDrive): DriveFile[] | undefined {
  const metaData = document(drive.metaData, 'metaData');
  const networkData = document(drive.networkData, 'networkData');
  const userData = drive.userData ?? '';
  if (metaData === undefined && networkData === undefined && userData === '') {
    return undefined;
  }
  // meta_data.json is always there: cloud-init's config drive reader requires it.
  const files = [{ path: `${LATEST}/meta_data.json`, content: canonicalJSON(metaData ?? {}) }];
  if (userData !== '') files.push({ path: `${LATEST}/user_data`, content: userData });
  if (networkData !== undefined) files.push({ path: `${LATEST}/network_data.json`, content: canonicalJSON(networkData) });
  return files;
}

interface ExecFailure {
  code?: number | string | null;
  killed?: boolean;
  signal?: string | null;
}

function failureResult(error: ExecFailure, stderr: string): ToolResult {
  if (typeof error.code === 'string') {
    return { exitCode: null, stderr, timedOut: false, spawnError: error.code };
  }
  const timedOut = error.killed === true && error.signal === 'SIGKILL';
  return { exitCode: typeof error.code === 'number' ? error.code : null, stderr, timedOut };
}

function runTool(file: string, args: readonly string[], env: Record<string, string>, timeoutMs: number): Promise<ToolResult> {
  return new Promise((resolve) => {
    const options = { env, timeout: timeoutMs, killSignal: 'SIGKILL' as const, maxBuffer: MAX_OUTPUT_BYTES, encoding: 'utf8' as const };
    execFile(file, [...args], options, (error, _stdout, stderr) => {
      resolve(error === null ? { exitCode: 0, stderr, timedOut: false } : failureResult(error, stderr));
    });
  });
}

/** The tool's last line of complaint (file names at most: the tool never sees the contents). */
function lastLine(stderr: string): string {
  const line = stderr.trim().split('\n').at(-1)?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function toolFailure(file: string, result: ToolResult, timeoutMs: number): AgentError {
  let what: string;
  if (result.timedOut) what = `was killed after ${timeoutMs} ms`;
  else if (result.spawnError !== undefined) what = `could not be started (${result.spawnError})`;
  else what = `exited ${result.exitCode === null ? 'on a signal' : result.exitCode}`;
  const detail = lastLine(result.stderr);
  return new AgentError('ConfigDriveBuildFailed', `${file} ${what} building the config drive ISO${detail === '' ? '' : `: ${detail}`}`);
}

async function makeISO(output: string, root: string, options: ConfigDriveOptions): Promise<void> {
  const env = { PATH: options.searchPath ?? process.env.PATH ?? DEFAULT_PATH, LC_ALL: 'C' };
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  for (const tool of ISO_TOOLS) {
    const result = await runTool(tool.file, [...tool.prefix, '-o', output, ...ISO_FLAGS, root], env, timeoutMs);
    if (result.spawnError === 'ENOENT') continue;
    if (result.exitCode !== 0) throw toolFailure(tool.file, result, timeoutMs);
    return;
  }
  throw new AgentError('ConfigDriveBuildFailed', 'neither genisoimage nor xorriso is installed: the pool needs one of them to build the config drive ISO');
}

async function buildIn(dir: string, files: readonly DriveFile[], options: ConfigDriveOptions): Promise<Buffer> {
  const root = join(dir, 'drive');
  for (const file of files) {
    const path = join(root, file.path);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, file.content, { mode: 0o600 });
  }
  const output = join(dir, 'config-drive.iso');
  await makeISO(output, root, options);
  return readFile(output);
}

function filesystemFailure(err: unknown): AgentError {
  const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'error';
  return new AgentError('ConfigDriveBuildFailed', `the config drive files could not be written or read (${code})`, { cause: err });
}

/**
 * The config drive for standby.prepare_image: a base64 string of the gzipped config-2 ISO, or
 * undefined when there is no drive or nothing to put on it. Rejects with ImageInvalid (permanent)
 * when metaData or networkData is not a JSON or YAML object, and with ConfigDriveBuildFailed
 * (transient) when the ISO cannot be made.
 */
export async function buildConfigDriveISO(drive: AgentConfigDrive | undefined, options: ConfigDriveOptions = {}): Promise<string | undefined> {
  const files = drive === undefined ? undefined : driveFiles(drive);
  if (files === undefined) {
    return undefined;
  }
  // mkdtemp makes the directory with mode 0700: only the pool's user can read the user data.
  const dir = await mkdtemp(join(options.tmpDir ?? tmpdir(), 'ironhook-configdrive-')).catch((err: unknown) => {
    throw filesystemFailure(err);
  });
  try {
    const iso = await buildIn(dir, files, options).catch((err: unknown) => {
      throw err instanceof AgentError ? err : filesystemFailure(err);
    });
    const compressed = await gzipAsync(iso, { level: constants.Z_BEST_COMPRESSION });
    return compressed.toString('base64');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
