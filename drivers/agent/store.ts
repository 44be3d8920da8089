// Where armed hosts are kept across pool restarts (docs/agent.md, "Restarts"). The pool must
// present the token to the agent on every command, so a store keeps the token itself, not a
// hash of it; a Kubernetes Secret (secret-store.ts) is the production store.
import type { AgentHostRef } from './port.js';
import { hostKey, type AgentRecord } from './state.js';

export interface AgentStateStore {
  save(record: AgentRecord): Promise<void>;
  remove(host: AgentHostRef): Promise<void>;
  list(): Promise<AgentRecord[]>;
}

/** Keeps records in memory: a "restart" in tests is a new service on the same store. */
export class MemoryAgentStateStore implements AgentStateStore {
  private readonly records = new Map<string, AgentRecord>();

  save(record: AgentRecord): Promise<void> {
    this.records.set(hostKey(record), structuredClone(record));
    return Promise.resolve();
  }

  remove(host: AgentHostRef): Promise<void> {
    this.records.delete(hostKey(host));
    return Promise.resolve();
  }

  list(): Promise<AgentRecord[]> {
    return Promise.resolve([...this.records.values()].map((record) => structuredClone(record)));
  }
}
