// What an executor sees: the request, the host, an AbortSignal, a lazily opened BMC connection,
// the agent service, and a step recorder that writes status.steps[] as it goes. Executors check
// the signal between steps (step() does) and never write status themselves.
import type { HostOperation, HostOperationStatus } from '../../../domain/operations.js';
import type { AgentService } from '../../agent/port.js';
import type { Clock } from '../clock.js';
import type { Connection } from '../connect.js';
import type { HostIdentity, ReadCredentials } from '../credentials.js';
import type { KubePort } from '../../kube/port.js';
import type { NetworkGuard } from '../network-guard.js';
import type { PowerTransitions } from './power-transitions.js';

export interface ExecutorSettings {
  powerSettleTimeoutMs: number;
  softPowerOffTimeoutMs: number;
  agentBootTimeoutMs: number;
  agentCommandTimeoutMs: number;
  deployISOURL: string | undefined;
  deployKernelURL: string | undefined;
  deployRamdiskURL: string | undefined;
}

export interface HostServices {
  kube: KubePort;
  agent: AgentService;
  guard: NetworkGuard;
  clock: Clock;
  settings: ExecutorSettings;
  /** Power commands that cancelled requests left in flight, per host. */
  powerTransitions: PowerTransitions;
  /** Stop refreshing the host's BMCMonitor until it is created or changed again (Detach, Delete). */
  suspendMonitoring(namespace: string, host: string): void;
}

export type OperationResult = NonNullable<HostOperationStatus['result']>;

export interface ExecutionContext {
  readonly op: HostOperation;
  readonly host: HostIdentity;
  readonly signal: AbortSignal;
  readonly services: HostServices;
  /** True when the request was found Running after a restart (check state before acting). */
  readonly resumed: boolean;
  /** Parse, guard, read the credentials (unless given) and open the driver, once per execution. */
  connection(credentials?: ReadCredentials): Promise<Connection>;
  /** Runs one named step: Running, then Succeeded (message from `describe`) or Failed. */
  step<T>(name: string, run: () => Promise<T>, describe?: (value: T) => string | undefined): Promise<T>;
  /**
   * A step of BMC calls only, whose work reads the BMC's state before it acts (so it never repeats
   * an action that took): repeated after a dropped, refused, timed-out or 5xx BMC call, with
   * pauses, before the step and the request fail. Agent calls never go in one.
   */
  bmcStep<T>(name: string, run: () => Promise<T>, describe?: (value: T) => string | undefined): Promise<T>;
  /** A BMC read that decides which step comes next, repeated as a bmcStep's calls are; not a step of its own. */
  bmcRead<T>(name: string, read: () => Promise<T>): Promise<T>;
  /** Records a step that needed no action (already in the wanted state, nothing to do). */
  note(name: string, message: string): Promise<void>;
  /** status.message: progress for people, never secrets. */
  progress(message: string): Promise<void>;
  /** Did an earlier run of this request (before a restart) finish this step? */
  completedEarlier(name: string): boolean;
  /** A value that must never appear in status, events or logs (scrubbed from error messages). */
  keepSecret(value: string | undefined): void;
  /** Counts metal3_operation_power_change_total for a command actually sent. */
  powerChanged(to: 'on' | 'off'): void;
  /** Result fields to report even if the request fails later (Register's tried credentials). */
  partialResult(result: OperationResult): void;
}

export type Executor = (ctx: ExecutionContext) => Promise<OperationResult>;

/** A URL fit for status and events: no userinfo, no query, no fragment. */
export function displayURL(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
