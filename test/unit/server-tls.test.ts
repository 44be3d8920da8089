// TLS and client certificates (Metacontroller's `clientTLS`), end to end on loopback: a
// throwaway CA and certificates made with openssl in a temporary directory.
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOpenssl, makeCa, makeLeaf } from '../../devenv/tls.js';
import { collectAnswer, type Answer } from '../support/http-answer.js';
import { runHookServer, type RunningServer } from '../../hooks/server/run.js';
import type { HookRegistry } from '../../hooks/types.js';

const registry: HookRegistry = { widget: { sync: () => ({ status: { tls: true }, children: [] }) } };
const hookBody = JSON.stringify({ parent: { metadata: { name: 'blue' } }, children: {}, related: {}, finalizing: false });

function call(port: number, path: string, tls: { ca: string; cert?: string; key?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: path.startsWith('/hooks') ? 'POST' : 'GET',
        headers: { 'Content-Type': 'application/json' },
        agent: false,
        ...tls,
      },
      collectAnswer(resolve),
    );
    req.on('error', reject);
    req.end(path.startsWith('/hooks') ? hookBody : undefined);
  });
}

describe('TLS', () => {
  beforeAll(requireOpenssl);
  let dir = '';
  const servers: { running: RunningServer; signals: EventEmitter }[] = [];
  const read = (name: string): string => readFileSync(join(dir, name), 'utf8');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ironhook-tls-'));
    makeCa(dir, 'ca');
    makeCa(dir, 'rogue-ca');
    makeLeaf(dir, 'server', { ca: 'ca', ext: 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' });
    makeLeaf(dir, 'metacontroller', { ca: 'ca', ext: 'extendedKeyUsage=clientAuth\n' });
    makeLeaf(dir, 'intruder', { ca: 'rogue-ca', ext: 'extendedKeyUsage=clientAuth\n' });
  });

  afterAll(async () => {
    for (const { running } of servers) await running.shutdown.begin('test over');
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string>): Promise<number> {
    const signals = new EventEmitter();
    const running = await runHookServer({
      env: { HOST: '127.0.0.1', PORT: '0', SHUTDOWN_DELAY_SECONDS: '0', LOG_LEVEL: 'silent', ...env },
      readFile: (path) => readFileSync(path, 'utf8'),
      registry,
      signals,
      exit: () => undefined,
    });
    if (running === undefined) throw new Error('server did not start');
    servers.push({ running, signals });
    return running.address.port;
  }

  const tlsEnv = (): Record<string, string> => ({ TLS_CERT_FILE: join(dir, 'server.crt'), TLS_KEY_FILE: join(dir, 'server.key') });

  it('serves hooks over TLS without client certificates when no client CA is set', async () => {
    const port = await start(tlsEnv());
    const answer = await call(port, '/hooks/widget/sync', { ca: read('ca.crt') });
    expect(answer).toEqual({ status: 200, text: '{"children":[],"status":{"tls":true}}' });
  });

  describe('with TLS_CLIENT_CA_FILE', () => {
    let port = 0;
    beforeAll(async () => {
      port = await start({ ...tlsEnv(), TLS_CLIENT_CA_FILE: join(dir, 'ca.crt') });
    });

    it.each([
      ['a certificate from the client CA is accepted', 'metacontroller', 200],
      ['a certificate from another CA is refused', 'intruder', 401],
      ['no certificate is refused', undefined, 401],
    ] as const)('%s', async (_name, client, status) => {
      const creds = client === undefined ? {} : { cert: read(`${client}.crt`), key: read(`${client}.key`) };
      const answer = await call(port, '/hooks/widget/sync', { ca: read('ca.crt'), ...creds });
      expect(answer.status).toBe(status);
      if (status === 401) expect(JSON.parse(answer.text)).toEqual({ error: 'a verified client certificate is required' });
    });

    it.each(['/healthz', '/readyz', '/metrics'])('%s stays reachable without a client certificate (kubelet probes)', async (path) => {
      expect((await call(port, path, { ca: read('ca.crt') })).status).toBe(200);
    });
  });
});
