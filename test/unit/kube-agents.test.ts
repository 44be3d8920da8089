// API calls share one keep-alive agent per TLS configuration (drivers/kube/agents.ts): client-node
// 1.4 makes a new agent, and so a new TLS connection, for every call.
import { Agent as HttpAgent } from 'node:http';
import { Agent } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { KeepAliveAgents } from '../../drivers/kube/agents.js';

const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
const OTHER_CA = Buffer.from('-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----\n');

let agents = new KeepAliveAgents();
afterEach(() => {
  agents.destroy();
  agents = new KeepAliveAgents();
});

describe('keep-alive agents for API calls', () => {
  it('calls with the same TLS configuration share one keep-alive agent', () => {
    const first = agents.reuse(new Agent({ ca: CA, rejectUnauthorized: true }));
    const second = agents.reuse(new Agent({ ca: Buffer.from(CA), rejectUnauthorized: true }));
    expect(second).toBe(first);
    expect(first).toBeInstanceOf(Agent);
    expect(first.options.keepAlive).toBe(true);
    expect(first.options.ca).toEqual(CA);
  });

  it.each([
    { name: 'another CA (rotated)', options: { ca: OTHER_CA, rejectUnauthorized: true } },
    { name: 'verification off', options: { ca: CA, rejectUnauthorized: false } },
    { name: 'another server name', options: { ca: CA, rejectUnauthorized: true, servername: 'kubernetes.default' } },
  ])('$name gets an agent of its own', ({ options }) => {
    const first = agents.reuse(new Agent({ ca: CA, rejectUnauthorized: true }));
    expect(agents.reuse(new Agent(options))).not.toBe(first);
    expect(agents.size).toBe(2);
  });

  it('leaves plain-HTTP and proxy agents as client-node made them', () => {
    const plain = new HttpAgent();
    class ProxyAgent extends Agent {}
    const proxy = new ProxyAgent();
    expect(agents.reuse(plain)).toBe(plain);
    expect(agents.reuse(proxy)).toBe(proxy);
    expect(agents.size).toBe(0);
  });

  it('keeps at most four configurations, closing the oldest', () => {
    const first = agents.reuse(new Agent({ servername: 'a' }));
    for (const name of ['b', 'c', 'd', 'e']) agents.reuse(new Agent({ servername: name }));
    expect(agents.size).toBe(4);
    expect(agents.reuse(new Agent({ servername: 'a' }))).not.toBe(first);
  });
});
