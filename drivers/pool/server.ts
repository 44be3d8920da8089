// The pool's HTTP endpoints on METRICS_PORT (the chart's PORT): /metrics (Prometheus), /healthz
// (the process runs and its event loop answers), /readyz (watches synced on the leader, or
// standing by; 503 while shutting down).
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { Registry } from 'prom-client';

export interface ProbeState {
  ready(): boolean;
  /** Why not ready, for the 503 body. */
  reason(): string;
}

export function createProbeServer(registry: Registry, probes: ProbeState): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
      return;
    }
    if (path === '/readyz') {
      const ready = probes.ready();
      response.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' }).end(ready ? 'ok\n' : `${probes.reason()}\n`);
      return;
    }
    if (path === '/metrics') {
      registry.metrics().then(
        (text) => {
          response.writeHead(200, { 'content-type': registry.contentType }).end(text);
        },
        () => {
          response.writeHead(500).end();
        },
      );
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
  });
}

export async function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

export async function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}
