// A small, well-formed Redfish service as a map of path → answer, a transport that serves it
// (and fuzzed variants of it) to the real driver with no network at all, and a clock that never
// waits. Both count their use, so a driver stuck in a loop fails instead of hanging the test.
import type { HttpRequest, HttpResponse, HttpTransport } from '../../drivers/redfish/transport.js';
import type { Clock } from '../../drivers/redfish/clock.js';
import type { Json } from './fuzz-json.js';

const link = (path: string): Json => ({ '@odata.id': path });
const S = '/redfish/v1/Systems/1';
const M = '/redfish/v1/Managers/1';

export type Tree = Record<string, { status: number; headers: Record<string, string>; body: Json | undefined }>;

const ok = (body: Json): Tree[string] => ({ status: 200, headers: { etag: '"1"' }, body });

export function redfishTree(): Tree {
  return {
    '/redfish/v1/': ok({ Systems: link('/redfish/v1/Systems'), Managers: link('/redfish/v1/Managers'), Oem: {} }),
    '/redfish/v1/Systems': ok({ Members: [link(S)] }),
    [S]: ok({
      Id: '1',
      PowerState: 'On',
      Manufacturer: 'Contoso',
      Model: 'X1',
      SerialNumber: 'SN1',
      BiosVersion: '1.0',
      MemorySummary: { TotalSystemMemoryGiB: 64 },
      Processors: link(`${S}/Processors`),
      EthernetInterfaces: link(`${S}/EthernetInterfaces`),
      Storage: link(`${S}/Storage`),
      Boot: {
        BootSourceOverrideTarget: 'None',
        BootSourceOverrideEnabled: 'Disabled',
        BootSourceOverrideMode: 'UEFI',
        'BootSourceOverrideTarget@Redfish.AllowableValues': ['None', 'Pxe', 'Hdd', 'Cd'],
      },
      Actions: {
        '#ComputerSystem.Reset': {
          target: `${S}/Actions/ComputerSystem.Reset`,
          'ResetType@Redfish.AllowableValues': ['On', 'ForceOff', 'GracefulShutdown', 'GracefulRestart', 'ForceRestart'],
        },
      },
      Links: { ManagedBy: [link(M)] },
    }),
    [`${S}/Processors`]: ok({ Members: [link(`${S}/Processors/1`)] }),
    [`${S}/Processors/1`]: ok({ ProcessorType: 'CPU', TotalThreads: 8, InstructionSet: 'x86-64', Model: 'P', MaxSpeedMHz: 2000 }),
    [`${S}/EthernetInterfaces`]: ok({ Members: [link(`${S}/EthernetInterfaces/1`)] }),
    [`${S}/EthernetInterfaces/1`]: ok({ Id: 'nic1', MACAddress: '00:11:22:33:44:55', SpeedMbps: 1000, IPv4Addresses: [{ Address: '192.0.2.5' }] }),
    [`${S}/Storage`]: ok({ Members: [link(`${S}/Storage/1`)] }),
    [`${S}/Storage/1`]: ok({ Drives: [link(`${S}/Storage/1/Drives/1`)] }),
    [`${S}/Storage/1/Drives/1`]: ok({ Name: 'd1', CapacityBytes: 100_000_000_000, MediaType: 'SSD', SerialNumber: 'D1' }),
    '/redfish/v1/Managers': ok({ Members: [link(M)] }),
    [M]: ok({ Id: '1', FirmwareVersion: '2.0', VirtualMedia: link(`${M}/VirtualMedia`) }),
    [`${M}/VirtualMedia`]: ok({ Members: [link(`${M}/VirtualMedia/Cd`)] }),
    [`${M}/VirtualMedia/Cd`]: ok({
      Id: 'Cd',
      MediaTypes: ['CD', 'DVD'],
      Inserted: false,
      Image: null,
      Actions: {
        '#VirtualMedia.InsertMedia': { target: `${M}/VirtualMedia/Cd/Actions/VirtualMedia.InsertMedia` },
        '#VirtualMedia.EjectMedia': { target: `${M}/VirtualMedia/Cd/Actions/VirtualMedia.EjectMedia` },
      },
    }),
  };
}

/** Thrown when the driver asks for more than any operation needs: a loop, not an answer. */
export class RunawayError extends Error {
  override name = 'RunawayError';
}

/** Serves `tree` to GETs and `write` to every POST, PATCH and DELETE; at most `limit` requests. */
export function treeTransport(tree: Tree, write: Tree[string], limit = 400): HttpTransport & { sent: number } {
  const transport = {
    sent: 0,
    send: async (request: HttpRequest): Promise<HttpResponse> => {
      transport.sent += 1;
      if (transport.sent > limit) throw new RunawayError(`more than ${limit} requests: ${request.method} ${request.path}`);
      const found = Object.hasOwn(tree, request.path) ? tree[request.path] : undefined;
      const answer = request.method === 'GET' ? (found ?? { status: 404, headers: {}, body: undefined }) : write;
      return Promise.resolve(structuredClone(answer));
    },
    close: async (): Promise<void> => Promise.resolve(),
  };
  return transport;
}

/** Time that passes at once when slept; more than `limit` sleeps is a runaway. */
export function instantClock(limit = 2_000): Clock {
  let now = Date.parse('2026-12-01T00:00:00Z');
  let sleeps = 0;
  return {
    now: () => now,
    sleep: async (ms) => {
      sleeps += 1;
      if (sleeps > limit) throw new RunawayError(`more than ${limit} sleeps`);
      now += Math.max(0, Number.isFinite(ms) ? ms : 0);
      return Promise.resolve();
    },
  };
}
