// Fuzzed Metacontroller v2 requests for every route the hook server serves, through the real
// express app on 127.0.0.1: known-good requests (golden fixtures and builders), one-field
// near-valid edits, and hostile ones (wrong types, huge arrays, deep nesting, awkward unicode,
// missing maps, observed objects of the wrong kind or name, timestamps out of range). Properties:
// the server keeps answering; a 200 passes the response check and keeps every observed child
// the un-mutated request keeps when the edit is hostile; answers are deterministic and bounded;
// a non-200 has a JSON error body and exactly one log line naming the route and the reason;
// no secret in any log line or error body. FUZZ_SEED and FUZZ_RUNS: test/support/fuzz-knobs.ts.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookRegistry } from '../../hooks/registry.js';
import { createHookServer } from '../../hooks/server/app.js';
import { createLogger } from '../../hooks/server/logging.js';
import { checkRequest, checkResponse } from '../../hooks/server/validation.js';
import { DEFAULT_HOOK_CONFIG, type HookKind } from '../../hooks/types.js';
import { absentAlternative, mayChangeChildren } from '../support/fuzz-hook-legitimacy.js';
import { HOOK_CANARY, hookBases, servedRoutes, type HookBase } from '../support/fuzz-hook-bases.js';
import { mutations, type Mutation } from '../support/fuzz-hook-mutations.js';
import { fuzzText, isObject, valueAt, type Json } from '../support/fuzz-json.js';
import { fuzz } from '../support/fuzz-knobs.js';

interface Answer {
  status: number;
  text: string;
}

const lines: string[] = [];
let server: Server;
let origin = '';
const bases = hookBases();
const baseAnswers = new Map<HookBase, Answer>();

beforeAll(async () => {
  const logger = createLogger({ level: 'debug', destination: { write: (s: string) => lines.push(s) } });
  const app = createHookServer({ registry: hookRegistry, config: DEFAULT_HOOK_CONFIG, logger });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve, reject) => {
    server.close((err) => {
      if (err === undefined) resolve();
      else reject(err);
    });
  });
});

let posted = 0;

/** Waits (without a clock: a few turns of the event loop) until every call so far has logged its line. */
async function allLogged(): Promise<void> {
  for (let i = 0; i < 1_000 && lines.length < posted; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

async function post(base: HookBase, text: string): Promise<Answer> {
  posted += 1;
  const res = await fetch(`${origin}/hooks/${base.controller}/${base.hook}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  return { status: res.status, text: await res.text() };
}

/** `Kind/name` of every observed child (by its map keys, as Metacontroller identifies it). */
function observedChildren(request: Json): Set<string> {
  const out = new Set<string>();
  if (!isObject(request)) return out;
  for (const map of ['children', 'attachments']) {
    const outer = request[map];
    if (!isObject(outer)) continue;
    for (const [key, inner] of Object.entries(outer)) {
      if (!isObject(inner)) continue;
      for (const name of Object.keys(inner)) out.add(`${key.split('.')[0] ?? ''}/${name.split('/').pop() ?? ''}`);
    }
  }
  return out;
}

/** `Kind/name` of every child a response keeps or creates. */
function answeredChildren(response: Json): Set<string> {
  const list = isObject(response) ? (response.children ?? response.attachments) : undefined;
  const out = new Set<string>();
  for (const child of Array.isArray(list) ? list : []) {
    if (isObject(child) && isObject(child.metadata) && typeof child.kind === 'string' && typeof child.metadata.name === 'string') {
      out.add(`${child.kind}/${child.metadata.name}`);
    }
  }
  return out;
}

/** The log lines of the call just made (each call writes its line when the response finishes). */
async function callLines(from: number): Promise<Record<string, unknown>[]> {
  await allLogged();
  return lines.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Observed children the un-mutated request keeps that the answer to the mutated one drops. */
function droppedChildren(base: HookBase, m: Mutation, response: Json): string[] {
  const before = baseAnswers.get(base) as Answer;
  const observed = observedChildren(m.request);
  const kept = [...answeredChildren(JSON.parse(before.text) as Json)].filter((id) => observedChildren(base.request).has(id) && observed.has(id));
  const now = answeredChildren(response);
  return kept.filter((id) => !now.has(id));
}

/** A 200 passes the response check, is bounded, and drops no child on input the hook cannot read. */
async function expectWellFormed200(base: HookBase, m: Mutation, text: string, requestText: string): Promise<void> {
  const response = JSON.parse(text) as Json;
  const shape = checkRequest(base.hook, m.request);
  expect(checkResponse(shape.flavour, response).ok, 'a 200 passes the response check').toBe(true);
  expect(text.length, 'response size bounded by the request').toBeLessThanOrEqual(32 * requestText.length + 256 * 1024);
  if (!m.hostile || base.hook === 'customize' || mayChangeChildren(base.request, m.request, m.path)) return;
  const dropped = droppedChildren(base, m, response);
  if (dropped.length === 0) return;
  // An unreadable spec or status field read as absent: fine when that is the answer to the real
  // input without the field.
  const absent = absentAlternative(base.request, m.request, m.path);
  const alternative = absent === undefined ? undefined : await post(base, fuzzText(absent));
  const same =
    alternative?.status === 200 && [...answeredChildren(JSON.parse(alternative.text) as Json)].sort().join() === [...answeredChildren(response)].sort().join();
  expect(same ? [] : dropped, 'a 200 on input the hook cannot read drops no observed child').toEqual([]);
}

function expectReasonedError(base: HookBase, answer: Answer, logged: Record<string, unknown>[]): void {
  expect(answer.status).toBeGreaterThanOrEqual(400);
  expect(answer.status).toBeLessThan(600);
  const body = JSON.parse(answer.text) as { error?: unknown };
  expect(typeof body.error === 'string' && body.error !== '', 'error body names the reason').toBe(true);
  expect(answer.text.length, 'error body is small').toBeLessThanOrEqual(16 * 1024);
  const calls = logged.filter((l) => l.msg === 'hook call');
  expect(calls, 'one log line per call').toHaveLength(1);
  expect(calls[0]).toMatchObject({ controller: base.controller, hook: base.hook, status: answer.status });
  expect(typeof calls[0]?.error === 'string' && calls[0].error !== '', 'the log line names the reason').toBe(true);
}

/** A counterexample in one line: the route, the base request, what was mutated and how. */
function describeCase(base: HookBase, m: Mutation): string {
  const at = valueAt(m.request, m.path);
  const value = at === undefined ? 'removed' : JSON.stringify(at);
  return `${base.controller}/${base.hook} from ${base.name}: ${m.kind} at /${m.path.join('/')} = ${value.length > 120 ? `${value.slice(0, 120)}… (${value.length} chars)` : value}`;
}

async function check(base: HookBase, m: Mutation): Promise<void> {
  const requestText = fuzzText(m.request);
  await allLogged();
  const from = lines.length;
  const first = await post(base, requestText);
  const logged = await callLines(from);
  const repeat = await post(base, requestText);
  expect(repeat, 'the same request twice answers byte-identically').toEqual(first);
  if (first.status === 200) await expectWellFormed200(base, m, first.text, requestText);
  else expectReasonedError(base, first, logged);
  if (first.status !== 200) expect(first.text).not.toContain(HOOK_CANARY);
  expect(lines.slice(from).join('')).not.toContain(HOOK_CANARY);
  expect(await post(base, JSON.stringify(base.request)), 'a known-good request still gets its answer').toEqual(baseAnswers.get(base));
}

describe('fuzzed hook requests', () => {
  it('has a known-good request answered 200 for every served route', async () => {
    const missing = servedRoutes().filter((r) => !bases.some((b) => b.controller === r.controller && b.hook === r.hook));
    expect(missing).toEqual([]);
    for (const base of bases) {
      const answer = await post(base, JSON.stringify(base.request));
      expect({ base: base.name, hook: base.hook, status: answer.status }).toEqual({ base: base.name, hook: base.hook, status: 200 });
      baseAnswers.set(base, answer);
    }
  }, 60_000);

  it('valid, near-valid and hostile requests: no crash, no partial 200, deterministic, bounded, reasoned errors', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const arbitrary = fc.integer({ min: 0, max: bases.length - 1 }).chain((i) => {
      const base = bases[i] as HookBase;
      return mutations(base.request).map((m) => ({ base, m, [fc.toStringMethod]: () => describeCase(base, m) }));
    });
    await fuzz(
      fc.asyncProperty(arbitrary, async ({ base, m }) => {
        await check(base, m);
      }),
      150,
    );
    const growth = process.memoryUsage().heapUsed - heapBefore;
    expect(growth, 'heap growth over the run (bytes)').toBeLessThan(256 * 1024 * 1024);
  }, 300_000);

  it.each(['sync', 'finalize', 'customize'] as HookKind[])(
    'a body that is not an object is refused on %s routes',
    async (hook) => {
      for (const { controller } of servedRoutes().filter((r) => r.hook === hook)) {
        const base = bases.find((b) => b.controller === controller && b.hook === hook) as HookBase;
        await check(base, { kind: 'top-hostile', hostile: true, path: [], request: ['not', 'an', 'object'] });
      }
    },
    60_000,
  );
});
