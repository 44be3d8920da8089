// The pure parts of the Cluster API request runner (drivers/cluster): which ObjectPatch targets
// are allowed, condition upserts, how a refused patch is judged (already applied, which test
// fails), how the client-node client reports failures (Status fields, deadline, unreachable
// server, TLS verification), and the Wait timer. The API-facing parts run against real apiservers in
// test/integration/cluster-requests.test.ts.
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { ApiException, KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConditionUpsert, JsonPatchOperation, NodeOperation, ObjectPatch, PatchTarget } from '../../domain/capi/requests.js';
import { KubeApi, verifiedTLS } from '../../drivers/kube/api.js';
import { classify } from '../../drivers/pool/errors.js';
import { KubeStatusError, RequestTimeout, kubeStatusErrorFrom } from '../../drivers/kube/errors.js';
import { upsertConditions } from '../../drivers/cluster/conditions.js';
import { requestEvent } from '../../drivers/cluster/events.js';
import { executeNodeOperation, labelChanges } from '../../drivers/cluster/node-operation.js';
import type { WorkloadClients } from '../../drivers/cluster/workload.js';
import type { Clock } from '../../drivers/pool/clock.js';
import { alreadyApplied, failingTest } from '../../drivers/cluster/json-pointer.js';
import { transientError } from '../../drivers/cluster/outcome.js';
import { checkTarget, refPath } from '../../drivers/cluster/targets.js';

const NS = 'metal3';
const T0 = '2026-11-29T15:00:00Z';
const T1 = '2026-11-29T15:05:00Z';

function patch(target: Partial<PatchTarget>, operations: JsonPatchOperation[] = [], conditions?: ConditionUpsert[]): ObjectPatch {
  return {
    apiVersion: 'ironhook.dev/v1alpha1',
    kind: 'ObjectPatch',
    metadata: { name: 'p', namespace: NS },
    spec: {
      target: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', namespace: NS, name: 'h', ...target },
      operations,
      ...(conditions && { conditions }),
    },
  };
}

describe('checkTarget', () => {
  const label: JsonPatchOperation = { op: 'add', path: '/metadata/labels/a~1b', value: 'c' };
  // prettier-ignore
  const ROWS: [string, ObjectPatch, string][] = [
    ['BareMetalHost', patch({}), '/apis/metal3.io/v1alpha1/namespaces/metal3/baremetalhosts/h'],
    ['Machine status v1beta2', patch({ apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine', subresource: 'status' }), '/apis/cluster.x-k8s.io/v1beta2/namespaces/metal3/machines/h/status'],
    ['Metal3Machine v1beta1', patch({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine' }), '/apis/infrastructure.cluster.x-k8s.io/v1beta1/namespaces/metal3/metal3machines/h'],
    ['Metal3Remediation', patch({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Remediation' }), '/apis/infrastructure.cluster.x-k8s.io/v1beta2/namespaces/metal3/metal3remediations/h'],
    ['Secret labels', patch({ apiVersion: 'v1', kind: 'Secret' }, [label, { op: 'add', path: '/metadata/labels', value: {} }]), '/api/v1/namespaces/metal3/secrets/h'],
    ['other namespace', patch({ namespace: 'kube-system' }), "is not the request's namespace"],
    ['unknown version', patch({ apiVersion: 'metal3.io/v1beta9' }), 'not a kind the driver pool patches'],
    ['Node', patch({ apiVersion: 'v1', kind: 'Node' }), 'not a kind the driver pool patches'],
    ['host status', patch({ subresource: 'status' }), 'does not patch the status'],
    ['Secret data', patch({ apiVersion: 'v1', kind: 'Secret' }, [{ op: 'add', path: '/data/x', value: 'eA==' }]), 'may only touch /metadata/labels'],
    ['Secret move from data', patch({ apiVersion: 'v1', kind: 'Secret' }, [{ op: 'move', from: '/data/x', path: '/metadata/labels/x' }]), 'may only touch /metadata/labels'],
    ['Secret label of a label', patch({ apiVersion: 'v1', kind: 'Secret' }, [{ op: 'add', path: '/metadata/labels/a/b', value: 'c' }]), 'may only touch /metadata/labels'],
    ['Secret conditions', patch({ apiVersion: 'v1', kind: 'Secret' }, [label], [{ path: '/status/conditions', condition: { type: 'X', status: 'True' } }]), 'has no conditions'],
  ];

  it.each(ROWS)('%s', (_name, request, want) => {
    const check = checkTarget(request);
    expect(check.kind === 'allowed' ? refPath(check.ref) : check.message).toContain(want);
    expect(check.kind).toBe(want.startsWith('/') ? 'allowed' : 'rejected');
  });
});

describe('upsertConditions', () => {
  const ready = (status: 'True' | 'False', message = ''): ConditionUpsert => ({
    path: '/status/conditions',
    condition: { type: 'Ready', status, reason: 'R', message },
  });
  // prettier-ignore
  const ROWS: { name: string; before: Record<string, unknown>; upserts: ConditionUpsert[]; kind: string; after?: unknown }[] = [
    { name: 'creates status and the list', before: {}, upserts: [ready('True')], kind: 'changed', after: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: '', lastTransitionTime: T1 }] } } },
    { name: 'same content: unchanged', before: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: '', lastTransitionTime: T0 }] } }, upserts: [ready('True')], kind: 'unchanged' },
    { name: 'message only: time kept', before: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: '', lastTransitionTime: T0 }] } }, upserts: [ready('True', 'm')], kind: 'changed', after: { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'R', message: 'm', lastTransitionTime: T0 }] } } },
    { name: 'status flips: time moves, others kept', before: { status: { conditions: [{ type: 'A', status: 'True', reason: 'x', message: '', lastTransitionTime: T0 }, { type: 'Ready', status: 'True', reason: 'R', message: '', lastTransitionTime: T0, observedGeneration: 2 }] } }, upserts: [ready('False')], kind: 'changed', after: { status: { conditions: [{ type: 'A', status: 'True', reason: 'x', message: '', lastTransitionTime: T0 }, { type: 'Ready', status: 'False', reason: 'R', message: '', lastTransitionTime: T1, observedGeneration: 2 }] } } },
    { name: 'path through a string', before: { status: 'x' }, upserts: [ready('True')], kind: 'invalid' },
    { name: 'list is an object', before: { status: { conditions: {} } }, upserts: [ready('True')], kind: 'invalid' },
    { name: 'root pointer', before: {}, upserts: [{ ...ready('True'), path: '' }], kind: 'invalid' },
  ];

  it.each(ROWS)('$name → $kind', (row) => {
    const document = structuredClone(row.before);
    expect(upsertConditions(document, row.upserts, T1).kind).toBe(row.kind);
    if (row.after !== undefined) {
      expect(document).toEqual(row.after);
    }
  });
});

describe('judging a refused patch', () => {
  const host = { metadata: { resourceVersion: '7', labels: { 'a/b': 'c' } }, spec: { online: true, consumerRef: { name: 'm1' } } };
  // prettier-ignore
  const ROWS: { name: string; operations: JsonPatchOperation[]; applied: boolean; failing?: string }[] = [
    { name: 'claim already there', operations: [{ op: 'test', path: '/metadata/resourceVersion', value: '6' }, { op: 'add', path: '/spec/consumerRef', value: { name: 'm1' } }], applied: true, failing: '/metadata/resourceVersion' },
    { name: 'claimed by another', operations: [{ op: 'test', path: '/metadata/resourceVersion', value: '6' }, { op: 'add', path: '/spec/consumerRef', value: { name: 'm2' } }], applied: false, failing: '/metadata/resourceVersion' },
    { name: 'removal done', operations: [{ op: 'remove', path: '/spec/image' }], applied: true },
    { name: 'escaped label present', operations: [{ op: 'replace', path: '/metadata/labels/a~1b', value: 'c' }], applied: true },
    { name: 'append is unknowable', operations: [{ op: 'add', path: '/spec/list/-', value: 1 }], applied: false },
    { name: 'copy is unknowable', operations: [{ op: 'copy', from: '/spec/online', path: '/spec/other' }], applied: false },
    { name: 'only tests', operations: [{ op: 'test', path: '/spec/online', value: true }], applied: false },
    { name: 'null test of a missing path passes', operations: [{ op: 'test', path: '/spec/image', value: null }], applied: false },
    { name: 'value test of a missing path fails', operations: [{ op: 'test', path: '/spec/image', value: {} }], applied: false, failing: '/spec/image' },
  ];

  it.each(ROWS)('$name', (row) => {
    expect(alreadyApplied(host, row.operations)).toBe(row.applied);
    expect(failingTest(host, row.operations)?.path).toBe(row.failing);
  });
});

describe('kubeStatusErrorFrom: client-node ApiException → the Status fields, nothing else', () => {
  const status = {
    kind: 'Status',
    status: 'Failure',
    reason: 'Invalid',
    message: 'BareMetalHost "h" is invalid',
    code: 422,
    details: { causes: [{ field: 'spec.online', message: 'must be boolean' }, { message: 'no field' }] },
  };
  const headers = { 'audit-id': 'audit-canary', 'content-type': 'application/json' };
  // prettier-ignore
  const ROWS: { name: string; code: number; body: unknown; want: { code: number; reason: string; message: string; causes: string[] } }[] = [
    { name: 'Status as the raw text', code: 422, body: JSON.stringify(status), want: { code: 422, reason: 'Invalid', message: 'BareMetalHost "h" is invalid', causes: ['spec.online: must be boolean', 'no field'] } },
    { name: 'Status already parsed', code: 409, body: { kind: 'Status', reason: 'Conflict', message: 'the object has been modified' }, want: { code: 409, reason: 'Conflict', message: 'the object has been modified', causes: [] } },
    { name: 'Status without a message', code: 500, body: { kind: 'Status' }, want: { code: 500, reason: '', message: 'HTTP 500', causes: [] } },
    { name: 'not a Status: raw text, shortened', code: 502, body: `bad gateway ${'x'.repeat(600)}`, want: { code: 502, reason: '', message: `HTTP 502: bad gateway ${'x'.repeat(488)}`, causes: [] } },
    { name: 'no body (401)', code: 401, body: undefined, want: { code: 401, reason: '', message: 'HTTP 401', causes: [] } },
  ];

  it.each(ROWS)('$name', (row) => {
    const error = kubeStatusErrorFrom(new ApiException<unknown>(row.code, 'Unknown API Status Code!', row.body, headers));
    expect(error).toBeInstanceOf(KubeStatusError);
    const { code, reason, message, causes } = error;
    expect({ code, reason, message, causes }).toEqual(row.want);
    expect(message).not.toContain('audit-canary');
  });
});

describe('verifiedTLS', () => {
  it('turns off skipTLSVerify and keeps the rest of the kubeconfig', () => {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', caData: 'Y2E=', skipTLSVerify: true }],
      users: [{ name: 'u', token: 'tok' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const verified = verifiedTLS(config);
    expect(verified.getCurrentCluster()).toEqual({ name: 'c', server: 'https://127.0.0.1:6443', caData: 'Y2E=', skipTLSVerify: false });
    expect(verified.getCurrentUser()).toEqual(config.getCurrentUser());
    expect(config.getCurrentCluster()?.skipTLSVerify).toBe(true);
  });
});

describe('KubeApi failures as transient outcomes', () => {
  const TOKEN = 'canary-token-4b1d';
  const sockets: Socket[] = [];
  let server: Server | undefined;

  afterEach(async () => {
    sockets.forEach((socket) => socket.destroy());
    sockets.length = 0;
    await new Promise<void>((resolve) => {
      if (server === undefined) {
        resolve();
      } else {
        server.close(() => {
          resolve();
        });
      }
    });
    server = undefined;
  });

  /** A loopback port that takes connections and never answers (no TLS handshake either). */
  async function silentServer(): Promise<number> {
    const listening = createServer((socket) => sockets.push(socket));
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    return (listening.address() as { port: number }).port;
  }

  /** A loopback port nothing listens on. */
  async function closedPort(): Promise<number> {
    const port = await silentServer();
    await new Promise<void>((resolve) =>
      server?.close(() => {
        resolve();
      }),
    );
    server = undefined;
    return port;
  }

  function clientFor(port: number, timeoutMs: number): KubeApi {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'c', server: `https://127.0.0.1:${String(port)}`, skipTLSVerify: false }],
      users: [{ name: 'u', token: TOKEN }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    return new KubeApi(verifiedTLS(config), timeoutMs);
  }

  const ROWS: { name: string; port: () => Promise<number>; error: unknown; reason: string }[] = [
    { name: 'no answer within the deadline', port: silentServer, error: RequestTimeout, reason: 'Timeout' },
    { name: 'connection refused', port: closedPort, error: Error, reason: 'APIServerUnreachable' },
  ];

  it.each(ROWS)('$name → Transient $reason, credentials never in the message', async (row) => {
    const api = clientFor(await row.port(), 150);
    const failure = await api
      .call('GET Node n', (options) => api.core.readNode({ name: 'n' }, options))
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failure).toBeInstanceOf(row.error);
    const outcome = transientError(failure, [TOKEN]);
    expect(outcome).toMatchObject({ kind: 'Transient', reason: row.reason });
    expect(outcome.message).not.toContain(TOKEN);
    // The driver pool's classification names the apiserver too, never the BMC.
    expect(classify(failure, [TOKEN])).toMatchObject({ kind: 'Transient', reason: row.reason });
  });
});

describe('requestEvent: the Event a finished request leaves', () => {
  const owner = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Machine', name: 'w-1', uid: 'm3m-uid', controller: true };
  const claim: ObjectPatch = {
    ...patch({ name: 'host-a' }),
    metadata: { name: 'w-1-claim-2', namespace: NS, uid: 'p-uid', labels: { 'ironhook.dev/purpose': 'claim' }, ownerReferences: [owner] },
  };
  const fence: NodeOperation = {
    apiVersion: 'ironhook.dev/v1alpha1',
    kind: 'NodeOperation',
    metadata: { name: 'r-fence-1', namespace: NS, uid: 'n-uid' },
    spec: { action: 'Fence', cluster: { name: 'c1' }, node: { name: 'node-a' } },
  };
  // prettier-ignore
  const ROWS: { name: string; request: ObjectPatch | NodeOperation; status: Record<string, unknown>; want: Record<string, unknown> }[] = [
    { name: 'applied patch: Normal on the owning Metal3Machine', request: claim, status: { phase: 'Succeeded', reason: 'Applied', message: 'patch applied' }, want: { reason: 'ObjectPatchApplied', type: 'Normal', target: { kind: 'Metal3Machine', name: 'w-1', uid: 'm3m-uid' }, message: 'ObjectPatch w-1-claim-2 (claim) on BareMetalHost host-a: patch applied' } },
    { name: 'failed test: Warning', request: claim, status: { phase: 'Failed', reason: 'TestFailed', message: 'the test of /metadata/resourceVersion failed' }, want: { reason: 'ObjectPatchTestFailed', type: 'Warning' } },
    { name: 'node operation without an owner: on the request itself', request: fence, status: { phase: 'Succeeded', message: 'deleted Node node-a' }, want: { reason: 'NodeOperationSucceeded', type: 'Normal', target: { kind: 'NodeOperation', name: 'r-fence-1', uid: 'n-uid' }, message: 'NodeOperation r-fence-1: Fence of Node node-a in cluster c1: deleted Node node-a' } },
    { name: 'failed node operation: Warning, no message', request: fence, status: { phase: 'Failed' }, want: { reason: 'NodeOperationFailed', type: 'Warning', message: 'NodeOperation r-fence-1: Fence of Node node-a in cluster c1' } },
  ];

  it.each(ROWS)('$name', (row) => {
    expect(requestEvent(row.request, row.status)).toMatchObject(row.want);
  });
});

describe('labelChanges: a SyncLabels merge patch', () => {
  const PREFIXES = ['rack.example.com', 'zone.example.com'];
  // prettier-ignore
  const ROWS: { name: string; node: Record<string, string> | undefined; wanted: Record<string, string>; changes: Record<string, string | null> }[] = [
    { name: 'a Node without labels gets the wanted ones', node: undefined, wanted: { 'rack.example.com/row': 'r7' }, changes: { 'rack.example.com/row': 'r7' } },
    { name: 'equal: nothing to change', node: { 'rack.example.com/row': 'r7', 'kubernetes.io/hostname': 'n' }, wanted: { 'rack.example.com/row': 'r7' }, changes: {} },
    { name: 'a changed value is set', node: { 'rack.example.com/row': 'r6' }, wanted: { 'rack.example.com/row': 'r7' }, changes: { 'rack.example.com/row': 'r7' } },
    { name: 'a label under a prefix the host lacks is removed', node: { 'zone.example.com/name': 'z1', 'rack.example.com/row': 'r7' }, wanted: { 'rack.example.com/row': 'r7' }, changes: { 'zone.example.com/name': null } },
    { name: 'labels outside the prefixes are never touched', node: { 'other.io/x': 'y', 'example.com/row': 'a', plain: 'p', 'sub.rack.example.com/a': 'b' }, wanted: {}, changes: {} },
  ];

  it.each(ROWS)('$name', (row) => {
    expect(labelChanges(row.node, PREFIXES, row.wanted)).toEqual(row.changes);
  });
});

describe('NodeOperation Wait: a timer that contacts no cluster', () => {
  const noCluster = {
    forCluster: () => {
      throw new Error('a Wait must not reach a workload cluster');
    },
  } as unknown as WorkloadClients;
  const wait = (until?: string): NodeOperation => ({
    apiVersion: 'ironhook.dev/v1alpha1',
    kind: 'NodeOperation',
    metadata: { name: 'worker-0-timeout-1', namespace: NS },
    spec: { action: 'Wait', cluster: { name: 'c1' }, node: {}, ...(until !== undefined && { until }) },
  });
  const ROWS = [
    {
      name: 'before until: waiting, looked at again exactly then',
      now: T0,
      until: T1,
      want: { kind: 'waiting', message: `waiting until ${T1}`, afterMs: 300_000 },
    },
    { name: 'at until: succeeded, completed then', now: T1, until: T1, want: { kind: 'finished', status: { phase: 'Succeeded', completionTime: T1 } } },
    {
      name: 'a pool that restarted late: succeeded when it looks',
      now: '2026-11-29T16:00:00Z',
      until: T1,
      want: { kind: 'finished', status: { phase: 'Succeeded', completionTime: '2026-11-29T16:00:00Z' } },
    },
    {
      name: 'no until: failed, permanent',
      now: T0,
      until: undefined,
      want: { kind: 'finished', status: { phase: 'Failed', error: { kind: 'Permanent', reason: 'InvalidSpec' } } },
    },
  ];
  it.each(ROWS)('$name', async (row) => {
    const clock = { now: () => Date.parse(row.now) } as unknown as Clock;
    const outcome = await executeNodeOperation({ workloads: noCluster, clock, saveProgress: async () => Promise.resolve() }, wait(row.until));
    expect(outcome).toMatchObject(row.want);
  });
});
