// The BareMetalHost sync and finalize hooks: read the request, run the prologue and the
// state's handler, commit. Same function for both; `finalizing` tells them apart.
import type { BareMetalHostStatus } from '../../domain/baremetalhost.js';
import type { CompositeSyncResponse, ObjectMap } from '../../domain/metacontroller.js';
import { echoAllChildren } from '../kit/index.js';
import type { HookContext } from '../types.js';
import { commit } from './commit.js';
import { isPaused, parseHostRequest, readContext, withHardwareData } from './context.js';
import type { HostContext } from './context.js';
import { asStatusPatch } from './outcome.js';
import type { ProloguePatch } from './outcome.js';
import { prologue } from './prologue.js';
import { isBehind, normalizeStatus, recoverFromRequest } from './status.js';
import { handlerFor } from './states.js';

function withStatus(ctx: HostContext, patch: ProloguePatch): HostContext {
  return Object.keys(patch).length === 0 ? ctx : { ...ctx, status: { ...ctx.status, ...asStatusPatch(ctx.status, patch) } };
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
function unchanged(ctx: HostContext, children: ObjectMap): CompositeSyncResponse {
  const response: CompositeSyncResponse = { status: { ...pausedStatus(ctx) }, children: echoAllChildren(children) };
  return ctx.deleting ? { ...response, finalized: false } : response;
}

export function syncBareMetalHost(body: unknown, hook: HookContext): CompositeSyncResponse {
  const request = parseHostRequest(body);
  const ctx = readContext(request, hook.config);
  if (isPaused(ctx)) {
    return unchanged(ctx, request.children);
  }
  const early = prologue(ctx);
  if (early.kind === 'stop') {
    return commit(ctx, early.outcome);
  }
  const ready = withStatus(ctx, early.patch);
  return commit(ready, handlerFor(ready.state)(ready));
}
