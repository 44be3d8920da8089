// Entry point of the hook server (`npm run hooks`; in a container run node on it directly, not
// through npm, so SIGTERM reaches this process). Settings (hooks/server/settings.ts):
//   PORT (8080), HOST (0.0.0.0), HOOK_BODY_LIMIT (64mb), LOG_LEVEL (info),
//   MAX_PROVISIONING_RETRIES (5), BMC_MONITOR_INTERVAL_SECONDS (60),
//   TLS_CERT_FILE + TLS_KEY_FILE (HTTPS), TLS_CLIENT_CA_FILE (hook calls need a client certificate),
//   HOOK_BEARER_TOKEN_FILE or HOOK_BASIC_AUTH_FILE ("username:password"),
//   CONVERSION_TLS_PORT + CONVERSION_TLS_CERT_FILE + CONVERSION_TLS_KEY_FILE (a second, HTTPS-only
//   listener with just POST /convert and the probes, for the API server; the certificate files are
//   re-read every minute), SHUTDOWN_DELAY_SECONDS (2), SHUTDOWN_TIMEOUT_SECONDS (25).
// The registry (hooks/registry.ts) is filled by each controller.
import { readFileSync } from 'node:fs';
import { hookRegistry } from './registry.js';
import { runHookServer } from './server/run.js';

await runHookServer({
  env: process.env,
  readFile: (path) => readFileSync(path, 'utf8'),
  registry: hookRegistry,
  signals: process,
  exit: (code) => process.exit(code),
});
