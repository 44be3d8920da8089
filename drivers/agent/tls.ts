// Agent TLS (docs/agent.md, "Agent TLS"): IPA with enable_auto_tls serves its command API over
// HTTPS with a self-signed certificate and sends that certificate as agent_verify_ca in its
// heartbeat. As Ironic, the pool checks it is X.509 PEM, records it with the callback URL and
// trusts only it for that agent: one undici Agent per certificate, hostname checking on. A
// callback URL named by a host name is pinned to the addresses the network guard checked for it
// (pin() before each request; the name stays the TLS servername and Host).
import { X509Certificate } from 'node:crypto';
import { Agent } from 'undici';
import { pinnedLookup } from '../pinned-lookup.js';

/** The longest agent_verify_ca accepted, in characters. */
export const MAX_VERIFY_CA_LENGTH = 16_384;

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+?-----END CERTIFICATE-----/g;

export type VerifyCACheck = { ok: true; pem: string } | { ok: false; message: string };

function parses(block: string): boolean {
  try {
    new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}

/**
 * agent_verify_ca as a heartbeat sends it: one or more PEM certificates and nothing else. The
 * accepted form is normalised (LF line ends, blocks joined by a newline), so whitespace around
 * them does not count as a change.
 */
export function checkAgentVerifyCA(value: unknown): VerifyCACheck {
  if (typeof value !== 'string') {
    return { ok: false, message: 'agent_verify_ca must be a string' };
  }
  if (value.length > MAX_VERIFY_CA_LENGTH) {
    return { ok: false, message: `agent_verify_ca must be at most ${MAX_VERIFY_CA_LENGTH} characters` };
  }
  const blocks = value.match(PEM_BLOCK) ?? [];
  const rest = value.replace(PEM_BLOCK, '').trim();
  if (blocks.length === 0 || rest !== '' || !blocks.every(parses)) {
    return { ok: false, message: 'agent_verify_ca must be PEM-encoded X.509 certificates' };
  }
  return { ok: true, pem: `${blocks.join('\n').replace(/\r\n/g, '\n')}\n` };
}

/** Node's certificate verification failures (tls.TLSSocket authorizationError codes). */
const CERTIFICATE_ERRORS: ReadonlySet<string> = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The verification code when `err` (or one of its causes) is a failed certificate check. */
export function certificateErrorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth += 1) {
    const code = 'code' in current ? current.code : undefined;
    if (typeof code === 'string' && CERTIFICATE_ERRORS.has(code)) return code;
    current = 'cause' in current ? current.cause : undefined;
  }
  return undefined;
}

/**
 * One dispatcher per pinned certificate: it trusts that PEM only (not the system CAs) and keeps
 * Node's hostname check. Dispatchers of certificates no host records any more are closed. The
 * `checked` dispatchers (per certificate, or the system CAs) connect a host name only to the
 * addresses last pinned for it, never through DNS.
 */
export class PinnedDispatchers {
  private readonly agents = new Map<string, { ca: string | undefined; agent: Agent }>();
  private readonly checked = new Map<string, readonly string[]>();
  private readonly lookup = pinnedLookup((host) => this.checked.get(host));

  private agent(ca: string | undefined, pinned: boolean): Agent {
    const key = `${pinned ? 'checked' : 'any'}:${ca ?? ''}`;
    let entry = this.agents.get(key);
    if (entry === undefined) {
      const connect = { rejectUnauthorized: true, ...(ca === undefined ? {} : { ca }), ...(pinned ? { lookup: this.lookup } : {}) };
      entry = { ca, agent: new Agent({ connect }) };
      this.agents.set(key, entry);
    }
    return entry.agent;
  }

  /** The dispatcher that trusts exactly `ca`. */
  for(ca: string): Agent {
    return this.agent(ca, false);
  }

  /** Records the addresses the network guard just checked for a host name: new sockets to it go there only. */
  pin(host: string, addresses: readonly string[]): void {
    this.checked.set(host, [...addresses]);
  }

  /** The dispatcher for pinned host names: trusts `ca` (or the system CAs) and connects only to pinned addresses. */
  checkedFor(ca: string | undefined): Agent {
    return this.agent(ca, true);
  }

  /** How many dispatchers are open. */
  size(): number {
    return this.agents.size;
  }

  /** Closes every dispatcher whose certificate is not in `keep` (requests in flight finish first). */
  async retain(keep: ReadonlySet<string>): Promise<void> {
    const dropped = [...this.agents].filter(([, entry]) => entry.ca !== undefined && !keep.has(entry.ca));
    for (const [key] of dropped) this.agents.delete(key);
    await Promise.all(dropped.map(([, entry]) => entry.agent.close()));
  }

  async close(): Promise<void> {
    const all = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(all.map((entry) => entry.agent.close()));
  }
}
