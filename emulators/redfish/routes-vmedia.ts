// Virtual media routes, under the System or the Manager as the personality says: the collection,
// each device (GET with ETag, PATCH Image/Inserted with If-Match), and the InsertMedia and
// EjectMedia actions with the vendor quirks (Supermicro's parameters, HPE's `{}` eject body).
import { errorReply, malformed, ok, withETag } from './replies.js';
import type { Reply } from './replies.js';
import { collection, mediaCollectionPath, virtualMedia } from './render.js';
import { actionReply, asObject, checkIfMatch, etagModeOf, forSystem } from './router.js';
import type { EmulatorContext, EmulatorRequest, Route, SystemHandler } from './router.js';
import type { EmulatedSystem } from './system.js';

const UNDER = '^/redfish/v1/(?:Systems|Managers)/([^/]+)/VirtualMedia';

/** Only the personality's own location answers; the other one is a 404. */
function located(handler: SystemHandler): SystemHandler {
  return (system, context, request, rest) =>
    request.path.startsWith(mediaCollectionPath(system)) && system.mediaDevices().length > 0 ? handler(system, context, request, rest) : undefined;
}

function missing(parameter: string, action: string): Reply {
  return errorReply(400, {
    messageId: 'ActionParameterMissing',
    message: `The action ${action} requires the parameter ${parameter} to be present in the request body.`,
    related: [`#/${parameter}`],
  });
}

function imageProblem(image: unknown): Reply | undefined {
  if (typeof image !== 'string') {
    return missing('Image', 'VirtualMedia.InsertMedia');
  }
  if (!/^https?:\/\//i.test(image)) {
    return errorReply(400, {
      messageId: 'PropertyValueFormatError',
      message: `The value ${image} for the property Image is of a different format than the property can accept.`,
      related: ['#/Image'],
    });
  }
  return undefined;
}

function quirkProblem(system: EmulatedSystem, body: Record<string, unknown>): Reply | undefined {
  const { personality } = system;
  const flags = ['Inserted', 'WriteProtected'].filter((key) => key in body);
  if (personality.insertRejectsFlags && flags.length > 0) {
    return errorReply(400, {
      messageId: 'ActionParameterNotSupported',
      message: `The parameter ${flags.join(', ')} for the action VirtualMedia.InsertMedia is not supported on the target resource.`,
      related: flags.map((key) => `#/${key}`),
    });
  }
  if (personality.insertNeedsTransferProtocol && typeof body.TransferProtocolType !== 'string') {
    return missing('TransferProtocolType', 'VirtualMedia.InsertMedia');
  }
  return undefined;
}

function insert(system: EmulatedSystem, context: EmulatorContext, request: EmulatorRequest, [device]: string[]): Reply | undefined {
  if (device === undefined || !system.media.has(device) || !system.personality.virtualMediaActions) {
    return undefined;
  }
  const body = asObject(request.body);
  if (body === undefined) {
    return malformed('InsertMedia needs a JSON object body.');
  }
  const problem = imageProblem(body.Image) ?? quirkProblem(system, body);
  if (problem !== undefined) {
    return problem;
  }
  const image = body.Image as string;
  return actionReply(context, system, 'VirtualMedia.InsertMedia', () => {
    system.insertMedia(device, image, body.WriteProtected !== false);
  });
}

function eject(system: EmulatedSystem, context: EmulatorContext, request: EmulatorRequest, [device]: string[]): Reply | undefined {
  if (device === undefined || !system.media.has(device) || !system.personality.virtualMediaActions) {
    return undefined;
  }
  if (system.personality.ejectNeedsBody && request.body === undefined) {
    return errorReply(400, { messageId: 'UnrecognizedRequestBody', message: 'The service detected a malformed request body that it was unable to interpret.' });
  }
  return actionReply(context, system, 'VirtualMedia.EjectMedia', () => {
    system.ejectMedia(device);
  });
}

function patchMedia(system: EmulatedSystem, _context: EmulatorContext, request: EmulatorRequest, [device]: string[]): Reply | undefined {
  const current = virtualMedia(system, device ?? '');
  if (current === undefined || device === undefined) {
    return undefined;
  }
  const precondition = checkIfMatch(system, request, current);
  if (precondition !== undefined) {
    return precondition;
  }
  const body = asObject(request.body);
  if (body === undefined) {
    return malformed('The request body must be a JSON object.');
  }
  if (body.Image === null || body.Inserted === false) {
    system.ejectMedia(device);
    return { status: 204 };
  }
  const problem = imageProblem(body.Image);
  if (problem !== undefined) {
    return problem;
  }
  system.insertMedia(device, body.Image as string, body.WriteProtected !== false);
  return { status: 204 };
}

export const VMEDIA_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    pattern: new RegExp(`${UNDER}$`),
    scope: 'system',
    handler: forSystem(
      located((system) => {
        const path = mediaCollectionPath(system);
        return ok(
          collection(
            path,
            'Virtual Media Services',
            system.mediaDevices().map((device) => `${path}/${encodeURIComponent(device.id)}`),
          ),
        );
      }),
    ),
  },
  {
    method: 'GET',
    pattern: new RegExp(`${UNDER}/([^/]+)$`),
    scope: 'system',
    handler: forSystem(
      located((system, _context, _request, [device]) => {
        const body = virtualMedia(system, device ?? '');
        return body === undefined ? undefined : withETag(body, etagModeOf(system));
      }),
    ),
  },
  { method: 'PATCH', pattern: new RegExp(`${UNDER}/([^/]+)$`), scope: 'system', handler: forSystem(located(patchMedia)) },
  { method: 'POST', pattern: new RegExp(`${UNDER}/([^/]+)/Actions/VirtualMedia\\.InsertMedia$`), scope: 'system', handler: forSystem(located(insert)) },
  { method: 'POST', pattern: new RegExp(`${UNDER}/([^/]+)/Actions/VirtualMedia\\.EjectMedia$`), scope: 'system', handler: forSystem(located(eject)) },
];
