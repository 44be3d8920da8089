// What the agent API knows about armed hosts: their MACs, token, callback URL, the agent's
// TLS certificate (agent_verify_ca) and in-band inventory. Plain data and synchronous
// decisions; the HTTP layer (api.ts) maps outcomes to status codes and the service
// (service.ts) waits on the events.
import { EventEmitter } from 'node:events';
import { normalizeMAC } from '../../domain/bmc/index.js';
import type { HardwareDetails } from '../../domain/baremetalhost.js';
import type { AgentHostIdentity, AgentHostRef } from './port.js';
import type { IronicRootDevice } from './root-device.js';
import { checkAgentVerifyCA } from './tls.js';
import { MASKED_TOKEN, newAgentToken, tokenMatches } from './tokens.js';

/** What survives a pool restart when a store is configured (store.ts). The token is a secret. */
export interface AgentRecord extends AgentHostIdentity {
  macs: string[];
  token: string;
  /** The lookup has handed the token out; later lookups answer the mask. */
  tokenIssued: boolean;
  callbackURL?: string;
  /** The agent's agent_verify_ca (PEM, normalised), recorded with the callback URL; public, not secret. */
  agentVerifyCA?: string;
  /**
   * The in-band inventory of this boot. Kept across restarts: IPA posts it once, so a leader that
   * dies after accepting it must not leave the next one waiting for a post that never comes.
   */
  inventory?: HardwareDetails;
}

export interface AgentEntry extends AgentRecord {
  /** Clock time of the last accepted heartbeat in this process; absent until one arrives. */
  heartbeatAt?: number;
  agentVersion?: string;
  /** The hints of the image being written: IPA re-reads its node before it picks the disk. */
  rootDevice?: IronicRootDevice;
}

/** The node as the agent caches it (lookup, clean steps): IPA reads root_device from it. */
export function agentNode(entry: AgentEntry): Record<string, unknown> {
  const rootDevice = entry.rootDevice === undefined ? {} : { root_device: { ...entry.rootDevice } };
  return { uuid: entry.uid, properties: { ...rootDevice }, instance_info: { ...rootDevice }, driver_internal_info: {} };
}

export type LookupOutcome =
  { kind: 'found'; entry: AgentEntry; token: string } | { kind: 'not-found' } | { kind: 'ambiguous' } | { kind: 'bad-request'; message: string };

export type HeartbeatOutcome =
  | { kind: 'accepted'; entry: AgentEntry; first: boolean }
  | { kind: 'unknown-node' }
  | { kind: 'token-invalid' }
  | { kind: 'callback-changed' }
  | { kind: 'ca-changed' }
  | { kind: 'bad-request'; message: string };

export type InspectionOutcome = { kind: 'accepted'; entry: AgentEntry } | { kind: 'not-found' } | { kind: 'ambiguous' } | { kind: 'token-invalid' };

export interface HeartbeatInput {
  callbackURL: unknown;
  token: unknown;
  agentVersion?: unknown;
  /** agent_verify_ca; undefined or null: not sent. */
  agentVerifyCA?: unknown;
}

type Rejection = Exclude<HeartbeatOutcome, { kind: 'accepted' }>;

export function hostKey(host: AgentHostRef): string {
  return `${host.namespace}/${host.name}`;
}

function recordOf(entry: AgentEntry): AgentRecord {
  const { namespace, name, uid, macs, token, tokenIssued, callbackURL, agentVerifyCA, inventory } = entry;
  return {
    namespace,
    name,
    uid,
    macs,
    token,
    tokenIssued,
    ...(callbackURL === undefined ? {} : { callbackURL }),
    ...(agentVerifyCA === undefined ? {} : { agentVerifyCA }),
    ...(inventory === undefined ? {} : { inventory: structuredClone(inventory) }),
  };
}

function normalizedMACs(values: readonly string[]): string[] {
  return [...new Set(values.map((value) => normalizeMAC(value.trim())).filter((mac) => mac !== undefined))];
}

function validCallbackURL(value: unknown): value is string {
  if (typeof value !== 'string' || !URL.canParse(value)) {
    return false;
  }
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

/** The normalised agent_verify_ca, undefined when not sent, or the 400 for a bad one. */
function verifyCAOf(value: unknown): string | undefined | Rejection {
  if (value === undefined || value === null) return undefined;
  const check = checkAgentVerifyCA(value);
  return check.ok ? check.pem : { kind: 'bad-request', message: check.message };
}

/**
 * After the first accepted heartbeat, the callback URL and the certificate are fixed: another
 * URL, another certificate or one where none was recorded is refused (409) until re-armed. A
 * heartbeat without agent_verify_ca keeps the recorded one (Ironic ignores an absent field).
 */
function changed(entry: AgentEntry, callbackURL: string, ca: string | undefined): Rejection | undefined {
  if (entry.callbackURL === undefined) return undefined;
  if (entry.callbackURL !== callbackURL) return { kind: 'callback-changed' };
  return ca !== undefined && ca !== entry.agentVerifyCA ? { kind: 'ca-changed' } : undefined;
}

export class AgentState extends EventEmitter {
  private readonly entries = new Map<string, AgentEntry>();

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  /** Arms a host with a fresh token; any earlier token, callback URL, certificate and inventory are dropped. */
  arm(host: AgentHostIdentity, macs: readonly string[]): AgentEntry {
    const entry: AgentEntry = {
      namespace: host.namespace,
      name: host.name,
      uid: host.uid,
      macs: normalizedMACs(macs),
      token: newAgentToken(),
      tokenIssued: false,
    };
    this.entries.set(hostKey(host), entry);
    this.emit('changed', recordOf(entry));
    return entry;
  }

  /** Re-creates an entry from a stored record (after a pool restart); waits for a new heartbeat. */
  restore(record: AgentRecord): void {
    this.entries.set(hostKey(record), { ...record, macs: normalizedMACs(record.macs) });
  }

  get(host: AgentHostRef): AgentEntry | undefined {
    return this.entries.get(hostKey(host));
  }

  /** The root device hints the next lookup and clean step hand the agent (undefined: none). */
  setRootDevice(host: AgentHostRef, rootDevice: IronicRootDevice | undefined): void {
    const entry = this.entries.get(hostKey(host));
    if (entry === undefined) return;
    if (rootDevice === undefined) delete entry.rootDevice;
    else entry.rootDevice = rootDevice;
  }

  forget(host: AgentHostRef): void {
    if (this.entries.delete(hostKey(host))) {
      this.emit('forgotten', hostKey(host));
    }
  }

  /** True when exactly one armed host has this (normalised) MAC. */
  isArmedMAC(mac: string): boolean {
    return this.matching([mac], undefined).length === 1;
  }

  size(): number {
    return this.entries.size;
  }

  /** Every agent_verify_ca an armed host records (the pinned dispatchers still needed). */
  verifyCAs(): Set<string> {
    return new Set([...this.entries.values()].map((entry) => entry.agentVerifyCA).filter((ca) => ca !== undefined));
  }

  private matching(macs: readonly string[], nodeUUID: string | undefined): AgentEntry[] {
    return [...this.entries.values()].filter(
      (entry) => (nodeUUID === undefined || entry.uid === nodeUUID) && (macs.length === 0 || entry.macs.some((mac) => macs.includes(mac))),
    );
  }

  /** GET /v1/lookup: the armed host whose MACs match; the token is handed out once. */
  lookup(addresses: readonly string[], nodeUUID?: string): LookupOutcome {
    const macs = normalizedMACs(addresses);
    if (macs.length === 0 && nodeUUID === undefined) {
      return { kind: 'bad-request', message: 'addresses must list at least one valid MAC address' };
    }
    const found = this.matching(macs, nodeUUID);
    if (found.length > 1) {
      return { kind: 'ambiguous' };
    }
    const entry = found[0];
    if (entry === undefined) {
      return { kind: 'not-found' };
    }
    if (entry.tokenIssued) {
      return { kind: 'found', entry, token: MASKED_TOKEN };
    }
    entry.tokenIssued = true;
    this.emit('changed', recordOf(entry));
    return { kind: 'found', entry, token: entry.token };
  }

  /**
   * POST /v1/heartbeat/{uuid}: the token must match; the callback URL and agent_verify_ca are
   * recorded by the first accepted heartbeat and may not change until re-armed.
   */
  heartbeat(nodeUUID: string, input: HeartbeatInput): HeartbeatOutcome {
    const entry = [...this.entries.values()].find((candidate) => candidate.uid === nodeUUID);
    if (entry === undefined) {
      return { kind: 'unknown-node' };
    }
    if (!tokenMatches(input.token, entry.token)) {
      return { kind: 'token-invalid' };
    }
    if (!validCallbackURL(input.callbackURL)) {
      return { kind: 'bad-request', message: 'callback_url must be an http(s) URL' };
    }
    const ca = verifyCAOf(input.agentVerifyCA);
    if (typeof ca === 'object') return ca;
    const rejection = changed(entry, input.callbackURL, ca);
    if (rejection !== undefined) return rejection;
    return { kind: 'accepted', entry, first: this.accept(entry, { callbackURL: input.callbackURL, ca }, input.agentVersion) };
  }

  private accept(entry: AgentEntry, agent: { callbackURL: string; ca: string | undefined }, agentVersion: unknown): boolean {
    const first = entry.heartbeatAt === undefined;
    const urlIsNew = entry.callbackURL === undefined;
    // Recorded together: the certificate is fixed with the URL by the first accepted heartbeat.
    if (urlIsNew && agent.ca !== undefined) entry.agentVerifyCA = agent.ca;
    entry.callbackURL = agent.callbackURL;
    entry.heartbeatAt = this.now();
    if (typeof agentVersion === 'string') {
      entry.agentVersion = agentVersion;
    }
    if (urlIsNew) {
      this.emit('changed', recordOf(entry));
    }
    this.emit('heartbeat', entry);
    return first;
  }

  /**
   * POST /v1/continue_inspection: IPA posts before it looks up, so it has no token yet. A token,
   * when sent, must match; without one the data is taken only while the host has none.
   */
  inspection(macs: readonly string[], token: unknown, inventory: HardwareDetails): InspectionOutcome {
    const normalized = normalizedMACs(macs);
    const found = normalized.length === 0 ? [] : this.matching(normalized, undefined);
    if (found.length > 1) {
      return { kind: 'ambiguous' };
    }
    const entry = found[0];
    if (entry === undefined) {
      return { kind: 'not-found' };
    }
    const allowed = token === undefined ? entry.inventory === undefined : tokenMatches(token, entry.token);
    if (!allowed) {
      return { kind: 'token-invalid' };
    }
    entry.inventory = inventory;
    this.emit('changed', recordOf(entry));
    this.emit('inventory', entry);
    return { kind: 'accepted', entry };
  }
}
