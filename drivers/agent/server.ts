// The agent side as the pool runs it: state, the agent API on its own port, and the
// AgentService on top. The pool owns the process; this only wires and listens.
import { createServer, type Server } from 'node:http';
import { pino, type Logger } from 'pino';
import { createAgentAPI, DEFAULT_HEARTBEAT_TIMEOUT_SECONDS } from './api.js';
import { AgentClient, type AgentClientOptions } from './client.js';
import type { PXEBootConfig } from './ipxe.js';
import { IronhookAgentService, type AgentServiceTimeouts } from './service.js';
import { AgentState } from './state.js';
import type { AgentStateStore } from './store.js';

export interface AgentSideOptions {
  /** Listen address: 127.0.0.1 in tests and the local environment, 0.0.0.0 in a cluster. */
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** ipa-api-url as the hosts reach it; default http://<host>:<port>. */
  advertiseURL?: string;
  logger?: Logger;
  store?: AgentStateStore;
  heartbeatTimeoutSeconds?: number;
  client?: AgentClientOptions;
  timeouts?: Partial<AgentServiceTimeouts>;
  /** Also serve iPXE scripts (GET /boot.ipxe) with this agent kernel and ramdisk. */
  pxe?: PXEBootConfig;
}

export interface AgentSide {
  service: IronhookAgentService;
  state: AgentState;
  server: Server;
  /** The URL the API listens on (loopback form when bound to 0.0.0.0). */
  url: string;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });
}

/** http://<listen address>:<port>, with the loopback address when bound to every interface. */
function localURL(host: string, port: number): string {
  const local = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${local.includes(':') ? `[${local}]` : local}:${port}`;
}

/** Restores stored hosts, then listens; the service is ready when this resolves. */
export async function startAgentSide(options: AgentSideOptions): Promise<AgentSide> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const state = new AgentState();
  // Stored hosts are back before the first lookup or heartbeat can arrive.
  for (const record of (await options.store?.list()) ?? []) state.restore(record);
  // The app needs the final URL (iPXE scripts carry it), known only once the port is bound.
  const server = createServer();
  server.headersTimeout = 20_000;
  server.requestTimeout = 60_000;
  const url = localURL(options.host, await listen(server, options.port, options.host));
  const apiURL = options.advertiseURL ?? url;
  const heartbeatTimeoutSeconds = options.heartbeatTimeoutSeconds ?? DEFAULT_HEARTBEAT_TIMEOUT_SECONDS;
  const client = new AgentClient(options.client);
  const service = new IronhookAgentService({
    state,
    apiURL,
    client,
    logger,
    store: options.store,
    timeouts: options.timeouts,
  });
  const pxe = options.pxe === undefined ? {} : { pxe: { ...options.pxe, apiURL } };
  server.on('request', createAgentAPI({ state, logger, heartbeatTimeoutSeconds, saved: async (host) => service.saved(host), ...pxe }));
  return {
    service,
    state,
    server,
    url,
    close: async () => {
      await close(server);
      await service.flush();
      await client.close();
    },
  };
}
