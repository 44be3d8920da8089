// The express application of the conversion listener (CONVERSION_TLS_PORT): only POST /convert
// and the probes. The API server reaches it from outside the pod network, so it serves nothing
// else — no hook routes, no /metrics — and asks for no credentials (conversion reads and writes
// nothing; docs/metal3data.md, "Conversion").
import express, { type Express } from 'express';
import { closeWhenDraining, notFound } from './app.js';
import { conversionRouter } from './conversion-route.js';
import { errorHandler } from './errors.js';
import type { Logger } from './logging.js';
import type { Readiness } from './readiness.js';

export interface ConversionServerOptions {
  bodyLimit: string | number;
  logger: Logger;
  readiness: Readiness;
}

export function createConversionServer(options: ConversionServerOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(closeWhenDraining(options.readiness));
  app.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    const state = options.readiness.state();
    res.status(state === 'ready' ? 200 : 503).json({ status: state });
  });
  app.use(conversionRouter({ bodyLimit: options.bodyLimit, logger: options.logger }));
  app.use(notFound);
  app.use(errorHandler(options.logger));
  return app;
}
