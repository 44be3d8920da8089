// The conversion listener (CONVERSION_TLS_PORT) end to end on loopback: the hook port stays plain
// HTTP for Metacontroller while a second HTTPS port serves only POST /convert and the probes, with
// a throwaway CA from openssl; a renewed certificate is served without a restart; shutdown closes
// both ports; a conversion port that cannot be bound stops the process.
import { EventEmitter } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHookServer, type RunningServer } from '../../hooks/server/run.js';
import { realTimers, type Timers } from '../../hooks/server/shutdown.js';
import { TLS_RELOAD_INTERVAL_MS } from '../../hooks/server/tls-reload.js';
import type { HookRegistry } from '../../hooks/types.js';
import { requireOpenssl, makeCa, makeLoopbackServingCert, readPem } from '../../devenv/tls.js';

const registry: HookRegistry = { widget: { sync: () => ({ status: { plain: true }, children: [] }) } };
const hookBody = JSON.stringify({ parent: { metadata: { name: 'blue' } }, children: {}, related: {}, finalizing: false });

const review = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  request: {
    uid: 'b7e1-tls',
    desiredAPIVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    objects: [
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'Metal3DataTemplate',
        metadata: { name: 'workers', namespace: 'metal3' },
        spec: {
          clusterName: 'lab',
          metaData: { ipAddressesFromIPPool: [{ key: 'ip', name: 'pool-a' }] },
        },
      },
    ],
  },
};

interface Answer {
  status: number;
  text: string;
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
}

function collect(resolve: (answer: Answer) => void): (res: import('node:http').IncomingMessage) => void {
  return (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    res.on('end', () => {
      resolve({ status: res.statusCode ?? 0, text });
    });
  };
}

function overHttps(port: number, ca: string, call: Call): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port, path: call.path, method: call.method, headers: { 'Content-Type': 'application/json' }, agent: false, ca },
      collect(resolve),
    );
    req.on('error', reject);
    req.end(call.body);
  });
}

function overHttp(port: number, call: Call): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: call.path, method: call.method, headers: { 'Content-Type': 'application/json' }, agent: false },
      collect(resolve),
    );
    req.on('error', reject);
    req.end(call.body);
  });
}

/** Real timers that also remember every interval, so a test can run the reload tick itself. */
function recordingTimers(): Timers & { intervals: { fn: () => void; ms: number }[] } {
  const intervals: { fn: () => void; ms: number }[] = [];
  return {
    ...realTimers,
    intervals,
    setInterval: (fn, ms) => {
      intervals.push({ fn, ms });
      return realTimers.setInterval(fn, ms);
    },
  };
}

const convert: Call = { method: 'POST', path: '/convert', body: JSON.stringify(review) };

describe('the conversion listener', () => {
  beforeAll(requireOpenssl);
  let dir = '';
  const started: RunningServer[] = [];
  const pem = (file: string): string => readPem(dir, file);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ironhook-conversion-tls-'));
    makeCa(dir, 'ca');
    makeCa(dir, 'next-ca');
    makeLoopbackServingCert(dir, 'first', 'ca');
    makeLoopbackServingCert(dir, 'renewed', 'next-ca');
    copyFileSync(join(dir, 'first.crt'), join(dir, 'tls.crt'));
    copyFileSync(join(dir, 'first.key'), join(dir, 'tls.key'));
  });

  afterAll(async () => {
    for (const running of started) await running.shutdown.begin('test over');
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(extra: { env?: Record<string, string>; timers?: Timers; exit?: (code: number) => void } = {}): Promise<RunningServer | undefined> {
    const running = await runHookServer({
      env: {
        HOST: '127.0.0.1',
        PORT: '0',
        SHUTDOWN_DELAY_SECONDS: '0',
        LOG_LEVEL: 'silent',
        CONVERSION_TLS_PORT: '0',
        CONVERSION_TLS_CERT_FILE: join(dir, 'tls.crt'),
        CONVERSION_TLS_KEY_FILE: join(dir, 'tls.key'),
        ...extra.env,
      },
      readFile: (path) => readFileSync(path, 'utf8'),
      registry,
      signals: new EventEmitter(),
      exit: extra.exit ?? (() => undefined),
      ...(extra.timers === undefined ? {} : { timers: extra.timers }),
    });
    if (running !== undefined) started.push(running);
    return running;
  }

  describe('serving', () => {
    let running: RunningServer;
    beforeAll(async () => {
      const server = await start();
      if (server?.conversion === undefined) throw new Error('no conversion listener');
      running = server;
    });

    it('converts a v1beta1 Metal3DataTemplate over HTTPS, verified against the CA', async () => {
      const answer = await overHttps(running.conversion!.address.port, pem('ca.crt'), convert);
      expect(answer.status).toBe(200);
      const response = (
        JSON.parse(answer.text) as {
          response: { uid: string; result: { status: string }; convertedObjects: { apiVersion: string; spec: { metaData: unknown } }[] };
        }
      ).response;
      expect(response.uid).toBe('b7e1-tls');
      expect(response.result).toEqual({ status: 'Success' });
      expect(response.convertedObjects[0]?.apiVersion).toBe('infrastructure.cluster.x-k8s.io/v1beta2');
      expect(response.convertedObjects[0]?.spec.metaData).toEqual({ ipAddressesFromPool: [{ key: 'ip', name: 'pool-a' }] });
    });

    it.each([
      ['/healthz answers the kubelet', { method: 'GET', path: '/healthz' }, 200],
      ['/readyz answers the kubelet', { method: 'GET', path: '/readyz' }, 200],
      ['a body that is not a ConversionReview is a 400', { method: 'POST', path: '/convert', body: '{"kind":"Nope"}' }, 400],
      ['hook routes are not served there', { method: 'POST', path: '/hooks/widget/sync', body: hookBody }, 404],
      ['/metrics is not served there', { method: 'GET', path: '/metrics' }, 404],
    ] as const)('%s', async (_name, call, status) => {
      expect((await overHttps(running.conversion!.address.port, pem('ca.crt'), call)).status).toBe(status);
    });

    it('keeps the hook port plain HTTP for Metacontroller, on another port', async () => {
      expect(running.address.port).not.toBe(running.conversion!.address.port);
      const answer = await overHttp(running.address.port, { method: 'POST', path: '/hooks/widget/sync', body: hookBody });
      expect(answer).toEqual({ status: 200, text: '{"children":[],"status":{"plain":true}}' });
    });

    it('refuses plain HTTP on the conversion port', async () => {
      await expect(overHttp(running.conversion!.address.port, { method: 'GET', path: '/healthz' })).rejects.toThrow();
    });
  });

  it('serves a renewed certificate from the same files without a restart, and keeps it when the files are broken', async () => {
    const timers = recordingTimers();
    const running = await start({ timers });
    const port = running!.conversion!.address.port;
    const tick = timers.intervals.find((i) => i.ms === TLS_RELOAD_INTERVAL_MS);
    expect(tick, 'a reload interval is registered').toBeDefined();
    expect(running!.conversion!.reload.check()).toBe('unchanged');
    copyFileSync(join(dir, 'renewed.crt'), join(dir, 'tls.crt'));
    copyFileSync(join(dir, 'renewed.key'), join(dir, 'tls.key'));
    tick!.fn();
    expect((await overHttps(port, pem('next-ca.crt'), { method: 'GET', path: '/healthz' })).status).toBe(200);
    await expect(overHttps(port, pem('ca.crt'), { method: 'GET', path: '/healthz' })).rejects.toThrow(/certificate/);
    writeFileSync(join(dir, 'tls.key'), 'not a key');
    expect(running!.conversion!.reload.check()).toBe('failed');
    expect((await overHttps(port, pem('next-ca.crt'), convert)).status).toBe(200);
    copyFileSync(join(dir, 'first.crt'), join(dir, 'tls.crt'));
    copyFileSync(join(dir, 'first.key'), join(dir, 'tls.key'));
  });

  it('closes both ports on shutdown', async () => {
    const running = (await start())!;
    const ports = [running.address.port, running.conversion!.address.port];
    expect(await running.shutdown.begin('test')).toBe(0);
    await expect(overHttp(ports[0]!, { method: 'GET', path: '/healthz' })).rejects.toThrow(/ECONNREFUSED/);
    await expect(overHttps(ports[1]!, pem('ca.crt'), { method: 'GET', path: '/healthz' })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('exits 1 when the conversion port is taken', async () => {
    const first = (await start())!;
    const codes: number[] = [];
    const second = await start({ env: { CONVERSION_TLS_PORT: String(first.conversion!.address.port) }, exit: (code) => codes.push(code) });
    expect(second).toBeUndefined();
    expect(codes).toEqual([1]);
  });
});
