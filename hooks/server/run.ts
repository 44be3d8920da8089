// Start-up: settings from the environment, logger, app, listener, signal handling.
// Everything the process provides (env, files, signals, exit) is passed in.
import type { Server } from 'node:http';
import type { DestinationStream } from 'pino';
import type { HookRegistry } from '../types.js';
import { createHookServer, type HookServerApp } from './app.js';
import { createNodeServer, listen } from './listen.js';
import { createLogger, errorFields, type Logger } from './logging.js';
import { createReadiness, type Readiness } from './readiness.js';
import { loadSettings, SettingsError, type Env, type ReadTextFile, type ServerSettings } from './settings.js';
import { installShutdown, type Shutdown, type SignalSource, type Timers } from './shutdown.js';

export interface RunDeps {
  env: Env;
  readFile: ReadTextFile;
  registry: HookRegistry;
  signals: SignalSource;
  exit: (code: number) => void;
  /** Log destination; stdout when absent. */
  destination?: DestinationStream;
  timers?: Timers;
}

export interface RunningServer {
  app: HookServerApp;
  server: Server;
  settings: ServerSettings;
  readiness: Readiness;
  shutdown: Shutdown;
  address: { port: number; host: string };
  logger: Logger;
}

function startupLogger(deps: RunDeps, level: string): Logger {
  return createLogger(deps.destination === undefined ? { level } : { level, destination: deps.destination });
}

function settingsOrExit(deps: RunDeps): ServerSettings | undefined {
  try {
    return loadSettings(deps.env, deps.readFile);
  } catch (err) {
    const message = err instanceof SettingsError ? err.message : errorFields(err).message;
    startupLogger(deps, 'info').fatal({ error: message }, 'invalid settings');
    deps.exit(1);
    return undefined;
  }
}

function describeSettings(settings: ServerSettings): Record<string, unknown> {
  return {
    host: settings.host,
    port: settings.port,
    bodyLimit: settings.bodyLimit,
    tls: settings.tls !== undefined,
    clientCertificates: settings.tls?.clientCa !== undefined,
    auth: settings.auth?.kind ?? 'none',
    hookConfig: settings.hookConfig,
  };
}

/** Starts the hook server; resolves once it listens, or undefined after exit(1) on bad settings. */
export async function runHookServer(deps: RunDeps): Promise<RunningServer | undefined> {
  const settings = settingsOrExit(deps);
  if (settings === undefined) return undefined;
  const logger = startupLogger(deps, settings.logLevel);
  const readiness = createReadiness('starting');
  const app = createHookServer({
    registry: deps.registry,
    config: settings.hookConfig,
    logger,
    bodyLimit: settings.bodyLimit,
    readiness,
    requireClientCert: settings.tls?.clientCa !== undefined,
    ...(settings.auth === undefined ? {} : { auth: settings.auth }),
  });
  const server = createNodeServer(app, settings.tls);
  const shutdown = installShutdown({
    server,
    readiness,
    logger,
    signals: deps.signals,
    exit: deps.exit,
    delayMs: settings.shutdownDelayMs,
    timeoutMs: settings.shutdownTimeoutMs,
    ...(deps.timers === undefined ? {} : { timers: deps.timers }),
  });
  try {
    const address = await listen(server, settings.port, settings.host);
    readiness.markListening();
    logger.info({ ...describeSettings(settings), port: address.port, controllers: Object.keys(deps.registry).sort() }, 'hook server listening');
    return { app, server, settings, readiness, shutdown, address, logger };
  } catch (err) {
    logger.fatal({ err: errorFields(err) }, 'cannot listen');
    deps.exit(1);
    return undefined;
  }
}
