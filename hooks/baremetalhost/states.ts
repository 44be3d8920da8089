// The host lifecycle as an explicit table: one handler per provisioning state.
// Handlers only propose; commit.ts commits.
import { ProvisioningState } from '../../domain/baremetalhost.js';
import type { HostContext } from './context.js';
import { handleAvailable } from './handlers/available.js';
import { handleDeleting, handleDeprovisioning, handlePoweringOffBeforeDelete } from './handlers/deprovisioning.js';
import { handleInspecting, handleMatchProfile, handlePreparing } from './handlers/inspection.js';
import { handleExternallyProvisioned, handleProvisioned, handleProvisioning } from './handlers/provisioning.js';
import { handleNone, handleRegistering, handleUnmanaged } from './handlers/registration.js';
import type { Outcome } from './outcome.js';

export type StateHandler = (ctx: HostContext) => Outcome;

const STATE_HANDLERS: Readonly<Record<ProvisioningState, StateHandler>> = {
  [ProvisioningState.None]: handleNone,
  [ProvisioningState.Unmanaged]: handleUnmanaged,
  [ProvisioningState.Registering]: handleRegistering,
  [ProvisioningState.MatchProfile]: handleMatchProfile,
  [ProvisioningState.Inspecting]: handleInspecting,
  [ProvisioningState.Preparing]: handlePreparing,
  [ProvisioningState.Available]: handleAvailable,
  [ProvisioningState.Ready]: handleAvailable,
  [ProvisioningState.Provisioning]: handleProvisioning,
  [ProvisioningState.Provisioned]: handleProvisioned,
  [ProvisioningState.ExternallyProvisioned]: handleExternallyProvisioned,
  [ProvisioningState.Deprovisioning]: handleDeprovisioning,
  [ProvisioningState.PoweringOffBeforeDelete]: handlePoweringOffBeforeDelete,
  [ProvisioningState.Deleting]: handleDeleting,
};

/** By the state as written in a status: the CRD, like upstream's, takes any string there. */
const HANDLER_OF: ReadonlyMap<string, StateHandler> = new Map(Object.entries(STATE_HANDLERS));

/** The handler for a state; a state string from an unknown release starts over like a new host. */
export function handlerFor(state: string): StateHandler {
  return HANDLER_OF.get(state) ?? handleNone;
}
