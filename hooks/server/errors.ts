// Error answers. Every failure is a non-200 JSON object `{error, details?}`; messages are fixed
// texts, never echoes of the request body (a JSON parse error message quotes the input).
import type { ErrorRequestHandler, Response } from 'express';
import { errorFields, type Logger } from './logging.js';
import { callOf } from './call.js';

export interface ErrorBody {
  error: string;
  details?: readonly string[];
}

export function sendError(res: Response, status: number, body: ErrorBody): void {
  res.status(status).type('application/json').send(JSON.stringify(body));
}

interface HttpishError {
  status?: unknown;
  type?: unknown;
}

const BODY_ERRORS: Readonly<Record<string, { status: number; error: string }>> = {
  'entity.too.large': { status: 413, error: 'request body is larger than the server accepts' },
  'entity.parse.failed': { status: 400, error: 'request body is not valid JSON' },
  'entity.verify.failed': { status: 400, error: 'request body could not be read' },
  'encoding.unsupported': { status: 415, error: 'unsupported content encoding' },
  'charset.unsupported': { status: 415, error: 'unsupported charset; send UTF-8 JSON' },
  'request.aborted': { status: 400, error: 'request aborted' },
  'request.size.invalid': { status: 400, error: 'request size did not match content length' },
};

/** Maps an error from body parsing (or anything else) to a status and a fixed message. */
function classifyError(err: unknown): { status: number; error: string } {
  const e = (typeof err === 'object' && err !== null ? err : {}) as HttpishError;
  const known = typeof e.type === 'string' ? BODY_ERRORS[e.type] : undefined;
  if (known !== undefined) return known;
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    return { status: e.status, error: 'bad request' };
  }
  return { status: 500, error: 'internal error' };
}

/**
 * The last middleware. Body-parser failures become 4xx JSON answers; anything else is a 500
 * whose stack goes to the log only. The error object itself is never logged whole: body-parser
 * attaches the raw body to it.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  // express recognises an error handler by its four parameters, so `_next` stays.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  return (err: unknown, req, res, _next) => {
    const { status, error } = classifyError(err);
    const call = callOf(res);
    if (res.headersSent) {
      // Never let a started answer look complete (F1): cut the connection instead.
      logger.error({ err: errorFields(err) }, 'error after the response started; closing the connection');
      req.socket.destroy();
      return;
    }
    if (call !== undefined) {
      call.aborted = (err as HttpishError | undefined)?.type === 'request.aborted';
      call.failure = status >= 500 ? { error, err: errorFields(err) } : { error };
    } else if (status >= 500) {
      logger.error({ err: errorFields(err), path: req.path }, 'request failed');
    }
    sendError(res, status, { error });
  };
}
