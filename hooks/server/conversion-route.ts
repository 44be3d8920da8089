// POST /convert: the CRD conversion webhook (apiextensions.k8s.io/v1 ConversionReview) for the
// Cluster API kinds served in v1beta2 and v1beta1. The API server calls it directly, without
// Metacontroller's webhook credentials, so the hook routes' authentication does not apply; the
// route only converts objects it is given and reads or writes nothing.
import express, { type Router } from 'express';
import { convertReview } from '../conversion/review.js';
import { HookInputError } from '../types.js';
import { errorFields, type Logger } from './logging.js';
import { sendError } from './errors.js';

export function conversionRouter(options: { bodyLimit: string | number; logger: Logger }): Router {
  const router = express.Router();
  router.post('/convert', express.json({ limit: options.bodyLimit, strict: true }), (req, res) => {
    try {
      res
        .status(200)
        .type('application/json')
        .send(JSON.stringify(convertReview(req.body)));
    } catch (error) {
      if (error instanceof HookInputError) {
        sendError(res, 400, { error: error.message, details: [...error.details] });
        return;
      }
      options.logger.error({ error: errorFields(error) }, 'conversion failed');
      sendError(res, 500, { error: 'internal error' });
    }
  });
  return router;
}
