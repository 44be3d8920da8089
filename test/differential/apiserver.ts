// A kube-apiserver of its own for the differential areas whose Ironhook side is admission (the
// CRD schema, its CEL rules and the admission policies). It starts as devenv/controlplane.ts
// starts it for the e2e tests (etcd and kube-apiserver on 127.0.0.1) and is driven over one
// keep-alive connection pool: one kubectl process per case would take minutes per sweep.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';

import { startControlPlane } from '../../devenv/controlplane.js';
import { binary, waitFor } from '../../devenv/processes.js';

/** One API answer: the HTTP status and the decoded body (the object, or a Status). */
export interface ApiAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export interface TestApiServer {
  /** One request; `body` is sent as JSON. Never throws for an HTTP error status. */
  request(method: Dispatcher.HttpMethod, path: string, body?: unknown): Promise<ApiAnswer>;
  /**
   * A request per item (none where `toRequest` says undefined), at most `CONCURRENCY` at a time;
   * the answers in the items' order.
   */
  requestAll<T>(items: readonly T[], toRequest: (item: T, index: number) => RequestSpec): Promise<ApiAnswer[]>;
  requestAll<T>(items: readonly T[], toRequest: (item: T, index: number) => RequestSpec | undefined): Promise<(ApiAnswer | undefined)[]>;
  stop(): Promise<void>;
}

interface RequestSpec {
  readonly method: Dispatcher.HttpMethod;
  readonly path: string;
  readonly body?: unknown;
}

/** Parallel requests: enough to keep the API server busy on two cores, no more. */
const CONCURRENCY = 8;

interface Kubeconfig {
  clusters: { cluster: { 'certificate-authority-data': string } }[];
  users: { user: { token: string } }[];
}

export async function startApiServer(): Promise<TestApiServer> {
  for (const name of ['etcd', 'kube-apiserver']) {
    if (!existsSync(binary(name))) throw new Error(`${binary(name)} is missing: run scripts/setup-test-binaries.sh (npm test builds it)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'ironhook-differential-'));
  const plane = await startControlPlane({ dir: join(dir, 'plane'), controllerManager: false });
  const config = JSON.parse(readFileSync(plane.kubeconfig, 'utf8')) as Kubeconfig;
  const ca = Buffer.from(config.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString();
  const authorization = `Bearer ${config.users[0]!.user.token}`;
  const pool = new Pool(plane.server, { connections: CONCURRENCY, connect: { ca } });

  const request = async (method: Dispatcher.HttpMethod, path: string, body?: unknown): Promise<ApiAnswer> => {
    const answer = await pool.request({
      method,
      path,
      headers: { authorization, 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json', accept: 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await answer.body.text();
    return { status: answer.statusCode, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };

  const requestAll = async <T>(items: readonly T[], toRequest: (item: T, index: number) => RequestSpec | undefined): Promise<(ApiAnswer | undefined)[]> => {
    const answers = new Array<ApiAnswer | undefined>(items.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < items.length) {
        const index = next++;
        const spec = toRequest(items[index]!, index);
        answers[index] = spec === undefined ? undefined : await request(spec.method, spec.path, spec.body);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return answers;
  };

  const stop = async (): Promise<void> => {
    await pool.close();
    await plane.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { request, requestAll: requestAll as TestApiServer['requestAll'], stop };
}

/** Fails unless the answer is a success: for the set-up requests, which must all work. */
export function mustSucceed(answer: ApiAnswer, what: string): Record<string, unknown> {
  if (answer.status < 200 || answer.status > 299) {
    throw new Error(`${what}: HTTP ${String(answer.status)}: ${JSON.stringify(answer.body)}`);
  }
  return answer.body;
}

/** Creates a CRD and waits until it is Established (its resource is served). */
export async function installCrd(api: TestApiServer, crd: { metadata: { name: string } }): Promise<void> {
  mustSucceed(await api.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd), `creating CRD ${crd.metadata.name}`);
  await waitFor(`CRD ${crd.metadata.name} Established`, async () => {
    const answer = await api.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
    const conditions = (answer.body.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
    return conditions.some((c) => c.type === 'Established' && c.status === 'True');
  });
}

/** The path of a kind's collection (namespaced resources) for a group/version. */
export function collectionPath(apiVersion: string, namespace: string, plural: string): string {
  return `/apis/${apiVersion}/namespaces/${namespace}/${plural}`;
}

/**
 * Query of every judged write: a server-side dry run (nothing is stored) with kubectl's default
 * field validation, so an unknown field is an error as it is for `kubectl apply`.
 */
export const DRY_RUN = '?dryRun=All&fieldValidation=Strict';

/** Accepted (2xx) or rejected (the API server's refusals: 400, 403, 422); anything else is a harness error. */
export function admissionVerdict(answer: ApiAnswer): { accepted: true; object: Record<string, unknown> } | { accepted: false; error: string } {
  if (answer.status >= 200 && answer.status <= 299) return { accepted: true, object: answer.body };
  if ([400, 403, 422].includes(answer.status)) return { accepted: false, error: String(answer.body.message) };
  throw new Error(`unexpected API answer HTTP ${String(answer.status)}: ${JSON.stringify(answer.body)}`);
}
