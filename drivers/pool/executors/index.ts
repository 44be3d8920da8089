// The executor table: one function per action (data, not branches).
import { Action } from '../../../domain/operations.js';
import type { Executor } from './context.js';
import { deleteExecutor } from './delete.js';
import { deprovisionExecutor } from './deprovision.js';
import { detachExecutor } from './detach.js';
import { inspectExecutor } from './inspect.js';
import { powerOffExecutor } from './poweroff.js';
import { powerOnExecutor } from './poweron.js';
import { prepareExecutor } from './prepare.js';
import { provisionExecutor } from './provision.js';
import { rebootExecutor } from './reboot.js';
import { register } from './register.js';

export const EXECUTORS: Record<Action, Executor> = {
  [Action.Register]: register,
  [Action.Inspect]: inspectExecutor,
  [Action.Prepare]: prepareExecutor,
  [Action.Provision]: provisionExecutor,
  [Action.Deprovision]: deprovisionExecutor,
  [Action.PowerOn]: powerOnExecutor,
  [Action.PowerOff]: powerOffExecutor,
  [Action.Reboot]: rebootExecutor,
  [Action.Detach]: detachExecutor,
  [Action.Delete]: deleteExecutor,
};

export type { ExecutionContext, Executor, HostServices } from './context.js';
