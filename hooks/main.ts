// Entry point of the hook server (`npm run hooks`). Settings come from the environment; see
// hooks/server/settings.ts and docs/architecture.md. The registry is filled by each controller.
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
