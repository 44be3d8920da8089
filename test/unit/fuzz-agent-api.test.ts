// Fuzzed agent API calls on 127.0.0.1: lookups with hostile `addresses` and `node_uuid`, and
// heartbeats with near-valid and hostile bodies, node ids and tokens. The API never answers a
// 5xx or a non-JSON error, keeps answering, and the agent token never reaches a log line or an
// error body. FUZZ_SEED and FUZZ_RUNS: test/support/fuzz-knobs.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentAPI } from '../../drivers/agent/api.js';
import { AgentState } from '../../drivers/agent/state.js';
import { capturedLogger } from '../support/captured-logger.js';
import { awkwardString, fuzzText, hostileValue, type Json } from '../support/fuzz-json.js';
import { fuzz } from '../support/fuzz-knobs.js';

const HOST = { namespace: 'metal3', name: 'server-01', uid: '6f3c8a1e-0000-4000-8000-000000000001' };
const MACS = ['00:11:22:33:44:55', '52:54:00:ab:cd:ef'];
const { logger, lines } = capturedLogger('trace');
const state = new AgentState(() => 1_000);
let token = '';
let server: Server;
let origin = '';

beforeAll(async () => {
  token = state.arm(HOST, MACS).token;
  server = createServer(createAgentAPI({ state, logger, heartbeatTimeoutSeconds: 30 }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
});

async function expectSound(res: Response, what: string): Promise<void> {
  const text = await res.text();
  expect(res.status, `${what} answered ${res.status}: ${text.slice(0, 200)}`).toBeLessThan(500);
  if (res.status >= 400) {
    expect(() => JSON.parse(text) as unknown, `${what}: a JSON error body`).not.toThrow();
    expect(text).not.toContain(token);
  }
  expect(lines.join('')).not.toContain(token);
  expect((await fetch(`${origin}/v1`)).status, 'the API keeps answering').toBe(200);
}

// Node's HTTP parser refuses request lines over 16 KiB itself (431, no body): URLs stay below it.
const short = awkwardString.filter((s) => s.length <= 2_000);
const mac = fc.oneof(fc.constantFrom(...MACS, '00:00:00:00:00:00', 'FF:FF:FF:FF:FF:FF', ''), short);
const addresses = fc.oneof(
  fc.array(mac, { maxLength: 6 }).map((list) => list.join(',')),
  fc.integer({ min: 1, max: 400 }).map((n) => Array.from({ length: n }, () => MACS[0]).join(',')),
);

/** The id percent-encoded; one no encoder accepts (a lone surrogate) as malformed escapes instead. */
function pathSegment(id: string): string {
  try {
    return encodeURIComponent(id);
  } catch {
    return '%ED%A0%80%';
  }
}

describe('fuzzed agent API', () => {
  it('lookups with hostile addresses and node ids', async () => {
    const query = fc.record({ addresses, node_uuid: fc.oneof(fc.constant(HOST.uid), short) }, { requiredKeys: [] });
    await fuzz(
      fc.asyncProperty(query, async (q) => {
        const params = new URLSearchParams(Object.entries(q));
        await expectSound(await fetch(`${origin}/v1/lookup?${params.toString()}`), `lookup ${params.toString().slice(0, 120)}`);
      }),
      100,
    );
  }, 120_000);

  it('heartbeats with near-valid and hostile bodies, node ids and tokens', async () => {
    const body: fc.Arbitrary<Json> = fc.oneof(
      fc
        .record(
          {
            callback_url: fc.oneof(fc.constantFrom('http://127.0.0.1:9999', 'https://[::1]:9999', 'ftp://127.0.0.1', ''), awkwardString, hostileValue),
            agent_token: fc.oneof(fc.constant('<token>'), awkwardString, hostileValue),
            agent_version: fc.oneof(fc.constant('9.9.0'), awkwardString, hostileValue),
          },
          { requiredKeys: [] },
        )
        .map((b) => b as Json),
      hostileValue,
    );
    const uuid = fc.oneof(
      fc.constant(HOST.uid),
      short.filter((s) => s !== ''),
    );
    await fuzz(
      fc.asyncProperty(body, uuid, async (b, id) => {
        const text = fuzzText(b).replaceAll('"<token>"', JSON.stringify(token));
        const res = await fetch(`${origin}/v1/heartbeat/${pathSegment(id)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
        await expectSound(res, `heartbeat ${id.slice(0, 40)} ${text.slice(0, 120)}`);
      }),
      100,
    );
  }, 120_000);
});
