// The BareMetalHost sync and finalize hooks: read the request, run the prologue and the
// state's handler, commit. Same function for both; `finalizing` tells them apart.
import type { BareMetalHostStatus } from '../../domain/baremetalhost.js';
import { canonicalize } from '../../domain/canonical.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse } from '../../domain/metacontroller.js';
import { sortedByKindAndName } from '../kit/index.js';
import type { HookContext } from '../types.js';
import { commit } from './commit.js';
import { isPaused, readContext, withHardwareData } from './context.js';
import type { HostContext } from './context.js';
import { asStatusPatch } from './outcome.js';
import type { ProloguePatch } from './outcome.js';
import { prologue } from './prologue.js';
import { isBehind, normalizeStatus, recoverFromRequest } from './status.js';
import { handlerFor } from './states.js';

const LAST_APPLIED = 'metacontroller.k8s.io/last-applied-configuration';

function withStatus(ctx: HostContext, patch: ProloguePatch): HostContext {
  return Object.keys(patch).length === 0 ? ctx : { ...ctx, status: { ...ctx.status, ...asStatusPatch(ctx.status, patch) } };
}

/** The desired form of an observed child: what we own of it, nothing the API server added. */
function echoChild(child: KObject): KObject {
  const labels = child.metadata.labels;
  const annotations = Object.fromEntries(Object.entries(child.metadata.annotations ?? {}).filter(([key]) => key !== LAST_APPLIED));
  return {
    apiVersion: child.apiVersion,
    kind: child.kind,
    metadata: {
      name: child.metadata.name ?? '',
      ...(labels && { labels }),
      ...(Object.keys(annotations).length > 0 && { annotations }),
    },
    spec: child.spec,
  };
}

/**
 * What a paused host answers as its status: the observed one, unless the current request shows
 * that it is behind (Metacontroller's cache lags a status write, or the write was lost); then the
 * status committed with that request. A composite hook cannot leave the status alone (an omitted
 * or null status is written as `{}`), so echoing a stale one would write it back.
 */
function pausedStatus(ctx: HostContext): Partial<BareMetalHostStatus> {
  const observed = ctx.host.status;
  if (ctx.current === undefined || !isBehind(observed, ctx.current)) {
    // Never written (created paused): the blank status, as `{}` fails the CRD's required fields.
    return observed ?? normalizeStatus(undefined);
  }
  return withHardwareData(recoverFromRequest(normalizeStatus(observed), ctx.current), ctx.hardwareData);
}

/** A paused host: children exactly as observed, nothing requested, the newest known status. */
function unchanged(ctx: HostContext, body: unknown): CompositeSyncResponse {
  const request = body as { children: Record<string, Record<string, KObject>> };
  const children = Object.values(request.children).flatMap((byName) => Object.values(byName).map(echoChild));
  const response: CompositeSyncResponse = {
    status: canonicalize(pausedStatus(ctx)) as Record<string, unknown>,
    children: canonicalize(sortedByKindAndName(children)) as KObject[],
  };
  return ctx.deleting ? { ...response, finalized: false } : response;
}

export function syncBareMetalHost(body: unknown, hook: HookContext): CompositeSyncResponse {
  const ctx = readContext(body, hook.config);
  if (isPaused(ctx)) {
    return unchanged(ctx, body);
  }
  const early = prologue(ctx);
  if (early.kind === 'stop') {
    return commit(ctx, early.outcome);
  }
  const ready = withStatus(ctx, early.patch);
  return commit(ready, handlerFor(ready.state)(ready));
}
