// The Cluster API request runner's client for one cluster (management or workload):
// @kubernetes/client-node 1.4's CoreV1Api and CustomObjectsApi on a KubeConfig, every call with
// a deadline (an AbortSignal set by a per-call middleware), the patch content type set per call
// (client-node's setHeaderOptions), and client-node's ApiException turned into an ApiError that
// keeps the Status reason, message and causes the executors judge. TLS verification is never
// turned off: a kubeconfig asking to skip it is not honoured.
import { ApiException, CoreV1Api, CustomObjectsApi, KubeConfig, Observable, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { ConfigurationOptions, ObservableMiddleware, RequestContext, ResponseContext } from '@kubernetes/client-node';

export const JSON_PATCH = PatchStrategy.JsonPatch;
export const MERGE_PATCH = PatchStrategy.MergePatch;

/** A non-2xx answer, with the Status reason, message and causes when the server sent a Status. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly causes: string[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The call did not answer within the client's timeout. */
export class RequestTimeout extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(what: string, ms: number) {
    super(`${what} did not answer within ${String(Math.round(ms / 1000))}s`);
    this.name = 'RequestTimeout';
  }
}

export const statusCode = (error: unknown): number | undefined => (error instanceof ApiError ? error.code : undefined);
export const isNotFound = (error: unknown): boolean => statusCode(error) === 404;
export const isConflict = (error: unknown): boolean => statusCode(error) === 409;

interface StatusBody {
  kind?: unknown;
  reason?: unknown;
  message?: unknown;
  details?: { causes?: { message?: unknown; field?: unknown }[] };
}

function causesOf(status: StatusBody): string[] {
  return (status.details?.causes ?? []).map((cause) => [cause.field, cause.message].filter((part) => typeof part === 'string' && part !== '').join(': '));
}

/** client-node hands an error body over as the raw text (or parsed, or not at all for a 401). */
function statusOf(body: unknown): StatusBody | undefined {
  if (typeof body !== 'string') {
    return typeof body === 'object' && body !== null ? body : undefined;
  }
  try {
    return JSON.parse(body) as StatusBody;
  } catch {
    return undefined;
  }
}

/**
 * ApiException's own message carries the response headers and body verbatim; only the Status
 * fields (or the shortened raw text) go on, so nothing but the server's explanation is logged.
 */
export function apiErrorFrom(error: ApiException<unknown>): ApiError {
  const status = statusOf(error.body);
  if (status?.kind === 'Status') {
    const message = typeof status.message === 'string' ? status.message : `HTTP ${String(error.code)}`;
    return new ApiError(error.code, typeof status.reason === 'string' ? status.reason : '', message, causesOf(status));
  }
  const text = typeof error.body === 'string' ? `: ${error.body.slice(0, 500)}` : '';
  return new ApiError(error.code, '', `HTTP ${String(error.code)}${text}`);
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

export class ClusterApi {
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;

  constructor(
    config: KubeConfig,
    private readonly timeoutMs: number,
  ) {
    const verified = verifiedTLS(config);
    this.core = verified.makeApiClient(CoreV1Api);
    this.custom = verified.makeApiClient(CustomObjectsApi);
  }

  /**
   * One API call within the deadline (connection to last byte of the body), with `contentType`
   * for a patch. A deadline that fires surfaces as RequestTimeout, a non-2xx answer as ApiError;
   * network errors pass through with their code (outcome.ts classifies them).
   */
  async call<T>(what: string, send: (options: ConfigurationOptions) => Promise<T>, contentType?: string): Promise<T> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    const options: ConfigurationOptions = { middleware: [deadline(signal)], middlewareMergeStrategy: 'append' };
    try {
      return await send(contentType === undefined ? options : setHeaderOptions('Content-Type', contentType, options));
    } catch (error) {
      if (error instanceof ApiException) {
        throw apiErrorFrom(error);
      }
      throw signal.aborted ? new RequestTimeout(what, this.timeoutMs) : error;
    }
  }
}
