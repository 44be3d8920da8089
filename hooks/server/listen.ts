// The Node HTTP(S) server around the express app: timeouts tuned for Metacontroller's client,
// optional TLS with client-certificate verification (Metacontroller's `clientTLS`).
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { TlsFiles } from './settings.js';

/**
 * Metacontroller's hook client is a Go http.Client: a 10 s default total timeout per call, and
 * idle keep-alive connections it reuses for up to 90 s (Go's default IdleConnTimeout). If the
 * server closed an idle connection first, a POST racing that close fails and is not retried
 * by Go, which shows up as a SyncError (F8). So the server keeps idle connections a little
 * longer than the client does, and only bounds how long a request may take to arrive.
 */
const SERVER_TIMEOUTS = {
  keepAliveTimeoutMs: 95_000,
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 60_000,
} as const;

function tuned<T extends Server | HttpsServer>(server: T): T {
  server.keepAliveTimeout = SERVER_TIMEOUTS.keepAliveTimeoutMs;
  server.headersTimeout = SERVER_TIMEOUTS.headersTimeoutMs;
  server.requestTimeout = SERVER_TIMEOUTS.requestTimeoutMs;
  return server;
}

/** An HTTPS server (its certificate can be replaced with setSecureContext). */
export function createTlsServer(app: RequestListener, tls: TlsFiles): HttpsServer {
  return tuned(
    createHttpsServer(
      {
        cert: tls.cert,
        key: tls.key,
        minVersion: 'TLSv1.2',
        // With a client CA the handshake asks for a certificate; the hook routes refuse
        // unverified peers while the probes and /metrics stay reachable for the kubelet.
        ...(tls.clientCa === undefined ? {} : { ca: tls.clientCa, requestCert: true, rejectUnauthorized: false }),
      },
      app,
    ),
  );
}

export function createNodeServer(app: RequestListener, tls?: TlsFiles): Server {
  return tls === undefined ? tuned(createHttpServer(app)) : createTlsServer(app, tls);
}

/** Resolves once the server listens; rejects on a listen error (port in use, bad host). */
export function listen(server: Server | HttpsServer, port: number, host: string): Promise<{ port: number; host: string }> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      reject(err);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? { port: address.port, host: address.address } : { port, host });
    });
  });
}
