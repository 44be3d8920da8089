// Agent TLS (docs/agent.md, "Agent TLS"): IPA with enable_auto_tls serves its command API over
// HTTPS with a self-signed certificate and sends that certificate as agent_verify_ca in its
// heartbeat. As Ironic, the pool checks it is X.509 PEM and records it with the callback URL.
import { X509Certificate } from 'node:crypto';

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
