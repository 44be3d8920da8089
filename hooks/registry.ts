// Every controller's hooks, by route name. The server serves exactly these.
import type { HookRegistry } from './types.js';

export const hookRegistry: HookRegistry = {};
