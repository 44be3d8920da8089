// ironhook.dev/v1alpha1: the request objects between hooks and the driver pool
// (docs/architecture.md, "The hook / driver request contract"). The shapes are generated from
// manifests/crds (scripts/api-types.ts); the names below are the parts the hooks and the pool use.
import type { BMCMonitorSpec, BMCMonitorStatus } from './api/ironhook.dev/v1alpha1/bmcmonitor.js';
import type { HostOperationSpec, HostOperationStatus } from './api/ironhook.dev/v1alpha1/hostoperation.js';
import { ProvisioningState } from './baremetalhost.js';
import type { TypedObject } from './k8s.js';

export const IRONHOOK_API_VERSION = 'ironhook.dev/v1alpha1';
export const HOST_LABEL = 'ironhook.dev/host';
export const ACTION_LABEL = 'ironhook.dev/action';

export type { HostOperationSpec, HostOperationStatus } from './api/ironhook.dev/v1alpha1/hostoperation.js';
export type { BMCMonitorSpec, BMCMonitorStatus } from './api/ironhook.dev/v1alpha1/bmcmonitor.js';

export type Action = HostOperationSpec['action'];
export const Action = {
  Register: 'Register',
  Inspect: 'Inspect',
  Prepare: 'Prepare',
  Provision: 'Provision',
  Deprovision: 'Deprovision',
  PowerOn: 'PowerOn',
  PowerOff: 'PowerOff',
  Reboot: 'Reboot',
  Detach: 'Detach',
  Delete: 'Delete',
} as const satisfies { [A in Action]: A };

export type Phase = NonNullable<HostOperationStatus['phase']>;
export const Phase = {
  Pending: 'Pending',
  Delayed: 'Delayed',
  Running: 'Running',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
} as const satisfies { [P in Phase]: P };

export type PowerMode = NonNullable<HostOperationSpec['power']>['mode'];
export type ProvisionParameters = NonNullable<HostOperationSpec['provision']>;
/** The host status the hook committed together with a request, to recover a lost status write (ADR 0005). */
export type HostStatusSnapshot = HostOperationSpec['hostStatus'];

/** The action-specific parameter blocks of a request. */
export type RequestParametersOf = Partial<Pick<HostOperationSpec, 'register' | 'inspect' | 'prepare' | 'provision' | 'deprovision' | 'power'>>;

export type OperationError = NonNullable<HostOperationStatus['error']>;
export type ErrorKind = OperationError['kind'];
export type CredentialsReport = NonNullable<NonNullable<HostOperationStatus['result']>['credentials']>;
export type OperationStep = NonNullable<HostOperationStatus['steps']>[number];

export type HostOperation = TypedObject<HostOperationSpec, HostOperationStatus>;
export type BMCMonitor = TypedObject<BMCMonitorSpec, BMCMonitorStatus>;

/**
 * The actions upstream's provisioning limit applies to, each with the state it leads into: the
 * hook enters that state once the pool admits the request.
 */
export const GATED_ENTRY_STATE: Readonly<Partial<Record<Action, ProvisioningState>>> = {
  [Action.Inspect]: ProvisioningState.Inspecting,
  [Action.Provision]: ProvisioningState.Provisioning,
  [Action.Deprovision]: ProvisioningState.Deprovisioning,
};

/** The driver pool's view of the same list. */
export const CAPACITY_GATED_ACTIONS: ReadonlySet<Action> = new Set(Object.keys(GATED_ENTRY_STATE) as Action[]);

export function isFinished(phase: Phase | undefined): boolean {
  return phase === Phase.Succeeded || phase === Phase.Failed;
}
