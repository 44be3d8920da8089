// The Metacontroller stand-in as a process: `node --import tsx test/support/metacontroller/main.ts
// --kubeconfig=... [--discovery-interval=20s] [--workers=5] [--health-probe-bind-address=:8081]
// [--metrics-address=:9999|0] [--zap-log-level=4] [--cache-flush-interval=30m]
// [--target-label-selector=a=b]`.
//
// TEST/DEV SUPPORT ONLY. A faithful re-implementation of the parts of Metacontroller v4.17.2
// Ironhook relies on, written because upstream cannot be built here (the Go module proxy
// refuses the module); never shipped in the chart: production runs upstream Metacontroller.
// What it implements and what it does not: docs/dev/metacontroller-standin.md.
import { parseFlags } from './flags.js';
import { startStandIn } from './run.js';

async function main(): Promise<void> {
  const options = parseFlags(process.argv.slice(2));
  const standIn = await startStandIn(options);
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    standIn.runtime.log.info(0, `${signal}: stopping`);
    standIn
      .stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        standIn.runtime.log.error(`stop failed: ${String(error)}`);
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => {
    shutdown('SIGTERM');
  });
  process.on('SIGINT', () => {
    shutdown('SIGINT');
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`metacontroller stand-in: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
