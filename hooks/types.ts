// The contract between the hook server (hooks/server) and the pure hook functions.

export type HookKind = 'sync' | 'finalize' | 'customize';

/** Settings the server reads once at start-up and injects; hook logic reads nothing else. */
export interface HookConfig {
  /** Upstream `--max-provisioning-retries`: failed provisioning attempts per image; 0 = unlimited. */
  maxProvisioningRetries: number;
  /** How often the driver pool re-reads power state (upstream's steady-state poll). */
  monitorIntervalSeconds: number;
  /**
   * Reboot remediation taints the Node `node.kubernetes.io/out-of-service` while the host is off
   * instead of deleting it (upstream's out-of-service mode). Off when absent.
   */
  remediationOutOfServiceTaint?: boolean;
}

export const DEFAULT_HOOK_CONFIG: HookConfig = {
  maxProvisioningRetries: 5,
  monitorIntervalSeconds: 60,
};

export interface HookContext {
  config: HookConfig;
}

/**
 * A pure hook: the parsed JSON request in, the JSON response out. It must not read clocks,
 * randomness, files or the network, and must return byte-identical output for identical input.
 * It throws HookInputError when the request is malformed; any other throw is a bug (HTTP 500).
 */
export type HookFunction = (request: unknown, context: HookContext) => unknown;

export type ControllerHooks = Partial<Record<HookKind, HookFunction>>;

/** Route `{controller}` (lower-case parent kind, or the decorator's name) → its hooks. */
export type HookRegistry = Readonly<Record<string, ControllerHooks>>;

export { HookInputError } from './kit/errors.js';
