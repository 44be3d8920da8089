// `ironhook bmc check --image <url>`: can the image be fetched the way the agent (or the BMC, for a
// live ISO) will fetch it? A HEAD, then a ranged GET of the first 34 KiB when HEAD is refused or
// says nothing, to report the status, size, type and format (magic bytes). The fetch is a
// dependency: main.ts wires undici with the CLI's TLS options, unit tests use fakes.
import { EXIT_CODES, type Verdict } from './verdict.js';

/** What one HTTP exchange returned; `bytes` only for a GET. */
export interface ImageResponse {
  status: number;
  /** The URL after redirects. */
  url: string;
  headers: Record<string, string>;
  bytes?: Uint8Array;
}

export type ImageFetch = (url: string, request: { method: 'HEAD' | 'GET'; range?: string }) => Promise<ImageResponse>;

export interface ImageCheck {
  url: string;
  finalURL: string;
  status: number;
  sizeBytes?: number;
  contentType?: string;
  /** From the first bytes: qcow2, iso9660, raw (MBR/GPT), gzip, xz, zstd, bzip2; absent when unknown. */
  format?: string;
  rangeRequests: boolean;
}

/** Enough for the ISO 9660 volume descriptor at 32769. */
export const PROBE_BYTES = 34 * 1024;

const startsWith = (bytes: Uint8Array, offset: number, magic: readonly number[]): boolean => magic.every((b, i) => bytes[offset + i] === b);
const ascii = (text: string): number[] => [...Buffer.from(text, 'latin1')];

const MAGIC: { format: string; offset: number; bytes: number[] }[] = [
  { format: 'qcow2', offset: 0, bytes: [0x51, 0x46, 0x49, 0xfb] },
  { format: 'gzip', offset: 0, bytes: [0x1f, 0x8b] },
  { format: 'xz', offset: 0, bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { format: 'zstd', offset: 0, bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { format: 'bzip2', offset: 0, bytes: ascii('BZh') },
  { format: 'iso9660', offset: 32769, bytes: ascii('CD001') },
  { format: 'raw (GPT)', offset: 512, bytes: ascii('EFI PART') },
  { format: 'raw (MBR)', offset: 510, bytes: [0x55, 0xaa] },
];

export function formatOf(bytes: Uint8Array): string | undefined {
  return MAGIC.find((m) => startsWith(bytes, m.offset, m.bytes))?.format;
}

/** The total size: Content-Range's total (`bytes 0-1023/4096`) for a ranged answer, else Content-Length. */
function sizeOf(probe: ImageResponse, head: ImageResponse): number | undefined {
  const text =
    probe.status === 206 ? /\/(\d+)$/.exec(probe.headers['content-range'] ?? '')?.[1] : (probe.headers['content-length'] ?? head.headers['content-length']);
  const size = text === undefined ? NaN : Number(text);
  return Number.isFinite(size) ? size : undefined;
}

/** Why the URL cannot be checked from here; undefined when it can. */
export function imageURLProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `--image ${JSON.stringify(url)} is not a URL`;
  }
  if (parsed.protocol === 'oci:') {
    return 'oci:// images are pulled from their registry by the agent; checking a registry is not implemented: check it from the hosts network with your OCI client';
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? undefined : `--image must be an http:// or https:// URL, not ${parsed.protocol}`;
}

/** HEAD for the headers (some servers refuse it), then the GET the agent will make, ranged. */
export async function checkImage(url: string, fetchImage: ImageFetch): Promise<ImageCheck> {
  const head = await fetchImage(url, { method: 'HEAD' });
  const probe = await fetchImage(head.status < 400 ? head.url : url, { method: 'GET', range: `bytes=0-${String(PROBE_BYTES - 1)}` });
  const contentType = probe.headers['content-type'] ?? head.headers['content-type'];
  const check: ImageCheck = { url, finalURL: probe.url, status: probe.status, rangeRequests: probe.status === 206 };
  if (probe.status >= 400) return check;
  const sizeBytes = sizeOf(probe, head);
  const format = probe.bytes === undefined ? undefined : formatOf(probe.bytes);
  return {
    ...check,
    ...(sizeBytes === undefined ? {} : { sizeBytes }),
    ...(contentType === undefined ? {} : { contentType }),
    ...(format === undefined ? {} : { format }),
  };
}

function sizeText(bytes: number | undefined): string {
  if (bytes === undefined) return 'size unknown';
  const [unit, divisor] = (
    [
      ['GiB', 2 ** 30],
      ['MiB', 2 ** 20],
      ['KiB', 2 ** 10],
    ] as const
  ).find(([, d]) => bytes >= d) ?? ['B', 1];
  return unit === 'B' ? `${String(bytes)} B` : `${(bytes / divisor).toFixed(1)} ${unit}`;
}

function describe(check: ImageCheck): string {
  const size = sizeText(check.sizeBytes);
  return [size, check.format ?? 'format not recognised', check.contentType].filter((part) => part !== undefined).join(', ');
}

const WHERE_HINT =
  'this checked from where you ran it: the agent fetches the image from the host, and a live ISO is fetched by the BMC; run the check from a machine on that network too';

export function imageVerdict(check: ImageCheck): Verdict {
  if (check.status >= 400) {
    return {
      kind: 'image-unavailable',
      exitCode: EXIT_CODES['image-unavailable'],
      headline: `✗ image not available: HTTP ${String(check.status)} for ${check.finalURL}`,
      hints: ['check the URL (spec.image.url) and that the file server serves it', WHERE_HINT],
    };
  }
  const redirect = check.finalURL === check.url ? [] : [`redirected to ${check.finalURL}`];
  return { kind: 'usable', exitCode: EXIT_CODES.usable, headline: `✓ image reachable: ${describe(check)}`, hints: [...redirect, WHERE_HINT] };
}

/** A fetch failure (refused, DNS, TLS, timeout) as the unreachable verdict. */
export function imageErrorVerdict(url: string, error: unknown): Verdict {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : error instanceof Error ? error.message : String(error);
  const tls = /certificate|self[- ]signed|TLS|SSL/i.test(cause);
  return {
    kind: tls ? 'tls' : 'unreachable',
    exitCode: EXIT_CODES.unreachable,
    headline: `✗ image ${tls ? 'TLS verification failed' : 'unreachable'}: ${url}: ${cause}`,
    hints: tls ? ["use --ca-file with the file server's CA (the agent needs it too), or --insecure to see past it", WHERE_HINT] : [WHERE_HINT],
  };
}
