// `ironhook bmc check --image`: what a HEAD and a ranged GET tell about an image URL (status,
// size from Content-Range or Content-Length, format from the magic bytes, redirects, servers that
// refuse HEAD or ignore Range), and the verdict a person acts on.
import { describe, expect, it } from 'vitest';
import { checkImage, formatOf, imageVerdict, imageURLProblem, type ImageResponse } from '../../drivers/cli/image-check.js';

const URL_ = 'http://127.0.0.1:18080/images/os.img';

function bytesWith(offset: number, magic: number[] | string, length = 34 * 1024): Uint8Array {
  const bytes = new Uint8Array(length);
  bytes.set(typeof magic === 'string' ? Buffer.from(magic, 'latin1') : magic, offset);
  return bytes;
}

interface Row {
  name: string;
  head: Partial<ImageResponse>;
  get: Partial<ImageResponse>;
  want: { code: number; headline: RegExp; hints?: RegExp };
}

const rows: Row[] = [
  {
    name: 'a ranged GET gives the total size and the format',
    head: { status: 200, headers: { 'content-length': '1048576', 'content-type': 'application/octet-stream' } },
    get: { status: 206, headers: { 'content-range': 'bytes 0-34815/1048576' }, bytes: bytesWith(0, [0x51, 0x46, 0x49, 0xfb]) },
    want: { code: 0, headline: /✓ image reachable: 1\.0 MiB, qcow2, application\/octet-stream/ },
  },
  {
    name: 'a server that refuses HEAD is asked with GET',
    head: { status: 405, headers: {} },
    get: { status: 206, headers: { 'content-range': 'bytes 0-34815/3145728' }, bytes: bytesWith(32769, 'CD001') },
    want: { code: 0, headline: /3\.0 MiB, iso9660/ },
  },
  {
    name: 'a server that ignores Range: the size from Content-Length',
    head: { status: 200, headers: {} },
    get: { status: 200, headers: { 'content-length': '2097152' }, bytes: bytesWith(512, 'EFI PART') },
    want: { code: 0, headline: /2\.0 MiB, raw \(GPT\)/ },
  },
  {
    name: 'a redirect is reported',
    head: { status: 200, url: 'http://127.0.0.1:18081/mirror/os.img', headers: {} },
    get: { status: 206, url: 'http://127.0.0.1:18081/mirror/os.img', headers: { 'content-range': 'bytes 0-1/2' }, bytes: new Uint8Array(2) },
    want: { code: 0, headline: /✓ image reachable: 2 B, format not recognised/, hints: /redirected to http:\/\/127\.0\.0\.1:18081\/mirror\/os\.img/ },
  },
  {
    name: 'missing: exit 8 with the status',
    head: { status: 404, headers: {} },
    get: { status: 404, headers: {} },
    want: { code: 8, headline: /✗ image not available: HTTP 404 for http:\/\/127\.0\.0\.1:18080\/images\/os\.img/ },
  },
];

describe('checkImage and its verdict', () => {
  it.each(rows)('$name', async ({ head, get, want }) => {
    const check = await checkImage(URL_, (url, request) => Promise.resolve({ url, headers: {}, status: 200, ...(request.method === 'HEAD' ? head : get) }));
    const verdict = imageVerdict(check);
    expect(verdict.exitCode).toBe(want.code);
    expect(verdict.headline).toMatch(want.headline);
    if (want.hints !== undefined) expect(verdict.hints.join('\n')).toMatch(want.hints);
    expect(verdict.hints.join('\n')).toContain('the agent fetches the image from the host');
  });
});

describe('formats and URLs', () => {
  it.each([
    { name: 'gzip', bytes: bytesWith(0, [0x1f, 0x8b]), want: 'gzip' },
    { name: 'xz', bytes: bytesWith(0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), want: 'xz' },
    { name: 'zstd', bytes: bytesWith(0, [0x28, 0xb5, 0x2f, 0xfd]), want: 'zstd' },
    { name: 'MBR', bytes: bytesWith(510, [0x55, 0xaa]), want: 'raw (MBR)' },
    { name: 'nothing known', bytes: new Uint8Array(16), want: undefined },
  ])('recognises $name', ({ bytes, want }) => {
    expect(formatOf(bytes)).toBe(want);
  });

  it.each([
    { url: 'https://images.example/os.qcow2', want: undefined },
    { url: 'oci://registry.example/os@sha256:00', want: /not implemented/ },
    { url: 'file:///srv/os.img', want: /http:\/\/ or https:\/\//u },
    { url: 'not a url', want: /is not a URL/ },
  ])('$url', ({ url, want }) => {
    const problem = imageURLProblem(url);
    if (want === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(want);
  });
});
