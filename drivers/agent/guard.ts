// The agent client's network guard (docs/drivers.md, "Network guard"): before every request the
// callback URL's host is resolved and every address checked, and the request then connects only
// to those addresses (http.ts pins them), so a callback named by a host name that rebinds after
// the check reaches nothing the guard did not allow. A name that does not resolve is a
// connection failure like any other (the agent is polled again); an address outside the allowed
// networks refuses the request before anything is sent.
import type { NetworkGuard } from '../pool/network-guard.js';
import type { AgentGuard } from './client.js';
import { redactedURL, TransportError } from './http.js';

export function agentGuard(guard: NetworkGuard): AgentGuard {
  return async (url) => {
    try {
      return { addresses: await guard.checkHost(url.hostname, 'agent callback URL') };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if ((error as { reason?: unknown }).reason === 'AddressNotAllowed') {
        return { refused: message };
      }
      throw new TransportError(`agent ${redactedURL(url)}: ${message}`, 'ENOTFOUND', { cause: error });
    }
  };
}
