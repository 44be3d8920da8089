// The stand-in's own HTTP endpoints, like upstream's: /healthz and /readyz on
// --health-probe-bind-address, /metrics (hook request counters and latency) on --metrics-address.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { Counter, Histogram, Registry } from 'prom-client';
import type { HookMetrics } from './hooks/webhook.js';

export class Metrics implements HookMetrics {
  readonly registry = new Registry();
  private readonly counters = new Map<string, Counter>();
  private readonly histograms = new Map<string, Histogram>();

  constructor() {
    for (const hook of ['sync', 'finalize', 'customize']) {
      this.counters.set(hook, new Counter({ name: `metacontroller_${hook}_requests_total`, help: `${hook} hook requests`, labelNames: ['code', 'method', 'url'], registers: [this.registry] }));
      this.histograms.set(
        hook,
        new Histogram({ name: `metacontroller_${hook}_request_duration_histogram_seconds`, help: `${hook} hook latency`, labelNames: ['method', 'url'], registers: [this.registry] }),
      );
    }
  }

  observe(hook: string, url: string, code: string, seconds: number): void {
    this.counters.get(hook)?.inc({ code, method: 'POST', url });
    this.histograms.get(hook)?.observe({ method: 'POST', url }, seconds);
  }
}

async function listen(server: Server, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host === '' ? undefined : host, () => {
      resolve(server);
    });
  });
}

export async function startHealthServer(host: string, port: number, ready: () => boolean): Promise<Server> {
  const server = createServer((req, res) => {
    const ok = req.url === '/healthz' || (req.url === '/readyz' && ready());
    const known = req.url === '/healthz' || req.url === '/readyz';
    res.writeHead(known ? (ok ? 200 : 503) : 404, { 'content-type': 'text/plain' });
    res.end(ok ? 'ok' : 'not ready');
  });
  return listen(server, host, port);
}

export async function startMetricsServer(host: string, port: number, metrics: Metrics): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    metrics.registry
      .metrics()
      .then((text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text);
      })
      .catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
  });
  return listen(server, host, port);
}

export async function closeServer(server: Server | undefined): Promise<void> {
  if (server === undefined) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
}
