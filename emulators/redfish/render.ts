// The emulator's resources as JSON, in sushy-tools' URL layout: /redfish/v1/Systems/<id>,
// Managers/<id>, Chassis/<id>, with DMTF-style payloads (written here, not copied).
import { createHash } from 'node:crypto';
import type { Json } from './replies.js';
import type { EmulatedSystem } from './system.js';

export const V1 = '/redfish/v1';
export const SESSIONS = `${V1}/SessionService/Sessions`;

export const link = (path: string): Json => ({ '@odata.id': path });

export const systemPath = (id: string): string => `${V1}/Systems/${encodeURIComponent(id)}`;
export const managerPath = (id: string): string => `${V1}/Managers/${encodeURIComponent(id)}`;
export const chassisPath = (id: string): string => `${V1}/Chassis/${encodeURIComponent(id)}`;

/** Where the system's VirtualMedia collection lives (System or Manager, by personality). */
export function mediaCollectionPath(system: EmulatedSystem): string {
  const base = system.personality.virtualMediaUnder === 'system' ? systemPath(system.id) : managerPath(system.id);
  return `${base}/VirtualMedia`;
}

/** A stable value derived from the system id (serial numbers, UUIDs, MACs). */
export function derived(id: string, salt: string, length: number): string {
  return createHash('sha256').update(`${salt}/${id}`).digest('hex').slice(0, length);
}

function uuidOf(system: EmulatedSystem): string {
  if (system.config.uuid !== undefined) {
    return system.config.uuid;
  }
  const hex = derived(system.id, 'uuid', 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export function collection(path: string, name: string, members: readonly string[]): Json {
  return {
    '@odata.id': path,
    '@odata.type': `#${name.replace(/ /g, '')}.${name.replace(/ /g, '')}`,
    Name: name,
    Members: members.map(link),
    'Members@odata.count': members.length,
  };
}

export interface RootOptions {
  readonly sessionService: boolean;
  readonly uuid: string;
}

export function serviceRoot(options: RootOptions): Json {
  return {
    '@odata.id': `${V1}/`,
    '@odata.type': '#ServiceRoot.v1_11_0.ServiceRoot',
    Id: 'RootService',
    Name: 'Root Service',
    RedfishVersion: '1.11.0',
    UUID: options.uuid,
    Systems: link(`${V1}/Systems`),
    Managers: link(`${V1}/Managers`),
    Chassis: link(`${V1}/Chassis`),
    TaskService: link(`${V1}/TaskService`),
    ...(options.sessionService ? { SessionService: link(`${V1}/SessionService`), Links: { Sessions: link(SESSIONS) } } : {}),
  };
}

function resetAction(system: EmulatedSystem): Json {
  const path = systemPath(system.id);
  const target = { target: `${path}/Actions/ComputerSystem.Reset` };
  return system.personality.resetActionInfo
    ? { ...target, '@Redfish.ActionInfo': `${path}/ResetActionInfo` }
    : { ...target, 'ResetType@Redfish.AllowableValues': [...system.personality.resetTypes] };
}

export function resetActionInfo(system: EmulatedSystem): Json {
  return {
    '@odata.id': `${systemPath(system.id)}/ResetActionInfo`,
    '@odata.type': '#ActionInfo.v1_1_2.ActionInfo',
    Id: 'ResetActionInfo',
    Name: 'Reset Action Info',
    Parameters: [{ Name: 'ResetType', Required: true, DataType: 'String', AllowableValues: [...system.personality.resetTypes] }],
  };
}

function bootOf(system: EmulatedSystem): Json {
  const { boot, personality } = system;
  return {
    BootSourceOverrideTarget: boot.target,
    'BootSourceOverrideTarget@Redfish.AllowableValues': [...personality.bootTargets],
    BootSourceOverrideEnabled: boot.enabled,
    'BootSourceOverrideEnabled@Redfish.AllowableValues': ['Disabled', 'Once', 'Continuous'],
    BootSourceOverrideMode: boot.mode,
    'BootSourceOverrideMode@Redfish.AllowableValues': [...personality.bootModes],
    HttpBootUri: boot.httpBootUri ?? null,
  };
}

export function computerSystem(system: EmulatedSystem, memoryGiB: number, processors: { count: number; model: string }): Json {
  const path = systemPath(system.id);
  const { config, personality } = system;
  return {
    '@odata.id': path,
    '@odata.type': '#ComputerSystem.v1_13_0.ComputerSystem',
    Id: system.id,
    Name: config.name ?? system.id,
    SystemType: 'Physical',
    UUID: uuidOf(system),
    Manufacturer: config.manufacturer ?? personality.manufacturer,
    Model: config.model ?? personality.model,
    SerialNumber: config.serialNumber ?? derived(system.id, 'serial', 10).toUpperCase(),
    BiosVersion: config.biosVersion ?? personality.biosVersion,
    PowerState: system.powerState,
    Status: { State: 'Enabled', Health: 'OK' },
    Boot: bootOf(system),
    ProcessorSummary: { Count: processors.count, Model: processors.model, Status: { State: 'Enabled', Health: 'OK' } },
    MemorySummary: { TotalSystemMemoryGiB: memoryGiB, Status: { State: 'Enabled', Health: 'OK' } },
    Processors: link(`${path}/Processors`),
    Memory: link(`${path}/Memory`),
    EthernetInterfaces: link(`${path}/EthernetInterfaces`),
    Storage: link(`${path}/Storage`),
    SimpleStorage: link(`${path}/SimpleStorage`),
    Bios: link(`${path}/Bios`),
    ...(config.secureBoot === false ? {} : { SecureBoot: link(`${path}/SecureBoot`) }),
    ...(personality.virtualMediaUnder === 'system' && system.mediaDevices().length > 0 ? { VirtualMedia: link(mediaCollectionPath(system)) } : {}),
    Links: { ManagedBy: [link(managerPath(system.id))], Chassis: [link(chassisPath(system.id))] },
    Actions: { '#ComputerSystem.Reset': resetAction(system) },
  };
}

/** The SecureBoot resource (DMTF SecureBoot v1.1); SecureBootCurrentBoot is what the last boot ran with. */
export function secureBootResource(system: EmulatedSystem): Json {
  return {
    '@odata.id': `${systemPath(system.id)}/SecureBoot`,
    '@odata.type': '#SecureBoot.v1_1_0.SecureBoot',
    Id: 'SecureBoot',
    Name: 'UEFI Secure Boot',
    SecureBootEnable: system.secureBoot.enabled,
    SecureBootCurrentBoot: system.secureBoot.currentBoot,
    SecureBootMode: 'DeployedMode',
  };
}

export function manager(system: EmulatedSystem): Json {
  const { personality, config } = system;
  return {
    '@odata.id': managerPath(system.id),
    '@odata.type': '#Manager.v1_10_0.Manager',
    Id: system.id,
    Name: `Manager for ${system.id}`,
    ManagerType: 'BMC',
    Model: personality.managerModel,
    FirmwareVersion: config.firmwareVersion ?? personality.firmwareVersion,
    Status: { State: 'Enabled', Health: 'OK' },
    ...(personality.virtualMediaUnder === 'manager' && system.mediaDevices().length > 0 ? { VirtualMedia: link(mediaCollectionPath(system)) } : {}),
    Links: { ManagerForServers: [link(systemPath(system.id))], ManagerForChassis: [link(chassisPath(system.id))] },
  };
}

export function chassis(system: EmulatedSystem): Json {
  return {
    '@odata.id': chassisPath(system.id),
    '@odata.type': '#Chassis.v1_14_0.Chassis',
    Id: system.id,
    Name: `Chassis for ${system.id}`,
    ChassisType: 'RackMount',
    Manufacturer: system.config.manufacturer ?? system.personality.manufacturer,
    Model: system.config.model ?? system.personality.model,
    PowerState: system.powerState,
    Status: { State: 'Enabled', Health: 'OK' },
    Links: { ComputerSystems: [link(systemPath(system.id))], ManagedBy: [link(managerPath(system.id))] },
  };
}

export function virtualMedia(system: EmulatedSystem, deviceId: string): Json | undefined {
  const template = system.mediaDevices().find((device) => device.id === deviceId);
  const state = system.media.get(deviceId);
  if (template === undefined || state === undefined) {
    return undefined;
  }
  const path = `${mediaCollectionPath(system)}/${encodeURIComponent(deviceId)}`;
  const actions = {
    '#VirtualMedia.InsertMedia': { target: `${path}/Actions/VirtualMedia.InsertMedia` },
    '#VirtualMedia.EjectMedia': { target: `${path}/Actions/VirtualMedia.EjectMedia` },
  };
  return {
    '@odata.id': path,
    '@odata.type': '#VirtualMedia.v1_4_0.VirtualMedia',
    Id: deviceId,
    Name: template.name,
    MediaTypes: [...template.mediaTypes],
    Image: state.image ?? null,
    ImageName: state.image === undefined ? null : state.image.slice(state.image.lastIndexOf('/') + 1),
    Inserted: state.inserted,
    WriteProtected: state.writeProtected,
    ConnectedVia: state.inserted ? 'URI' : 'NotConnected',
    ...(system.personality.virtualMediaActions ? { Actions: actions } : {}),
  };
}
