// The hook server's express application: pure wiring, no listening, testable with supertest.
import express, { type Express, type RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import type { HookConfig, HookRegistry } from '../types.js';
import type { HookAuth } from './auth.js';
import { conversionRouter } from './conversion-route.js';
import { errorHandler, sendError } from './errors.js';
import { hookRouter } from './hook-route.js';
import { silentLogger, type Logger } from './logging.js';
import { createHookMetrics, type HookMetrics } from './metrics.js';
import { createReadiness, type Readiness } from './readiness.js';

/** Metacontroller requests carry whole objects (status, managedFields) for every child: F18. */
export const DEFAULT_BODY_LIMIT = '64mb';

export interface HookServerOptions {
  registry: HookRegistry;
  config: HookConfig;
  /** Defaults to a silent logger. */
  logger?: Logger;
  /** Registry for the server's metrics; a new one (with Node's default metrics) when absent. */
  metricsRegistry?: Registry;
  /** express/body-parser size: bytes or a string like `64mb`. */
  bodyLimit?: string | number;
  auth?: HookAuth;
  /** Hook routes demand a verified TLS client certificate (the listener must request one). */
  requireClientCert?: boolean;
  /** Defaults to always ready (an app under supertest is "listening" whenever it is called). */
  readiness?: Readiness;
  /** Monotonic milliseconds, for durations. */
  now?: () => number;
}

export interface HookServerApp extends Express {
  readonly hookMetrics: HookMetrics;
}

function probes(readiness: Readiness, metrics: HookMetrics): express.Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  router.get('/readyz', (_req, res) => {
    const state = readiness.state();
    res.status(state === 'ready' ? 200 : 503).json({ status: state });
  });
  router.get('/metrics', (_req, res, next) => {
    metrics.registry.metrics().then((text) => {
      res.status(200).type(metrics.registry.contentType).send(text);
    }, next);
  });
  return router;
}

/** While shutting down, answers tell clients not to reuse the connection. */
export function closeWhenDraining(readiness: Readiness): RequestHandler {
  return (_req, res, next) => {
    if (readiness.state() === 'shutting-down') res.setHeader('Connection', 'close');
    next();
  };
}

export const notFound: RequestHandler = (_req, res) => {
  sendError(res, 404, { error: 'not found' });
};

export function createHookServer(options: HookServerOptions): HookServerApp {
  const logger = options.logger ?? silentLogger();
  const metrics = createHookMetrics(options.metricsRegistry === undefined ? {} : { registry: options.metricsRegistry });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false); // POST answers are never 304s; hashing multi-MB bodies buys nothing
  const readiness = options.readiness ?? createReadiness('ready');
  app.use(closeWhenDraining(readiness));
  app.use(probes(readiness, metrics));
  app.use(conversionRouter({ bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT, logger }));
  app.use(
    hookRouter({
      registry: options.registry,
      config: options.config,
      bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
      metrics,
      logger,
      now: options.now ?? (() => performance.now()),
      ...(options.auth === undefined ? {} : { auth: options.auth }),
      requireClientCert: options.requireClientCert ?? false,
    }),
  );
  app.use(notFound);
  app.use(errorHandler(logger));
  return Object.assign(app, { hookMetrics: metrics });
}
