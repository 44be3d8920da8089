#!/usr/bin/env node
// `npx ironhook …` from a checkout: runs the TypeScript CLI (drivers/cli/main.ts) through tsx,
// so no build step is needed. Exit code and output are the CLI's own.
/* global process, URL */
import { register } from 'tsx/esm/api';

register();
const { main } = await import(new URL('../drivers/cli/main.ts', import.meta.url).href);
process.exitCode = await main(process.argv.slice(2));
