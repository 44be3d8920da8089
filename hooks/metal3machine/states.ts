// The Metal3Machine lifecycle as an explicit table: one handler per state. Each sync starts at
// the first state of its path and runs handlers while they answer `continue`, so every sync
// re-checks what upstream re-checks on every reconcile; the state the run stops in is committed.
import type { MachineContext } from './context.js';
import { handleAssociating } from './handlers/associate.js';
import { handleDeprovisioning, handleFinalized, handleReleasing, handleWaitingForDeprovision } from './handlers/deletion.js';
import { handlePaused } from './handlers/pause.js';
import {
  handleWaitingForBootstrapData,
  handleWaitingForClusterInfrastructure,
  handleWaitingForMachine,
  handleWaitingForMetal3Cluster,
} from './handlers/prerequisites.js';
import { handleProvisioning, handleReady, handleSettingHostSpec, handleSettingProviderID, handleWaitingForData } from './handlers/provisioning.js';
import { MachineState, STATE_ORDER } from './names.js';
import type { Decision, Outcome, RequestIntent, StatusPatch } from './outcome.js';

type StateHandler = (ctx: MachineContext) => Outcome;

const STATE_HANDLERS: Readonly<Record<MachineState, StateHandler>> = {
  [MachineState.WaitingForMachine]: handleWaitingForMachine,
  [MachineState.WaitingForClusterInfrastructure]: handleWaitingForClusterInfrastructure,
  [MachineState.WaitingForMetal3Cluster]: handleWaitingForMetal3Cluster,
  [MachineState.Paused]: handlePaused,
  [MachineState.WaitingForBootstrapData]: handleWaitingForBootstrapData,
  [MachineState.Associating]: handleAssociating,
  [MachineState.WaitingForData]: handleWaitingForData,
  [MachineState.SettingHostSpec]: handleSettingHostSpec,
  [MachineState.Provisioning]: handleProvisioning,
  [MachineState.SettingProviderID]: handleSettingProviderID,
  [MachineState.Ready]: handleReady,
  [MachineState.Deprovisioning]: handleDeprovisioning,
  [MachineState.WaitingForDeprovision]: handleWaitingForDeprovision,
  [MachineState.Releasing]: handleReleasing,
  [MachineState.Finalized]: handleFinalized,
};

/** Deletion starts with the pause check (a paused machine deprovisions nothing), then deprovisions. */
function firstState(ctx: MachineContext): MachineState {
  return ctx.deleting ? MachineState.Paused : MachineState.WaitingForMachine;
}

function mergeStatus(into: StatusPatch, patch: StatusPatch | undefined): StatusPatch {
  const merged: StatusPatch = { ...into, ...patch };
  const ironhook = { ...(into.ironhook as StatusPatch | undefined), ...(patch?.ironhook as StatusPatch | undefined) };
  if (Object.keys(ironhook).length > 0) merged.ironhook = ironhook;
  return merged;
}

/** Runs the table from the path's first state until a handler stops; never moves backwards. */
export function runStates(ctx: MachineContext): Decision {
  let state = firstState(ctx);
  let view = ctx;
  let status: StatusPatch = {};
  const requests: RequestIntent[] = [];
  const passed: MachineState[] = [];
  for (;;) {
    const outcome = STATE_HANDLERS[state](view);
    if ('requests' in outcome) requests.push(...(outcome.requests ?? []));
    if ('status' in outcome) status = mergeStatus(status, outcome.status);
    if (outcome.kind !== 'continue') return { state, outcome, requests, status, passed };
    if (STATE_ORDER.indexOf(outcome.to) <= STATE_ORDER.indexOf(state)) throw new Error(`state ${state} continued backwards to ${outcome.to}`);
    passed.push(state);
    state = outcome.to;
    view = { ...view, status: mergeStatus(view.status, outcome.status) };
  }
}
