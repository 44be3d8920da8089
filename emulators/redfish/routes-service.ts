// Service-level routes: the root, the Systems/Managers/Chassis collections, Managers and
// Chassis members, the session service, and task monitors.
import { errorReply, noContent, ok } from './replies.js';
import type { Reply } from './replies.js';
import { SESSIONS, V1, chassis, chassisPath, collection, manager, managerPath, serviceRoot, systemPath } from './render.js';
import { forSystem } from './router.js';
import type { EmulatorContext, EmulatorRequest, Route } from './router.js';

const ID = '([^/]+)';

function sessionBody(id: string, username: string): Record<string, unknown> {
  return { '@odata.id': `${SESSIONS}/${id}`, '@odata.type': '#Session.v1_3_0.Session', Id: id, Name: `User Session ${id}`, UserName: username };
}

function login(context: EmulatorContext, request: EmulatorRequest): Reply {
  const body = request.body as Record<string, unknown> | undefined;
  const outcome = context.auth.login(body?.UserName, body?.Password);
  if (outcome.kind === 'unauthorized') {
    return errorReply(401, { messageId: 'NoValidSession', message: 'Invalid username or password.' });
  }
  if (outcome.kind === 'limit') {
    return errorReply(
      503,
      {
        messageId: 'SessionLimitExceeded',
        message: 'The session establishment failed due to the number of simultaneous sessions exceeding the limit of the implementation.',
      },
      { 'retry-after': '10' },
    );
  }
  const { session } = outcome;
  return {
    status: 201,
    headers: { 'x-auth-token': session.token, location: `${SESSIONS}/${session.id}` },
    body: sessionBody(session.id, session.username),
  };
}

const systemIds = (context: EmulatorContext): string[] => [...context.systems.keys()];

export const SERVICE_ROUTES: readonly Route[] = [
  { method: 'GET', pattern: /^\/redfish$/, public: true, handler: () => ok({ v1: `${V1}/` }) },
  {
    method: 'GET',
    pattern: /^\/redfish\/v1$/,
    public: true,
    handler: (context) => ok(serviceRoot({ sessionService: context.sessionService, uuid: context.uuid })),
  },
  {
    method: 'GET',
    pattern: /^\/redfish\/v1\/Systems$/,
    handler: (context) => ok(collection(`${V1}/Systems`, 'Computer System Collection', systemIds(context).map(systemPath))),
  },
  {
    method: 'GET',
    pattern: /^\/redfish\/v1\/Managers$/,
    handler: (context) => ok(collection(`${V1}/Managers`, 'Manager Collection', systemIds(context).map(managerPath))),
  },
  {
    method: 'GET',
    pattern: /^\/redfish\/v1\/Chassis$/,
    handler: (context) => ok(collection(`${V1}/Chassis`, 'Chassis Collection', systemIds(context).map(chassisPath))),
  },
  { method: 'GET', pattern: new RegExp(`^/redfish/v1/Managers/${ID}$`), scope: 'system', handler: forSystem((system) => ok(manager(system))) },
  { method: 'GET', pattern: new RegExp(`^/redfish/v1/Chassis/${ID}$`), scope: 'system', handler: forSystem((system) => ok(chassis(system))) },
  {
    method: 'GET',
    pattern: /^\/redfish\/v1\/SessionService$/,
    handler: (context) =>
      context.sessionService
        ? ok({
            '@odata.id': `${V1}/SessionService`,
            '@odata.type': '#SessionService.v1_1_8.SessionService',
            Id: 'SessionService',
            Name: 'Session Service',
            ServiceEnabled: true,
            SessionTimeout: 1800,
            Sessions: { '@odata.id': SESSIONS },
          })
        : undefined,
  },
  {
    method: 'GET',
    pattern: /^\/redfish\/v1\/SessionService\/Sessions$/,
    handler: (context) =>
      context.sessionService
        ? ok(
            collection(
              SESSIONS,
              'Session Collection',
              context.auth.list().map((session) => `${SESSIONS}/${session.id}`),
            ),
          )
        : undefined,
  },
  {
    method: 'POST',
    pattern: /^\/redfish\/v1\/SessionService\/Sessions$/,
    public: true,
    handler: (context, request) => (context.sessionService ? login(context, request) : undefined),
  },
  {
    method: 'GET',
    pattern: new RegExp(`^/redfish/v1/SessionService/Sessions/${ID}$`),
    handler: (context, _request, [id]) => {
      const session = context.auth.byId(id ?? '');
      return session === undefined ? undefined : ok(sessionBody(session.id, session.username));
    },
  },
  {
    method: 'DELETE',
    pattern: new RegExp(`^/redfish/v1/SessionService/Sessions/${ID}$`),
    handler: (context, _request, [id]) => (context.auth.logout(id ?? '') ? noContent() : undefined),
  },
  {
    method: 'GET',
    pattern: /^\/redfish\/v1\/TaskService$/,
    handler: (context) =>
      ok({
        '@odata.id': `${V1}/TaskService`,
        Id: 'TaskService',
        Name: 'Task Service',
        ServiceEnabled: true,
        Tasks: { '@odata.id': `${V1}/TaskService/Tasks` },
        'Tasks@odata.count': context.tasks.ids().length,
      }),
  },
  {
    method: 'GET',
    pattern: /^\/redfish\/v1\/TaskService\/Tasks$/,
    handler: (context) =>
      ok(
        collection(
          `${V1}/TaskService/Tasks`,
          'Task Collection',
          context.tasks.ids().map((id) => `${V1}/TaskService/Tasks/${id}`),
        ),
      ),
  },
  { method: 'GET', pattern: new RegExp(`^/redfish/v1/TaskService/Tasks/${ID}$`), handler: (context, _request, [id]) => context.tasks.task(id ?? '') },
  { method: 'GET', pattern: new RegExp(`^/redfish/v1/TaskService/TaskMonitors/${ID}$`), handler: (context, _request, [id]) => context.tasks.monitor(id ?? '') },
];
