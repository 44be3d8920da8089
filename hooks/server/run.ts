// Start-up: settings from the environment, logger, app, listener, signal handling.
// Everything the process provides (env, files, signals, exit) is passed in.
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { DestinationStream } from 'pino';
import type { HookRegistry } from '../types.js';
import { createHookServer, type HookServerApp } from './app.js';
import { createConversionServer } from './conversion-app.js';
import { createNodeServer, createTlsServer, listen } from './listen.js';
import { createLogger, errorFields, type Logger } from './logging.js';
import { createReadiness, type Readiness } from './readiness.js';
import { loadSettings, SettingsError, type Env, type ReadTextFile, type ServerSettings } from './settings.js';
import { installShutdown, realTimers, serverGroup, type ClosableServer, type Shutdown, type SignalSource, type Timers } from './shutdown.js';
import { watchTlsFiles, type TlsReload } from './tls-reload.js';

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
  /** The HTTPS listener of the conversion webhook, with CONVERSION_TLS_PORT. */
  conversion?: { server: HttpsServer; address: { port: number; host: string }; reload: TlsReload };
  logger: Logger;
}

interface ConversionListener {
  server: HttpsServer;
  reload: TlsReload;
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
    conversionPort: settings.conversion?.port ?? 'off',
    hookConfig: settings.hookConfig,
  };
}

function conversionListener(deps: RunDeps, settings: ServerSettings, logger: Logger, readiness: Readiness): ConversionListener | undefined {
  const conversion = settings.conversion;
  if (conversion === undefined) return undefined;
  const server = createTlsServer(createConversionServer({ bodyLimit: settings.bodyLimit, logger, readiness }), conversion.tls);
  const reload = watchTlsFiles({ server, files: conversion, current: conversion.tls, readFile: deps.readFile, timers: deps.timers ?? realTimers, logger });
  return { server, reload };
}

/** Listens on the hook port, then on the conversion port; the addresses in that order. */
async function listenAll(settings: ServerSettings, server: Server, conversion: ConversionListener | undefined): Promise<{ port: number; host: string }[]> {
  const addresses = [await listen(server, settings.port, settings.host)];
  if (conversion !== undefined && settings.conversion !== undefined) addresses.push(await listen(conversion.server, settings.conversion.port, settings.host));
  return addresses;
}

function hookApp(deps: RunDeps, settings: ServerSettings, logger: Logger, readiness: Readiness): HookServerApp {
  return createHookServer({
    registry: deps.registry,
    config: settings.hookConfig,
    logger,
    bodyLimit: settings.bodyLimit,
    readiness,
    requireClientCert: settings.tls?.clientCa !== undefined,
    ...(settings.auth === undefined ? {} : { auth: settings.auth }),
  });
}

type Started = Omit<RunningServer, 'address' | 'conversion'>;

/** Listens, marks the server ready and logs; undefined after exit(1) when a port cannot be bound. */
async function start(deps: RunDeps, started: Started, conversion: ConversionListener | undefined): Promise<RunningServer | undefined> {
  const { settings, logger } = started;
  try {
    const [address = { port: settings.port, host: settings.host }, conversionAddress] = await listenAll(settings, started.server, conversion);
    started.readiness.markListening();
    logger.info(
      { ...describeSettings(settings), port: address.port, conversionPort: conversionAddress?.port ?? 'off', controllers: Object.keys(deps.registry).sort() },
      'hook server listening',
    );
    return {
      ...started,
      address,
      ...(conversion === undefined || conversionAddress === undefined ? {} : { conversion: { ...conversion, address: conversionAddress } }),
    };
  } catch (err) {
    conversion?.reload.stop();
    started.server.close();
    logger.fatal({ err: errorFields(err) }, 'cannot listen');
    deps.exit(1);
    return undefined;
  }
}

/** Starts the hook server; resolves once it listens, or undefined after exit(1) on bad settings. */
export async function runHookServer(deps: RunDeps): Promise<RunningServer | undefined> {
  const settings = settingsOrExit(deps);
  if (settings === undefined) return undefined;
  const logger = startupLogger(deps, settings.logLevel);
  const readiness = createReadiness('starting');
  const app = hookApp(deps, settings, logger, readiness);
  const server = createNodeServer(app, settings.tls);
  const conversion = conversionListener(deps, settings, logger, readiness);
  const listeners: ClosableServer[] = conversion === undefined ? [server] : [server, conversion.server];
  const shutdown = installShutdown({
    server: serverGroup(listeners, () => conversion?.reload.stop()),
    readiness,
    logger,
    signals: deps.signals,
    exit: deps.exit,
    delayMs: settings.shutdownDelayMs,
    timeoutMs: settings.shutdownTimeoutMs,
    ...(deps.timers === undefined ? {} : { timers: deps.timers }),
  });
  return start(deps, { app, server, settings, readiness, shutdown, logger }, conversion);
}
