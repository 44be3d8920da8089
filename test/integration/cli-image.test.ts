// `ironhook bmc check --image` on the real HTTP client (undici, as main.ts wires it) against real
// node:http and node:https servers on 127.0.0.1: a qcow2 served with Range support, a server that
// ignores Range, one that refuses HEAD, a redirect, a 404, a closed port, and an HTTPS server whose
// self-signed certificate is refused until --ca-file trusts it.
import { createServer as createHTTPServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHTTPSServer } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultDeps } from '../../drivers/cli/main.js';
import { runCLI } from '../../drivers/cli/run.js';
import { selfSignedCertificate } from '../../emulators/redfish/tls.js';

const SIZE = 256 * 1024;
const QCOW2 = Buffer.alloc(SIZE);
QCOW2.set([0x51, 0x46, 0x49, 0xfb], 0);
const ISO = Buffer.alloc(SIZE);
ISO.write('CD001', 32769, 'latin1');

/** Serves `body` for GET/HEAD, honouring `Range: bytes=a-b` unless told not to. */
function serve(res: ServerResponse, req: IncomingMessage, body: Buffer, options: { ranges: boolean }): void {
  const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (options.ranges && range !== null && req.method === 'GET') {
    const [start, end] = [Number(range[1]), Math.min(Number(range[2]), body.length - 1)];
    res.writeHead(206, {
      'content-type': 'application/octet-stream',
      'content-range': `bytes ${String(start)}-${String(end)}/${String(body.length)}`,
      'content-length': end - start + 1,
    });
    res.end(body.subarray(start, end + 1));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function handler(req: IncomingMessage, res: ServerResponse): void {
  switch (req.url) {
    case '/os.qcow2':
      serve(res, req, QCOW2, { ranges: true });
      return;
    case '/whole.iso':
      serve(res, req, ISO, { ranges: false });
      return;
    case '/no-head.qcow2':
      if (req.method === 'HEAD') {
        res.writeHead(405).end();
        return;
      }
      serve(res, req, QCOW2, { ranges: true });
      return;
    case '/latest':
      res.writeHead(302, { location: '/os.qcow2' }).end();
      return;
    default:
      res.writeHead(404).end();
  }
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

let http: Server;
let https: Server;
let base = '';
let secureBase = '';
let closedPort = 0;
let dir = '';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const deps = { ...defaultDeps(), env: {}, out: (text: string) => out.push(text), err: (text: string) => err.push(text) };
  const code = await runCLI(argv, deps);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ironhook-cli-image-'));
  http = createHTTPServer(handler);
  base = `http://127.0.0.1:${String(await listen(http))}`;
  const certificate = await selfSignedCertificate();
  await writeFile(join(dir, 'ca.pem'), certificate.cert);
  https = createHTTPSServer({ key: certificate.key, cert: certificate.cert }, handler);
  secureBase = `https://127.0.0.1:${String(await listen(https))}`;
  const closed = createHTTPServer();
  closedPort = await listen(closed);
  await new Promise((resolve) => closed.close(resolve));
});

afterAll(async () => {
  await new Promise((resolve) => http.close(resolve));
  await new Promise((resolve) => https.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe('ironhook bmc check --image against real file servers', () => {
  it.each([
    { name: 'qcow2 with Range support', path: () => `${base}/os.qcow2`, code: 0, out: /✓ image reachable: 256\.0 KiB, qcow2, application\/octet-stream/ },
    { name: 'a server that ignores Range', path: () => `${base}/whole.iso`, code: 0, out: /✓ image reachable: 256\.0 KiB, iso9660/ },
    { name: 'a server that refuses HEAD', path: () => `${base}/no-head.qcow2`, code: 0, out: /✓ image reachable: 256\.0 KiB, qcow2/ },
    { name: 'a redirect', path: () => `${base}/latest`, code: 0, out: /qcow2[\s\S]*redirected to http:\/\/127\.0\.0\.1:\d+\/os\.qcow2/ },
    { name: 'missing', path: () => `${base}/gone.img`, code: 8, err: /✗ image not available: HTTP 404/ },
    { name: 'a closed port', path: () => `http://127.0.0.1:${String(closedPort)}/os.qcow2`, code: 5, err: /✗ image unreachable: .*ECONNREFUSED/ },
    { name: 'HTTPS with an untrusted certificate', path: () => `${secureBase}/os.qcow2`, code: 5, err: /✗ image TLS verification failed/ },
  ])('$name → exit $code', async (row) => {
    const result = await cli(['bmc', 'check', '--image', row.path()]);
    expect(result.code, `${result.out}\n${result.err}`).toBe(row.code);
    if (row.out !== undefined) expect(result.out).toMatch(row.out);
    if (row.err !== undefined) expect(result.err).toMatch(row.err);
  });

  it('HTTPS is accepted with --ca-file, and with --insecure', async () => {
    const trusted = await cli(['bmc', 'check', '--image', `${secureBase}/os.qcow2`, '--ca-file', join(dir, 'ca.pem')]);
    expect(trusted.code, trusted.err).toBe(0);
    const insecure = await cli(['bmc', 'check', '--image', `${secureBase}/os.qcow2`, '--insecure', '--json']);
    expect(JSON.parse(insecure.out)).toMatchObject({ verdict: 'usable', check: { format: 'qcow2', sizeBytes: SIZE, rangeRequests: true } });
  });
});
