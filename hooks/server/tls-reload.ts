// Renewed certificates without a restart: cert-manager rewrites the Secret before the old
// certificate expires and the kubelet updates the mounted files, but a TLS server keeps the key
// pair it started with. So the files are re-read periodically and, when they changed, become the
// server's secure context. A file that cannot be read, or a pair that does not load, is logged
// and the server keeps serving the previous certificate.
import { errorFields, type Logger } from './logging.js';
import type { ReadTextFile, TlsFiles } from './settings.js';
import type { Timers } from './shutdown.js';

/** How often the certificate files are compared with the ones being served. */
export const TLS_RELOAD_INTERVAL_MS = 60_000;

interface SecureContextTarget {
  setSecureContext(options: { cert: string; key: string }): void;
}

export interface TlsReloadOptions {
  server: SecureContextTarget;
  files: { certFile: string; keyFile: string };
  /** The pair the server was started with. */
  current: TlsFiles;
  readFile: ReadTextFile;
  timers: Timers;
  logger: Logger;
  intervalMs?: number;
}

export interface TlsReload {
  /** Compares the files with the served pair once, and switches when they differ. */
  check(): 'unchanged' | 'reloaded' | 'failed';
  stop(): void;
}

export function watchTlsFiles(options: TlsReloadOptions): TlsReload {
  let served = { cert: options.current.cert, key: options.current.key };
  const check = (): 'unchanged' | 'reloaded' | 'failed' => {
    try {
      const next = { cert: options.readFile(options.files.certFile), key: options.readFile(options.files.keyFile) };
      if (next.cert === served.cert && next.key === served.key) return 'unchanged';
      options.server.setSecureContext(next);
      served = next;
      options.logger.info({ certFile: options.files.certFile }, 'serving a renewed TLS certificate');
      return 'reloaded';
    } catch (error) {
      options.logger.warn(
        { certFile: options.files.certFile, error: errorFields(error).message },
        'cannot load the renewed TLS certificate; keeping the current one',
      );
      return 'failed';
    }
  };
  const handle = options.timers.setInterval(() => {
    check();
  }, options.intervalMs ?? TLS_RELOAD_INTERVAL_MS);
  return {
    check,
    stop: () => {
      options.timers.clearInterval(handle);
    },
  };
}
