// Routing and error paths of the hook server: every failure is a non-200 JSON error (F1).
import fc from 'fast-check';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createHookServer } from '../../hooks/server/app.js';
import { HookInputError, type HookRegistry } from '../../hooks/types.js';

const config = { maxProvisioningRetries: 3, monitorIntervalSeconds: 60 };

function compositeRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    controller: { kind: 'CompositeController', metadata: { name: 'widgets' } },
    parent: { apiVersion: 'acme.io/v1', kind: 'Widget', metadata: { name: 'blue', namespace: 'team-a' }, spec: { size: 2 } },
    children: { 'ConfigMap.v1': { 'team-a/blue': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'blue', namespace: 'team-a' } } } },
    related: {},
    finalizing: false,
    ...overrides,
  };
}

/** The composite request with its one observed ConfigMap child changed by `patch`. */
function withChild(patch: Record<string, unknown>): Record<string, unknown> {
  const child = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'blue', namespace: 'team-a' }, ...patch };
  return compositeRequest({ children: { 'ConfigMap.v1': { 'team-a/blue': child } } });
}

function decoratorRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    controller: { kind: 'DecoratorController', metadata: { name: 'labels' } },
    object: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'pg', namespace: 'db' } },
    attachments: {},
    related: {},
    finalizing: false,
    ...overrides,
  };
}

interface Req {
  parent?: { metadata: { name: string } };
  object?: { metadata: { name: string } };
  finalizing?: boolean;
}

const registry: HookRegistry = {
  widget: {
    sync: (req, ctx) => ({
      status: { retries: ctx.config.maxProvisioningRetries, name: (req as Req).parent?.metadata.name },
      children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }],
      resyncAfterSeconds: 30,
    }),
    finalize: () => ({ status: {}, children: [], finalized: true }),
    customize: () => ({ relatedResources: [{ apiVersion: 'v1', resource: 'secrets', namespace: 'shared' }] }),
  },
  labels: {
    sync: (req) => ({ labels: { seen: (req as Req).object?.metadata.name ?? null }, status: null, attachments: [] }),
  },
  faulty: {
    sync: () => {
      throw new Error('boom at line 1');
    },
    finalize: () => {
      throw new HookInputError('spec.bmc.address is missing', ['/parent/spec/bmc/address is required']);
    },
    customize: () => undefined,
  },
  partial: {
    sync: () => ({ status: { ready: 1 } }), // no children: Metacontroller would delete them all
    finalize: () => ({ status: {}, children: [], finalised: true }), // typo: strict v2 decoding fails
    customize: () => [{ apiVersion: 'v1', resource: 'secrets' }], // a bare array is a decode error
  },
  odd: {
    sync: () => ({ status: { big: 10n }, children: [] }), // not serialisable
    finalize: async () => Promise.resolve({ status: {}, children: [] }), // hooks are synchronous
    customize: () => null,
  },
};

const app = createHookServer({ registry, config });

interface Row {
  name: string;
  path: string;
  body?: unknown;
  raw?: string;
  contentType?: string;
  status: number;
  error?: string | RegExp;
  text?: string;
}

const rows: Row[] = [
  {
    name: 'composite sync answers the hook result as canonical JSON (keys sorted at every level)',
    path: '/hooks/widget/sync',
    body: compositeRequest(),
    status: 200,
    text: '{"children":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}],"resyncAfterSeconds":30,"status":{"name":"blue","retries":3}}',
  },
  {
    name: 'finalize is routed to the finalize hook',
    path: '/hooks/widget/finalize',
    body: compositeRequest({ finalizing: true }),
    status: 200,
    text: '{"children":[],"finalized":true,"status":{}}',
  },
  {
    name: 'customize needs only the parent',
    path: '/hooks/widget/customize',
    body: { controller: {}, parent: { apiVersion: 'acme.io/v1', kind: 'Widget', metadata: { name: 'blue' } } },
    status: 200,
    text: '{"relatedResources":[{"apiVersion":"v1","namespace":"shared","resource":"secrets"}]}',
  },
  {
    name: 'decorator flavour is chosen from the body (object, attachments)',
    path: '/hooks/labels/sync',
    body: decoratorRequest(),
    status: 200,
    text: '{"attachments":[],"labels":{"seen":"pg"},"status":null}',
  },
  {
    name: 'charset parameter on the content type is fine',
    path: '/hooks/widget/sync',
    raw: JSON.stringify(compositeRequest()),
    contentType: 'application/json; charset=utf-8',
    status: 200,
  },
  { name: 'unknown controller is 404', path: '/hooks/nope/sync', body: compositeRequest(), status: 404, error: 'no such hook' },
  { name: 'unknown hook kind is 404', path: '/hooks/widget/delete', body: compositeRequest(), status: 404, error: 'no such hook' },
  { name: 'hook kind the controller lacks is 404', path: '/hooks/labels/finalize', body: decoratorRequest(), status: 404 },
  { name: 'prototype keys are not controllers', path: '/hooks/constructor/sync', body: compositeRequest(), status: 404 },
  { name: 'prototype keys are not hooks', path: '/hooks/widget/toString', body: compositeRequest(), status: 404 },
  { name: '__proto__ is not a controller', path: '/hooks/__proto__/sync', body: compositeRequest(), status: 404 },
  { name: 'paths outside /hooks are 404', path: '/sync', body: compositeRequest(), status: 404, error: 'not found' },
  { name: 'text/plain is 415', path: '/hooks/widget/sync', raw: JSON.stringify(compositeRequest()), contentType: 'text/plain', status: 415 },
  { name: 'form encoding is 415', path: '/hooks/widget/sync', raw: 'a=b', contentType: 'application/x-www-form-urlencoded', status: 415 },
  { name: 'a non-UTF charset is 415', path: '/hooks/widget/sync', raw: '{}', contentType: 'application/json; charset=latin1', status: 415 },
  {
    name: 'invalid JSON is 400',
    path: '/hooks/widget/sync',
    raw: '{"parent": ',
    contentType: 'application/json',
    status: 400,
    error: 'request body is not valid JSON',
  },
  {
    name: 'a top-level array is 400',
    path: '/hooks/widget/sync',
    raw: '[]',
    contentType: 'application/json',
    status: 400,
    error: 'request body must be a JSON object',
  },
  {
    name: 'a top-level string is 400',
    path: '/hooks/widget/sync',
    raw: '"sync"',
    contentType: 'application/json',
    status: 400,
    error: 'request body must be a JSON object',
  },
  { name: 'a top-level null is 400', path: '/hooks/widget/sync', raw: 'null', contentType: 'application/json', status: 400 },
  { name: 'an empty body is 400', path: '/hooks/widget/sync', raw: '', contentType: 'application/json', status: 400 },
  { name: 'composite without children is 400', path: '/hooks/widget/sync', body: compositeRequest({ children: undefined }), status: 400, error: /composite/ },
  { name: 'composite without parent name is 400', path: '/hooks/widget/sync', body: compositeRequest({ parent: { metadata: {} } }), status: 400 },
  { name: 'composite with a string finalizing is 400', path: '/hooks/widget/sync', body: compositeRequest({ finalizing: 'false' }), status: 400 },
  { name: 'composite with children as a list is 400', path: '/hooks/widget/sync', body: compositeRequest({ children: [] }), status: 400 },
  // Found by fuzzing: Metacontroller always sends `related` ({} when nothing is related); a hook
  // read a missing map as "nothing related" and dropped the children that depend on it.
  {
    name: 'fuzz: composite without related is 400',
    path: '/hooks/widget/sync',
    body: compositeRequest({ related: undefined }),
    status: 400,
    error: /composite/,
  },
  {
    name: 'fuzz: decorator without related is 400',
    path: '/hooks/labels/sync',
    body: decoratorRequest({ related: undefined }),
    status: 400,
    error: /decorator/,
  },
  // Found by test/unit/fuzz-hooks.test.ts: an observed object that is not the object its map keys
  // name was read past, and the 200 without it would have made Metacontroller delete the child.
  {
    name: 'fuzz: a child of another kind than its map key is 400',
    path: '/hooks/widget/sync',
    body: withChild({ apiVersion: 'v1', kind: 'Secret' }),
    status: 400,
    error: /observed objects/,
  },
  {
    name: 'fuzz: a child named otherwise than its map key is 400',
    path: '/hooks/widget/sync',
    body: withChild({ metadata: { name: 'red', namespace: 'team-a' } }),
    status: 400,
    error: /observed objects/,
  },
  {
    name: 'fuzz: a child that is not a Kubernetes object is 400',
    path: '/hooks/widget/sync',
    body: withChild({ metadata: 5 }),
    status: 400,
    error: /observed objects/,
  },
  {
    name: 'fuzz: a child outside its parent namespace is 400',
    path: '/hooks/widget/sync',
    body: compositeRequest({
      children: { 'ConfigMap.v1': { 'team-b/blue': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'blue', namespace: 'team-b' } } } },
    }),
    status: 400,
    error: /observed objects/,
  },
  {
    name: 'fuzz: a related object of another kind than its map key is 400',
    path: '/hooks/widget/sync',
    body: compositeRequest({ related: { 'Secret.v1': { 'team-a/s': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 's', namespace: 'team-a' } } } } }),
    status: 400,
    error: /observed objects/,
  },
  {
    name: 'fuzz: an attachment named otherwise than its map key is 400',
    path: '/hooks/labels/sync',
    body: decoratorRequest({ attachments: { 'ConfigMap.v1': { 'db/a': { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: 'db' } } } } }),
    status: 400,
    error: /observed objects/,
  },
  {
    name: 'fuzz: a parent name that is not a DNS subdomain is 400',
    path: '/hooks/widget/sync',
    body: compositeRequest({ parent: { apiVersion: 'acme.io/v1', kind: 'Widget', metadata: { name: '\u0000', namespace: 'team-a' } } }),
    status: 400,
    error: /composite/,
  },
  {
    name: 'fuzz: a parent namespace that is not a DNS label is 400',
    path: '/hooks/widget/sync',
    body: compositeRequest({ parent: { apiVersion: 'acme.io/v1', kind: 'Widget', metadata: { name: 'blue', namespace: 'Team A' } } }),
    status: 400,
    error: /composite/,
  },
  {
    name: 'fuzz: a child without a namespace under a namespace key is 400',
    path: '/hooks/widget/sync',
    body: withChild({ metadata: { name: 'blue' } }),
    status: 400,
    error: /observed objects/,
  },
  {
    name: 'fuzz: a child whose namespace is not a string is 400',
    path: '/hooks/widget/sync',
    body: withChild({ metadata: { name: 'blue', namespace: true } }),
    status: 400,
    error: /observed objects/,
  },
  {
    name: 'fuzz: a related object whose spec is not an object is 400',
    path: '/hooks/widget/sync',
    body: compositeRequest({
      related: { 'Secret.v1': { 'team-a/s': { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'team-a' }, spec: -1 } } },
    }),
    status: 400,
    error: /observed objects/,
  },
  {
    name: 'fuzz: a parent whose spec is not an object is 400',
    path: '/hooks/widget/sync',
    body: compositeRequest({ parent: { apiVersion: 'acme.io/v1', kind: 'Widget', metadata: { name: 'blue', namespace: 'team-a' }, spec: 'big' } }),
    status: 400,
    error: /composite/,
  },
  { name: 'a child filed under its namespace and name is accepted', path: '/hooks/widget/sync', body: compositeRequest(), status: 200 },
  {
    name: 'decorator without attachments is 400',
    path: '/hooks/labels/sync',
    body: decoratorRequest({ attachments: undefined }),
    status: 400,
    error: /decorator/,
  },
  { name: 'customize without parent is 400', path: '/hooks/widget/customize', body: { controller: {} }, status: 400, error: /customize/ },
  {
    name: 'HookInputError is 400 with its details',
    path: '/hooks/faulty/finalize',
    body: compositeRequest({ finalizing: true }),
    status: 400,
    error: 'spec.bmc.address is missing',
  },
  { name: 'a hook that throws is 500', path: '/hooks/faulty/sync', body: compositeRequest(), status: 500, error: 'internal error' },
  { name: 'a hook that returns undefined is 500', path: '/hooks/faulty/customize', body: { parent: { metadata: { name: 'a' } } }, status: 500 },
  { name: 'a response without children is 500, not a 200 that deletes them', path: '/hooks/partial/sync', body: compositeRequest(), status: 500 },
  { name: 'a response with an undocumented key is 500', path: '/hooks/partial/finalize', body: compositeRequest({ finalizing: true }), status: 500 },
  { name: 'a customize answer that is a bare array is 500', path: '/hooks/partial/customize', body: { parent: { metadata: { name: 'a' } } }, status: 500 },
  { name: 'an unserialisable response is 500', path: '/hooks/odd/sync', body: compositeRequest(), status: 500 },
  { name: 'a promise is not a response', path: '/hooks/odd/finalize', body: compositeRequest({ finalizing: true }), status: 500 },
  { name: 'null is not a response', path: '/hooks/odd/customize', body: { parent: { metadata: { name: 'a' } } }, status: 500 },
];

function post(row: Row): request.Test {
  const req = request(app).post(row.path);
  if (row.raw !== undefined) return req.set('Content-Type', row.contentType ?? 'application/json').send(row.raw);
  return req.set('Content-Type', 'application/json').send(JSON.stringify(row.body));
}

describe('hook routes', () => {
  it.each(rows)('$name', async (row) => {
    const res = await post(row);
    expect(res.status).toBe(row.status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    if (row.text !== undefined) expect(res.text).toBe(row.text);
    if (row.status === 200) return;
    const body = JSON.parse(res.text) as { error: unknown; details?: unknown };
    expect(typeof body.error).toBe('string');
    if (row.error !== undefined) expect(body.error).toMatch(row.error);
    if (row.status >= 500) expect(res.text).toBe('{"error":"internal error"}');
  });

  it('a 400 carries details naming the failing paths', async () => {
    const res = await post({ name: '', path: '/hooks/widget/sync', body: compositeRequest({ children: undefined, finalizing: 1 }), status: 400 });
    const body = JSON.parse(res.text) as { details: string[] };
    expect(body.details).toEqual(expect.arrayContaining(["/ must have required property 'children'", '/finalizing must be boolean']));
  });

  it('fuzz: a 400 names a huge key by its first characters only', async () => {
    const huge = 'k'.repeat(70_000);
    const res = await post({ name: '', path: '/hooks/widget/sync', body: compositeRequest({ related: { [huge]: 5 } }), status: 400 });
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(1_000);
    expect((JSON.parse(res.text) as { details: string[] }).details).toEqual([`/related/${'k'.repeat(100)}… must be object`]);
  });

  it('HookInputError details are passed through', async () => {
    const res = await post({ name: '', path: '/hooks/faulty/finalize', body: compositeRequest({ finalizing: true }), status: 400 });
    expect(JSON.parse(res.text)).toEqual({ error: 'spec.bmc.address is missing', details: ['/parent/spec/bmc/address is required'] });
  });

  it('a 500 never carries the stack or the thrown message', async () => {
    const res = await post({ name: '', path: '/hooks/faulty/sync', body: compositeRequest(), status: 500 });
    expect(res.text).not.toContain('boom');
  });

  it.each(['get', 'put', 'delete'] as const)('%s on a hook path is 405 with Allow: POST', async (method) => {
    const res = await request(app)[method]('/hooks/widget/sync');
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });

  it('answers carry no ETag and no X-Powered-By', async () => {
    const res = await post({ name: '', path: '/hooks/widget/sync', body: compositeRequest(), status: 200 });
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

describe('body limit', () => {
  const small = createHookServer({ registry, config, bodyLimit: '1kb' });
  const big = compositeRequest({ parent: { metadata: { name: 'blue' }, spec: { pad: 'x'.repeat(2048) } } });

  it('a body over the limit is 413 JSON', async () => {
    const res = await request(small).post('/hooks/widget/sync').set('Content-Type', 'application/json').send(JSON.stringify(big));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ error: 'request body is larger than the server accepts' });
  });

  it('the default limit takes multi-MB Metacontroller requests', async () => {
    const children: Record<string, unknown> = {};
    for (let i = 0; i < 2000; i++) {
      children[`team-a/cm-${i}`] = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, namespace: 'team-a' },
        data: { blob: 'y'.repeat(1000) },
      };
    }
    const body = JSON.stringify(compositeRequest({ children: { 'ConfigMap.v1': children } }));
    expect(body.length).toBeGreaterThan(2_000_000);
    const res = await request(app).post('/hooks/widget/sync').set('Content-Type', 'application/json').send(body);
    expect(res.status).toBe(200);
  });
});

describe('never a 200 on error', () => {
  it('random JSON to a throwing hook is never answered 200', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const res = await request(app).post('/hooks/faulty/sync').set('Content-Type', 'application/json').send(JSON.stringify(value));
        expect(res.status).not.toBe(200);
        expect(typeof (JSON.parse(res.text) as { error: unknown }).error).toBe('string');
      }),
      { numRuns: 60 },
    );
  });

  it('random JSON to a healthy hook is 200 exactly when it has the composite shape', async () => {
    // Kubernetes names, and observed children filed under the keys Metacontroller gives them.
    const dnsName = fc.stringMatching(/^[a-z0-9](?:[-a-z0-9]{0,20}[a-z0-9])?$/);
    const child = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} });
    const shaped = fc.record({
      parent: fc.record({ metadata: fc.record({ name: dnsName }) }),
      children: fc.uniqueArray(dnsName, { maxLength: 4 }).map((names) => ({ 'ConfigMap.v1': Object.fromEntries(names.map((n) => [n, child(n)])) })),
      related: fc.constant({}),
      finalizing: fc.boolean(),
    });
    // Any JSON without a `parent` key can never be a composite request.
    const unshaped = fc.jsonValue().filter((v) => !(typeof v === 'object' && v !== null && 'parent' in v));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          shaped.map((v) => ({ v, ok: true })),
          unshaped.map((v) => ({ v, ok: false })),
        ),
        async ({ v, ok }) => {
          const res = await request(app).post('/hooks/widget/sync').set('Content-Type', 'application/json').send(JSON.stringify(v));
          expect(res.status).toBe(ok ? 200 : 400);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('probes', () => {
  it('GET /healthz is 200', async () => {
    const res = await request(app).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('GET /readyz is 200 for an app without a readiness source', async () => {
    const res = await request(app).get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });
});
