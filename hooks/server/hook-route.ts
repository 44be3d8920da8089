// `POST /hooks/:controller/:hook`: authenticate, find the hook, accept JSON only, parse within
// the body limit, check the request shape, run the pure function, check the response shape,
// answer in canonical JSON. Each step that fails answers a non-200 JSON error and stops.
import express, { type RequestHandler, type Response, type Router } from 'express';
import { HookInputError, type HookConfig, type HookContext, type HookFunction, type HookKind, type HookRegistry } from '../types.js';
import { challengeFor, checkAuthorization, type HookAuth } from './auth.js';
import { callOf, observeHookCall, type CallDeps, type CallFailure, type HookCall } from './call.js';
import { sendError, type ErrorBody } from './errors.js';
import { errorFields } from './logging.js';
import { checkRequest, checkResponse, targetOf, type RequestFlavour } from './validation.js';
import { canonicalJSON } from '../../domain/canonical.js';
import { isRecord } from '../../domain/records.js';

const HOOK_KINDS: readonly HookKind[] = ['sync', 'finalize', 'customize'];
const HOOK_PATH = '/hooks/:controller/:hook';

export interface HookRouteOptions extends CallDeps {
  registry: HookRegistry;
  config: HookConfig;
  bodyLimit: string | number;
  auth?: HookAuth;
  /** Hook calls must come over TLS with a client certificate the server's CA verified. */
  requireClientCert?: boolean;
}

type Outcome = { status: 200; text: string } | { status: 400 | 500; body: ErrorBody; failure: CallFailure };

const INTERNAL: ErrorBody = { error: 'internal error' };
const JSON_MEDIA_TYPE = /^application\/(?:[\w.-]+\+)?json$/i;

function mustCall(res: Response): HookCall {
  const call = callOf(res);
  if (call === undefined) throw new Error('hook call state missing: observeHookCall must run first');
  return call;
}

function fail(res: Response, status: number, body: ErrorBody): void {
  mustCall(res).failure = body.details === undefined ? { error: body.error } : { error: body.error, details: body.details };
  sendError(res, status, body);
}

function clientCertOk(socket: unknown): boolean {
  // A TLS socket whose peer certificate chained to the configured client CA.
  return (socket as { authorized?: unknown }).authorized === true;
}

function authenticate(options: HookRouteOptions): RequestHandler {
  const { auth, requireClientCert = false } = options;
  return (req, res, next) => {
    if (requireClientCert && !clientCertOk(req.socket)) {
      fail(res, 401, { error: 'a verified client certificate is required' });
      return;
    }
    if (auth !== undefined) {
      const outcome = checkAuthorization(auth, req.headers.authorization);
      if (outcome !== 'ok') {
        res.setHeader('WWW-Authenticate', challengeFor(auth));
        fail(res, 401, { error: outcome === 'missing' ? 'authorization required' : 'invalid credentials' });
        return;
      }
    }
    next();
  };
}

function isHookKind(value: string): value is HookKind {
  return (HOOK_KINDS as readonly string[]).includes(value);
}

/** Looks the hook up with own-property checks only (`constructor`, `__proto__` are not hooks). */
function lookupHook(registry: HookRegistry, controller: string, hook: string): HookFunction | undefined {
  if (!isHookKind(hook) || !Object.hasOwn(registry, controller)) return undefined;
  const hooks = registry[controller];
  if (hooks === undefined || !Object.hasOwn(hooks, hook)) return undefined;
  return hooks[hook];
}

function resolve(registry: HookRegistry): RequestHandler<{ controller: string; hook: string }> {
  return (req, res, next) => {
    const { controller, hook } = req.params;
    const fn = lookupHook(registry, controller, hook);
    if (fn === undefined) {
      fail(res, 404, { error: 'no such hook' });
      return;
    }
    const call = mustCall(res);
    call.controller = controller;
    call.hook = hook;
    res.locals.hookFunction = fn;
    next();
  };
}

const requireJson: RequestHandler = (req, res, next) => {
  const mediaType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
  if (!JSON_MEDIA_TYPE.test(mediaType)) {
    fail(res, 415, { error: 'request content type must be application/json' });
    return;
  }
  next();
};

function parseJson(bodyLimit: string | number): RequestHandler {
  return express.json({
    limit: bodyLimit,
    strict: false, // top-level shape is checked below with a clearer message
    type: () => true, // requireJson already decided
    verify: (_req, res, buf) => {
      const call = callOf(res as Response);
      if (call !== undefined) call.bytes = buf.length;
    },
  });
}

/** Runs the pure hook and turns every way it can go wrong into a non-200 outcome. */
function invokeHook(fn: HookFunction, request: unknown, context: HookContext, flavour: RequestFlavour): Outcome {
  let result: unknown;
  try {
    result = fn(request, context);
  } catch (err) {
    if (err instanceof HookInputError) {
      const body = { error: err.message, details: [...err.details] };
      return { status: 400, body, failure: body };
    }
    return { status: 500, body: INTERNAL, failure: { error: 'hook threw', err: errorFields(err) } };
  }
  const check = checkResponse(flavour, result);
  if (!check.ok) {
    return { status: 500, body: INTERNAL, failure: { error: 'hook returned an invalid response', details: check.details } };
  }
  try {
    // Keys sorted at every level, here and only here: equal answers are equal text, so
    // Metacontroller sees no change where there is none.
    return { status: 200, text: canonicalJSON(result) };
  } catch (err) {
    return { status: 500, body: INTERNAL, failure: { error: 'hook response is not serialisable', err: errorFields(err) } };
  }
}

function runHook(context: HookContext): RequestHandler {
  return (req, res) => {
    const call = mustCall(res);
    const body: unknown = req.body;
    Object.assign(call, targetOf(body));
    if (!isRecord(body)) {
      fail(res, 400, { error: 'request body must be a JSON object', details: [] });
      return;
    }
    const shape = checkRequest(call.hook as HookKind, body);
    if (!shape.ok) {
      fail(res, 400, { error: shape.error ?? `not a Metacontroller v2 ${shape.flavour} request`, details: shape.details });
      return;
    }
    const outcome = invokeHook(res.locals.hookFunction as HookFunction, body, context, shape.flavour);
    if (outcome.status === 200) {
      res.status(200).type('application/json').send(outcome.text);
      return;
    }
    call.failure = outcome.failure;
    sendError(res, outcome.status, outcome.body);
  };
}

const methodNotAllowed: RequestHandler = (_req, res) => {
  res.setHeader('Allow', 'POST');
  sendError(res, 405, { error: 'hooks accept POST only' });
};

export function hookRouter(options: HookRouteOptions): Router {
  const context: HookContext = Object.freeze({ config: Object.freeze({ ...options.config }) });
  const router = express.Router();
  router.post(
    HOOK_PATH,
    observeHookCall(options),
    authenticate(options),
    resolve(options.registry),
    requireJson,
    parseJson(options.bodyLimit),
    runHook(context),
  );
  router.all(HOOK_PATH, methodNotAllowed);
  return router;
}
