// client-node 1.4's typed APIs on one KubeConfig, every call optionally with a deadline (an
// AbortSignal set by a per-call middleware) and the patch content type set per call (client-node's
// setHeaderOptions). client-node's ApiException becomes a KubeStatusError (errors.ts), so the real
// adapter fails the way the in-memory port does. The KubePort adapter (client.ts) is built on it,
// and so are the Cluster API executors for the objects they write (drivers/cluster/objects.ts,
// Nodes of workload clusters).
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  Observable,
  PatchStrategy,
  StorageV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { ConfigurationOptions, ObservableMiddleware, RequestContext, ResponseContext } from '@kubernetes/client-node';
import { errorCode } from '../errors.js';
import { KeepAliveAgents } from './agents.js';
import { APIServerUnreachable, RequestTimeout, kubeStatusErrorFrom } from './errors.js';

export const JSON_PATCH = PatchStrategy.JsonPatch;
export const MERGE_PATCH = PatchStrategy.MergePatch;

/** Puts the shared keep-alive agent in place of the one client-node made for this call (agents.ts). */
function keepAlive(agents: KeepAliveAgents): ObservableMiddleware {
  return {
    pre: (context: RequestContext) => {
      const agent = context.getAgent();
      if (agent !== undefined) context.setAgent(agents.reuse(agent));
      return new Observable(Promise.resolve(context));
    },
    post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
  };
}

function deadline(signal: AbortSignal): ObservableMiddleware {
  return {
    pre: (context: RequestContext) => {
      context.setSignal(signal);
      return new Observable(Promise.resolve(context));
    },
    post: (context: ResponseContext) => new Observable(Promise.resolve(context)),
  };
}

/** The same cluster, users and contexts, with every cluster's skipTLSVerify turned off. */
export function verifiedTLS(config: KubeConfig): KubeConfig {
  const verified = new KubeConfig();
  verified.loadFromOptions({
    clusters: config.clusters.map((cluster) => ({ ...cluster, skipTLSVerify: false })),
    users: config.users,
    contexts: config.contexts,
    currentContext: config.currentContext,
  });
  return verified;
}

/** A failure to reach the apiserver (node-fetch's FetchError, or a socket error code), not a bug. */
function networkFailure(error: unknown): boolean {
  return (error instanceof Error && error.name === 'FetchError') || errorCode(error) !== undefined;
}

export class KubeApi {
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  readonly coordination: CoordinationV1Api;
  readonly storage: StorageV1Api;
  private readonly agents = new KeepAliveAgents();

  /** `timeoutMs` undefined: calls have no deadline of their own. */
  constructor(
    readonly config: KubeConfig,
    private readonly timeoutMs: number | undefined,
  ) {
    this.core = config.makeApiClient(CoreV1Api);
    this.custom = config.makeApiClient(CustomObjectsApi);
    this.coordination = config.makeApiClient(CoordinationV1Api);
    this.storage = config.makeApiClient(StorageV1Api);
  }

  /**
   * One API call within the deadline (connection to last byte of the body), with `contentType`
   * for a patch. A deadline that fires surfaces as RequestTimeout, a non-2xx answer as
   * KubeStatusError; network errors pass through with their code.
   */
  async call<T>(what: string, send: (options: ConfigurationOptions) => Promise<T>, contentType?: string): Promise<T> {
    const signal = this.timeoutMs === undefined ? undefined : AbortSignal.timeout(this.timeoutMs);
    const middleware = [keepAlive(this.agents), ...(signal === undefined ? [] : [deadline(signal)])];
    const options: ConfigurationOptions = { middleware, middlewareMergeStrategy: 'append' };
    try {
      return await send(contentType === undefined ? options : setHeaderOptions('Content-Type', contentType, options));
    } catch (error) {
      if (error instanceof ApiException) {
        throw kubeStatusErrorFrom(error);
      }
      if (signal?.aborted === true) {
        throw new RequestTimeout(what, this.timeoutMs ?? 0);
      }
      throw networkFailure(error) ? new APIServerUnreachable(what, error) : error;
    }
  }
}
