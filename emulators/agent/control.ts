// The fake agent's control endpoint, for when it runs as its own process: the Redfish
// emulator's HTTP notifier posts state changes to /events (notifyURL), scripts post boots to
// /boot, and /hosts shows what each host's agent did. Loopback by default.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import express from 'express';
import type { StateChangeEvent } from '../redfish/types.js';
import { bootFromRedfish } from './boot-events.js';
import type { FakeAgentFleet } from './fleet.js';
import type { BootDevice } from './types.js';

const DEVICES: readonly string[] = ['pxe', 'http', 'cdrom', 'disk', 'other'];

export interface ControlServer {
  url: string;
  close(): Promise<void>;
}

function isNotification(body: unknown): body is StateChangeEvent {
  if (typeof body !== 'object' || body === null) return false;
  const item = body as Record<string, unknown>;
  const fields = typeof item.system === 'string' && typeof item.type === 'string' && typeof item.bootSourceTarget === 'string';
  return fields && typeof item.virtualMedia === 'object' && item.virtualMedia !== null && Array.isArray(item.macs);
}

/** A notification from the Redfish emulator: power-on boots (a new system is added), power-off stops. */
async function notified(fleet: FakeAgentFleet, event: StateChangeEvent): Promise<void> {
  if (event.type === 'power-off') {
    await fleet.powerLoss(event.system);
    return;
  }
  if (event.type !== 'power-on') return;
  if (!fleet.hosts().includes(event.system)) fleet.addHost({ id: event.system, nics: event.macs.map((mac) => ({ mac })) });
  const boot = bootFromRedfish(event);
  await fleet.boot(event.system, boot.device, boot.media);
}

function app(fleet: FakeAgentFleet): express.Express {
  const control = express();
  control.disable('x-powered-by');
  control.use(express.json({ limit: '1mb' }));
  control.post('/events', (req, res) => {
    if (!isNotification(req.body)) {
      res.status(400).json({ error: 'expected a Redfish emulator state-change notification' });
      return;
    }
    notified(fleet, req.body).then(
      () => res.status(204).end(),
      () => res.status(500).json({ error: 'boot failed' }),
    );
  });
  control.post('/boot', (req, res) => {
    const body = (req.body ?? {}) as { hostId?: unknown; device?: unknown; media?: unknown };
    if (typeof body.hostId !== 'string' || typeof body.device !== 'string' || !DEVICES.includes(body.device)) {
      res.status(400).json({ error: 'expected {hostId, device: pxe|http|cdrom|disk|other, media?}' });
      return;
    }
    fleet.boot(body.hostId, body.device as BootDevice, typeof body.media === 'string' ? body.media : undefined).then(
      (result) => res.status(result === 'unknown-host' ? 404 : 200).json({ result }),
      () => res.status(500).json({ error: 'boot failed' }),
    );
  });
  control.get('/hosts', (_req, res) => {
    res.json(fleet.hosts().map((id) => ({ ...fleet.record(id), callbackURL: fleet.callbackURL(id) ?? null })));
  });
  return control;
}

export async function startControlServer(fleet: FakeAgentFleet, options: { host: string; port: number }): Promise<ControlServer> {
  const server: Server = createServer(app(fleet));
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    url: `http://${options.host}:${String(port)}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}
