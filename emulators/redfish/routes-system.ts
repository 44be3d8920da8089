// System routes: the ComputerSystem (GET with ETag, PATCH Boot with If-Match), the Reset action
// (ResetType checked against the personality's AllowableValues), ResetActionInfo, SecureBoot (GET,
// PATCH SecureBootEnable; enabling is refused in Legacy boot mode, as real BMCs do), and the
// inventory collections.
import { bios, drives, ethernetInterfaces, memoryGiBOf, memoryModules, processors, simpleStorage, storage } from './inventory.js';
import type { Member } from './inventory.js';
import { errorReply, malformed, noContent, ok, valueNotInList, withETag } from './replies.js';
import type { Json, Reply } from './replies.js';
import { collection, computerSystem, resetActionInfo, secureBootResource, systemPath } from './render.js';
import { actionReply, asObject, checkIfMatch, etagModeOf, forSystem } from './router.js';
import type { EmulatorContext, EmulatorRequest, Route } from './router.js';
import type { BootState, EmulatedSystem } from './system.js';

const SYSTEM = '^/redfish/v1/Systems/([^/]+)';

function renderSystem(system: EmulatedSystem): Json {
  const cpus = processors(system);
  const model = cpus[0]?.body.Model;
  return computerSystem(system, memoryGiBOf(system), { count: cpus.length, model: typeof model === 'string' ? model : '' });
}

const BOOT_FIELDS: Readonly<Record<string, keyof BootState>> = {
  BootSourceOverrideTarget: 'target',
  BootSourceOverrideEnabled: 'enabled',
  BootSourceOverrideMode: 'mode',
  HttpBootUri: 'httpBootUri',
};

function allowedFor(system: EmulatedSystem, field: keyof BootState): readonly string[] | undefined {
  if (field === 'target') {
    return system.personality.bootTargets;
  }
  if (field === 'enabled') {
    return system.config.continuousBoot === false ? ['Disabled', 'Once'] : ['Disabled', 'Once', 'Continuous'];
  }
  return field === 'mode' ? system.personality.bootModes : undefined;
}

type Validated = { readonly ok: true; readonly patch: Partial<BootState> } | { readonly ok: false; readonly reply: Reply };

function validateField(system: EmulatedSystem, key: string, value: unknown): Reply | undefined {
  const field = BOOT_FIELDS[key];
  if (field === undefined) {
    return errorReply(400, {
      messageId: 'PropertyUnknown',
      message: `The property ${key} is not in the list of valid properties for the resource.`,
      related: [`#/Boot/${key}`],
    });
  }
  const allowed = allowedFor(system, field);
  if (typeof value !== 'string' || (allowed !== undefined && !allowed.includes(value))) {
    return valueNotInList(`Boot/${key}`, value);
  }
  return undefined;
}

function validateBoot(system: EmulatedSystem, boot: Record<string, unknown>): Validated {
  const patch: Record<string, string> = {};
  for (const [key, value] of Object.entries(boot)) {
    const problem = validateField(system, key, value);
    if (problem !== undefined) {
      return { ok: false, reply: problem };
    }
    patch[BOOT_FIELDS[key] ?? key] = value as string;
  }
  if (system.personality.bootNeedsEnabled && patch.target !== undefined && patch.enabled === undefined) {
    const reply = errorReply(400, {
      messageId: 'PropertyMissing',
      message: 'The property BootSourceOverrideEnabled is a required property and must be included in the request.',
      related: ['#/Boot/BootSourceOverrideEnabled'],
    });
    return { ok: false, reply };
  }
  return { ok: true, patch: patch };
}

function patchSystem(system: EmulatedSystem, _context: EmulatorContext, request: EmulatorRequest): Reply {
  const precondition = checkIfMatch(system, request, renderSystem(system));
  if (precondition !== undefined) {
    return precondition;
  }
  const body = asObject(request.body);
  const others = Object.keys(body ?? {}).filter((key) => key !== 'Boot');
  if (others.length > 0) {
    return errorReply(400, {
      messageId: 'PropertyNotWritable',
      message: `The property ${others.join(', ')} is a read only property.`,
      related: others.map((key) => `#/${key}`),
    });
  }
  const boot = asObject(body?.Boot);
  if (boot === undefined) {
    return malformed('The request body must be a JSON object with a Boot object.');
  }
  const validated = validateBoot(system, boot);
  if (!validated.ok) {
    return validated.reply;
  }
  system.patchBoot(validated.patch, validated.patch.target !== undefined);
  return noContent();
}

function patchSecureBoot(system: EmulatedSystem, _context: EmulatorContext, request: EmulatorRequest): Reply | undefined {
  if (system.config.secureBoot === false) {
    return undefined;
  }
  const precondition = checkIfMatch(system, request, secureBootResource(system));
  if (precondition !== undefined) {
    return precondition;
  }
  const body = asObject(request.body) ?? {};
  const others = Object.keys(body).filter((key) => key !== 'SecureBootEnable');
  if (others.length > 0) {
    return errorReply(400, {
      messageId: 'PropertyNotWritable',
      message: `The property ${others.join(', ')} is a read only property.`,
      related: others.map((key) => `#/${key}`),
    });
  }
  const enable = body.SecureBootEnable;
  if (typeof enable !== 'boolean') {
    return malformed('The request body must be a JSON object with a boolean SecureBootEnable.');
  }
  if (enable && system.boot.mode === 'Legacy') {
    return errorReply(400, {
      messageId: 'PropertyValueConflict',
      message:
        'The property SecureBootEnable could not be written because its value would conflict with the value of the BootSourceOverrideMode property (Legacy).',
      related: ['#/SecureBootEnable', '#/Boot/BootSourceOverrideMode'],
    });
  }
  system.setSecureBoot(enable);
  return noContent();
}

function reset(system: EmulatedSystem, context: EmulatorContext, request: EmulatorRequest): Reply {
  const resetType = asObject(request.body)?.ResetType;
  if (typeof resetType !== 'string') {
    return errorReply(400, {
      messageId: 'ActionParameterMissing',
      message: 'The action ComputerSystem.Reset requires the parameter ResetType to be present in the request body.',
      related: ['#/ResetType'],
    });
  }
  if (!system.personality.resetTypes.includes(resetType)) {
    return errorReply(400, {
      messageId: 'ActionParameterValueNotInList',
      message: `The value ${resetType} for the parameter ResetType in the action ComputerSystem.Reset is not in the list of acceptable values.`,
      related: ['#/ResetType'],
    });
  }
  return actionReply(context, system, 'ComputerSystem.Reset', () => {
    system.reset(resetType);
  });
}

/** GET <system>/<name> (a collection) and GET <system>/<name>/<id> (a member). */
function memberRoutes(name: string, title: string, members: (system: EmulatedSystem) => Member[]): Route[] {
  return [
    {
      method: 'GET',
      pattern: new RegExp(`${SYSTEM}/${name}$`),
      scope: 'system',
      handler: forSystem((system) =>
        ok(
          collection(
            `${systemPath(system.id)}/${name}`,
            title,
            members(system).map((member) => `${systemPath(system.id)}/${name}/${member.id}`),
          ),
        ),
      ),
    },
    {
      method: 'GET',
      pattern: new RegExp(`${SYSTEM}/${name}/([^/]+)$`),
      scope: 'system',
      handler: forSystem((system, _context, _request, [id]) => {
        const member = members(system).find((entry) => entry.id === id);
        return member === undefined ? undefined : ok(member.body);
      }),
    },
  ];
}

const single = (body: Json): Member[] => [{ id: String(body.Id), body }];

export const SYSTEM_ROUTES: readonly Route[] = [
  { method: 'GET', pattern: new RegExp(`${SYSTEM}$`), scope: 'system', handler: forSystem((system) => withETag(renderSystem(system), etagModeOf(system))) },
  { method: 'PATCH', pattern: new RegExp(`${SYSTEM}$`), scope: 'system', handler: forSystem(patchSystem) },
  { method: 'POST', pattern: new RegExp(`${SYSTEM}/Actions/ComputerSystem\\.Reset$`), scope: 'system', handler: forSystem(reset) },
  {
    method: 'GET',
    pattern: new RegExp(`${SYSTEM}/ResetActionInfo$`),
    scope: 'system',
    handler: forSystem((system) => (system.personality.resetActionInfo ? ok(resetActionInfo(system)) : undefined)),
  },
  {
    method: 'GET',
    pattern: new RegExp(`${SYSTEM}/SecureBoot$`),
    scope: 'system',
    handler: forSystem((system) => (system.config.secureBoot === false ? undefined : withETag(secureBootResource(system), etagModeOf(system)))),
  },
  { method: 'PATCH', pattern: new RegExp(`${SYSTEM}/SecureBoot$`), scope: 'system', handler: forSystem(patchSecureBoot) },
  ...memberRoutes('Processors', 'Processors Collection', processors),
  ...memberRoutes('Memory', 'Memory Collection', memoryModules),
  ...memberRoutes('EthernetInterfaces', 'Ethernet Network Interface Collection', ethernetInterfaces),
  ...memberRoutes('Storage', 'Storage Collection', (system) => single(storage(system))),
  ...memberRoutes('Storage/1/Drives', 'Drive Collection', drives),
  ...memberRoutes('SimpleStorage', 'Simple Storage Collection', (system) => single(simpleStorage(system))),
  { method: 'GET', pattern: new RegExp(`${SYSTEM}/Bios$`), scope: 'system', handler: forSystem((system) => ok(bios(system))) },
];
