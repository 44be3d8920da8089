// Classified agent failures: the pool turns kind/reason into a request's
// status.error. Messages never carry tokens, URLs with queries or user data.
// AgentError is a BMCError, so the pool classifies agent failures like every driver failure.
import { BMCError } from '../bmc/types.js';

export type AgentErrorReason =
  /** The host is not armed (never, or forgotten): re-arm with expect(). */
  | 'AgentNotArmed'
  /** No heartbeat / inventory / command result before the deadline. */
  | 'AgentTimeout'
  /** Connection refused, reset or timed out. */
  | 'AgentUnreachable'
  /** The agent's HTTPS certificate failed verification (not the recorded agent_verify_ca, wrong host). */
  | 'AgentTLSFailed'
  /** The agent answered 401: the token it holds is not the one the pool has. */
  | 'AgentTokenRejected'
  /** Busy (409) or a 5xx. */
  | 'AgentBusy'
  /** The agent answered something that is not IPA's command protocol. */
  | 'AgentProtocolError'
  /** The network guard refused the callback URL. */
  | 'AgentAddressNotAllowed'
  /** A command finished FAILED. */
  | 'AgentCommandFailed'
  /** A command finished FAILED because the image did not match its checksum. */
  | 'ImageChecksumMismatch'
  /** The store (a Secret) refused the armed host's record: arming again may work. */
  | 'AgentStateNotSaved'
  /** The image cannot be described to the agent (no checksum, MD5). */
  | 'ImageInvalid'
  /** The config drive ISO could not be made (genisoimage and xorriso missing, or failing). */
  | 'ConfigDriveBuildFailed';

const PERMANENT: ReadonlySet<AgentErrorReason> = new Set(['ImageChecksumMismatch', 'ImageInvalid', 'AgentAddressNotAllowed']);

export class AgentError extends BMCError {
  declare readonly reason: AgentErrorReason;

  constructor(reason: AgentErrorReason, message: string, options?: { cause?: unknown }) {
    super(PERMANENT.has(reason) ? 'Permanent' : 'Transient', reason, message, options);
    this.name = 'AgentError';
  }
}

/** The signal's reason when it is an Error, else an AbortError. */
export function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}
