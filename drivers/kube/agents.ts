// Connection reuse for API calls. client-node 1.4 builds a new https.Agent for every call, so
// every call opened a new TLS connection with a new SecureContext: under load (npm run
// bench:scale, 100 hosts) a third of the driver pool's CPU went to TLS set-up. Calls use one
// keep-alive agent per distinct TLS configuration instead; a rotated CA or client certificate is
// a new configuration and gets a new agent. Proxy and plain-HTTP agents are left as they are.
import { createHash } from 'node:crypto';
import { Agent, type AgentOptions } from 'node:https';

/** At most this many configurations are kept; the oldest agent is closed when a new one comes. */
const MAX_AGENTS = 4;
/** Idle sockets the apiserver would close anyway are closed first (its default is 90 s). */
const IDLE_SOCKET_MS = 30_000;

type Field = AgentOptions['ca'] | AgentOptions['pfx'] | AgentOptions['key'] | boolean;

function part(value: Field): string {
  if (value === undefined) return '';
  if (Array.isArray(value)) return value.map((item) => part(item as Field)).join(',');
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** What makes two agents' TLS the same (the bytes of the CA, certificate and key included). */
function fingerprint(options: AgentOptions): string {
  const fields: Field[] = [options.ca, options.cert, options.key, options.pfx, options.passphrase, options.rejectUnauthorized, options.servername];
  return createHash('sha256').update(fields.map(part).join('\n')).digest('hex');
}

export class KeepAliveAgents {
  private readonly agents = new Map<string, Agent>();

  /** The shared keep-alive agent for `fresh`'s TLS configuration, or `fresh` when it is not a plain https.Agent. */
  reuse<T>(fresh: T): T | Agent {
    if (!(fresh instanceof Agent) || fresh.constructor !== Agent) return fresh;
    const options: AgentOptions = (fresh as Agent).options;
    const key = fingerprint(options);
    let agent = this.agents.get(key);
    if (agent === undefined) {
      agent = new Agent({ ...options, keepAlive: true, timeout: IDLE_SOCKET_MS });
      this.agents.set(key, agent);
      this.evict();
    }
    return agent;
  }

  get size(): number {
    return this.agents.size;
  }

  destroy(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }

  private evict(): void {
    while (this.agents.size > MAX_AGENTS) {
      const [oldest] = this.agents.keys();
      if (oldest === undefined) return;
      this.agents.get(oldest)?.destroy();
      this.agents.delete(oldest);
    }
  }
}
