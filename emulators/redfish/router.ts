// Route table and dispatch: find the route by path, check credentials (unless public), then the
// method. A route scoped to a system takes the system id as its first parameter and needs that
// system's credentials.
import type { IncomingHttpHeaders } from 'node:http';
import type { AuthService } from './auth.js';
import { ifMatchAccepted, methodNotAllowed, noContent, notFound, preconditionFailed, strongETag, unauthorized } from './replies.js';
import type { Json, Reply } from './replies.js';
import type { EmulatedSystem } from './system.js';
import type { TaskService } from './tasks.js';
import type { ETagMode } from './types.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface EmulatorRequest {
  readonly method: string;
  /** Decoded path, without query and without a trailing slash (the root stays "/redfish/v1"). */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** Parsed JSON; undefined when the request had no body. */
  readonly body: unknown;
}

export interface EmulatorContext {
  readonly systems: ReadonlyMap<string, EmulatedSystem>;
  readonly auth: AuthService;
  readonly tasks: TaskService;
  readonly sessionService: boolean;
  readonly uuid: string;
}

export type Handler = (context: EmulatorContext, request: EmulatorRequest, params: string[]) => Reply | undefined;

export interface Route {
  readonly method: Method;
  readonly pattern: RegExp;
  readonly handler: Handler;
  /** No credentials needed (service root, session login). */
  readonly public?: boolean;
  /** The first parameter is a system id. */
  readonly scope?: 'system';
}

export function etagModeOf(system: EmulatedSystem): ETagMode {
  return system.config.etag ?? system.personality.etag;
}

/** The system a path is about (/Systems/<id>, /Managers/<id>, /Chassis/<id>), if any. */
export function systemOfPath(context: EmulatorContext, path: string): EmulatedSystem | undefined {
  const match = /^\/redfish\/v1\/(?:Systems|Managers|Chassis)\/([^/]+)/.exec(path);
  return match?.[1] === undefined ? undefined : context.systems.get(decodeURIComponent(match[1]));
}

function paramsOf(match: RegExpExecArray): string[] {
  return match.slice(1).map((part) => decodeURIComponent(part));
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function authorized(context: EmulatorContext, request: EmulatorRequest, target: EmulatedSystem | undefined): boolean {
  const credentials = { authorization: header(request.headers, 'authorization'), token: header(request.headers, 'x-auth-token') };
  return context.auth.authorized(credentials, target);
}

/** 401 or 404 before the handler runs; credentials are checked before a missing system is admitted. */
function admit(context: EmulatorContext, request: EmulatorRequest, route: Route, id: string | undefined): Reply | undefined {
  const target = route.scope === 'system' ? context.systems.get(id ?? '') : undefined;
  if (route.scope === 'system' && target === undefined) {
    return authorized(context, request, undefined) ? notFound(request.path) : unauthorized();
  }
  return route.public === true || authorized(context, request, target) ? undefined : unauthorized();
}

function choose(routes: readonly Route[], request: EmulatorRequest): { route: Route; match: RegExpExecArray } | undefined {
  const candidates = routes
    .map((route) => ({ route, match: route.pattern.exec(request.path) }))
    .filter((entry): entry is { route: Route; match: RegExpExecArray } => entry.match !== null);
  return candidates.find((entry) => entry.route.method === request.method) ?? candidates[0];
}

export function dispatch(routes: readonly Route[], context: EmulatorContext, request: EmulatorRequest): Reply {
  const chosen = choose(routes, request);
  if (chosen === undefined) {
    return notFound(request.path);
  }
  const { route } = chosen;
  const params = paramsOf(chosen.match);
  const gate = admit(context, request, route, params[0]);
  if (gate !== undefined) {
    return gate;
  }
  if (route.method !== request.method) {
    return methodNotAllowed(request.method, request.path);
  }
  return route.handler(context, request, params) ?? notFound(request.path);
}

export type SystemHandler = (system: EmulatedSystem, context: EmulatorContext, request: EmulatorRequest, rest: string[]) => Reply | undefined;

/** A handler for a system-scoped route: the system is looked up from the first parameter. */
export function forSystem(handler: SystemHandler): Handler {
  return (context, request, params) => {
    const [id, ...rest] = params;
    const system = context.systems.get(id ?? '');
    return system === undefined ? undefined : handler(system, context, request, rest);
  };
}

/** 412 when the request's If-Match does not fit the resource's current representation. */
export function checkIfMatch(system: EmulatedSystem, request: EmulatorRequest, current: Json): Reply | undefined {
  const accepted = ifMatchAccepted(header(request.headers, 'if-match'), strongETag(current), etagModeOf(system), system.config.requireIfMatch === true);
  return accepted ? undefined : preconditionFailed();
}

/** Runs an action now (204), or behind a task monitor (202) when the system uses async tasks. */
export function actionReply(context: EmulatorContext, system: EmulatedSystem, action: string, apply: () => void): Reply {
  const tasks = system.config.asyncTasks;
  if (tasks !== undefined) {
    return context.tasks.start(tasks, action, apply);
  }
  apply();
  return noContent();
}

export function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
