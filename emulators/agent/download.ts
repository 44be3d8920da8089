// prepare_image as the fake agent does it: read image_info like IPA, download the image (loopback
// hosts only), hash it on the fly and compare with the checksum. Nothing is written anywhere;
// a mismatch fails the command, so the checksum path the pool depends on is real.
import { createHash } from 'node:crypto';
import { request } from 'undici';

/** An IPA-style command error: `type` is the exception name Ironic sees in command_error. */
export class CommandFailure extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = type;
  }
}

export interface ImageVerification {
  id: string;
  url: string;
  bytes: number;
  algorithm: string;
  digest: string;
  diskFormat?: string;
}

export interface DownloadOptions {
  /** Host names the agent may download from; everything else is refused. */
  allowHosts: readonly string[];
  timeoutMs: number;
  signal?: AbortSignal;
}

interface Expected {
  algorithm: string;
  value: string;
}

const BY_LENGTH: Record<number, string> = { 64: 'sha256', 128: 'sha512' };
const ALGORITHMS = new Set(['sha256', 'sha512', 'sha384', 'sha1']);

function invalid(message: string): CommandFailure {
  return new CommandFailure('InvalidCommandParamsError', message);
}

function isURL(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

function stringField(info: Record<string, unknown>, key: string): string | undefined {
  const value = info[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function allowedURL(text: string, options: DownloadOptions): URL {
  if (!URL.canParse(text)) throw invalid(`image URL is not a URL`);
  const url = new URL(text);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowHosts.includes(host)) {
    throw new CommandFailure('ImageDownloadError', `the fake agent only downloads from ${options.allowHosts.join(', ')}, not ${host}`);
  }
  return url;
}

async function fetchText(url: URL, options: DownloadOptions): Promise<string> {
  const response = await get(url, options);
  return response.body.text();
}

async function get(url: URL, options: DownloadOptions): Promise<Awaited<ReturnType<typeof request>>> {
  let response: Awaited<ReturnType<typeof request>>;
  try {
    response = await request(url, {
      method: 'GET',
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : 'error';
    throw new CommandFailure('ImageDownloadError', `download of ${url.origin}${url.pathname} failed: ${code}`);
  }
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new CommandFailure('ImageDownloadError', `download of ${url.origin}${url.pathname} answered HTTP ${String(response.statusCode)}`);
  }
  return response;
}

/** "hash  name" lines (sha256sum output) or a bare hash: the entry for `fileName`, or the only one. */
export function checksumFromFile(text: string, fileName: string): string | undefined {
  const entries = text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((parts) => parts[0] !== undefined && /^[0-9a-fA-F]+$/.test(parts[0]));
  const named = entries.find((parts) => parts.length > 1 && (parts.at(-1) ?? '').replace(/^\*/, '').endsWith(fileName));
  const chosen = named ?? (entries.length === 1 ? entries[0] : undefined);
  return chosen?.[0]?.toLowerCase();
}

function algorithmOf(value: string, declared: string | undefined): string {
  const algorithm = declared?.toLowerCase() ?? BY_LENGTH[value.length];
  if (algorithm === 'md5' || (algorithm === undefined && value.length === 32)) {
    throw invalid('MD5 checksums are disabled (agent_md5_checksum_enable is false)');
  }
  if (algorithm === undefined || !ALGORITHMS.has(algorithm)) {
    throw invalid(`cannot tell the checksum algorithm of a ${String(value.length)}-character value`);
  }
  return algorithm;
}

async function expectedChecksum(info: Record<string, unknown>, imageURL: URL, options: DownloadOptions): Promise<Expected> {
  const declared = stringField(info, 'os_hash_algo');
  const raw = stringField(info, 'os_hash_value') ?? stringField(info, 'checksum');
  if (raw === undefined) throw invalid('image_info needs checksum or os_hash_algo and os_hash_value');
  let value = raw.toLowerCase();
  if (isURL(raw)) {
    const fileName = imageURL.pathname.split('/').at(-1) ?? '';
    const found = checksumFromFile(await fetchText(allowedURL(raw, options), options), fileName);
    if (found === undefined) throw new CommandFailure('ImageChecksumError', `no checksum for ${fileName} in the checksum file`);
    value = found;
  }
  return { algorithm: algorithmOf(value, declared), value };
}

function imageURLOf(info: Record<string, unknown>, options: DownloadOptions): URL {
  const urls = info.urls;
  const first: unknown = Array.isArray(urls) ? urls[0] : undefined;
  if (typeof first !== 'string') throw invalid('image_info.urls must list at least one URL');
  return allowedURL(first, options);
}

/** Downloads and verifies the image `info` describes; rejects with a CommandFailure. */
export async function fetchAndVerify(info: unknown, options: DownloadOptions): Promise<ImageVerification> {
  if (typeof info !== 'object' || info === null) throw invalid('image_info must be an object');
  const fields = info as Record<string, unknown>;
  const id = stringField(fields, 'id');
  if (id === undefined) throw invalid('image_info.id is required');
  const url = imageURLOf(fields, options);
  const expected = await expectedChecksum(fields, url, options);
  const hash = createHash(expected.algorithm);
  let bytes = 0;
  for await (const chunk of (await get(url, options)).body) {
    const buffer = chunk as Buffer;
    bytes += buffer.length;
    hash.update(buffer);
  }
  const digest = hash.digest('hex');
  if (digest !== expected.value) {
    throw new CommandFailure(
      'ImageChecksumError',
      `image ${id} failed to verify against its ${expected.algorithm} checksum: expected ${expected.value}, got ${digest}`,
    );
  }
  const diskFormat = stringField(fields, 'disk_format');
  return { id, url: `${url.origin}${url.pathname}`, bytes, algorithm: expected.algorithm, digest, ...(diskFormat === undefined ? {} : { diskFormat }) };
}
