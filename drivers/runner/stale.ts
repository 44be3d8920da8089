// Requests their controller no longer owns (domain/k8s.ts isStaleChild): after `clusterctl move`
// the target cluster holds the source's requests, re-created without their status, and a runner
// would take them for new ones (a finished Provision or a fencing NodeOperation run again). Such a
// request is never run: it is deleted (by uid, so a newer request of the same name stays), and the
// parent's hook issues what it still needs under its own uid.
import type { KObject } from '../../domain/k8s.js';
import type { KubePort, RequestResource } from '../kube/port.js';
import { errorFields, type Logger } from '../pool/logging.js';

/** How every kind logs a discarded object (`what`: "a request", "a BMCMonitor"): deleted, or left unrun. */
export function logDiscarded(logger: Logger, fields: Record<string, unknown>, error: unknown, what = 'a request'): void {
  if (error === undefined) logger.info(fields, `deleted ${what} its controller no longer owns (moved by clusterctl move, or released), without running it`);
  else logger.warn({ ...fields, err: errorFields(error) }, `could not delete ${what} its controller no longer owns; it is not run`);
}

export interface StaleRequestKind<R extends KObject> {
  resource: RequestResource;
  /** Deleted (or the delete failed, with `error`): the kind logs it. */
  discarded?(request: R, error?: unknown): void;
}

export function discardStale<R extends KObject>(kube: KubePort, kind: StaleRequestKind<R>, request: R): void {
  const { namespace = '', name = '', uid = '' } = request.metadata;
  kube.deleteRequest(kind.resource, namespace, name, uid).then(
    () => kind.discarded?.(request),
    (error: unknown) => kind.discarded?.(request, error),
  );
}
