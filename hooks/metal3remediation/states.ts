// The reboot remediation as a state table:
// one handler per phase, each proposing an Outcome; commit.ts is the only place that turns it
// into status and children.
//
//   phase             handler decides
//   ""                → Running (a new attempt: lastRemediated = the newest observed time)
//   Running           wait for the power-off annotation (decorator) and for the host to be off;
//                     Fence the Node once (when the Machine has one; out-of-service mode: Taint
//                     it and wait for its pods and volumes to go); → Waiting
//   Waiting           wait for the annotation to go and the host to be on; Restore the Node
//                     from the backups, or Untaint it (does not block); ask for the attempt's
//                     Wait (the timeout clock); when lastRemediated + timeoutSeconds
//                     has passed: → Running (retry) while retryCount < retryLimit, else give up
//                     → "Deleting machine" (OwnerRemediated=False on the Machine, host unhealthy)
//   Deleting machine  nothing (terminal)
//   Failed            nothing (terminal)
// Before any of it: bmh.spec.online == false → Failed; a strategy other than Reboot → nothing.
import { REBOOT_STRATEGY, RemediationPhase } from '../../domain/capm3/types.js';
import { rec } from '../kit/index.js';
import { backups, isFinished, nodeOperation, taints } from './children.js';
import { attemptOf, deadlineOf, Purpose, type RemediationContext } from './context.js';
import { advance, done, request, wait, type Outcome } from './outcome.js';

type Handler = (ctx: RemediationContext) => Outcome;

function poweredOn(ctx: RemediationContext): boolean | undefined {
  const value = rec(ctx.host?.status).poweredOn;
  return typeof value === 'boolean' ? value : undefined;
}

function hostName(ctx: RemediationContext): string {
  return ctx.host?.metadata.name ?? '';
}

/** Deletion mode deletes the Node (after saving it); out-of-service mode taints it and waits for its pods to go. */
function fencing(ctx: RemediationContext): Outcome | undefined {
  if (ctx.nodeName === '' || ctx.clusterName === '') return undefined;
  const taint = ctx.outOfServiceTaint;
  const op = nodeOperation(ctx, taint ? Purpose.Taint : Purpose.Fence, attemptOf(ctx));
  if (op === undefined && taint) {
    return request(
      'Taint',
      `tainting Node ${ctx.nodeName} node.kubernetes.io/out-of-service=nodeshutdown:NoExecute, then waiting for its pods and volumes to go`,
    );
  }
  if (op === undefined) return request('Fence', `fencing Node ${ctx.nodeName}: saving its labels and annotations, then deleting it`);
  if (!isFinished(op)) return wait(`waiting for ${op.metadata.name ?? ''} to ${taint ? 'taint' : 'fence'} Node ${ctx.nodeName}`);
  return undefined;
}

const running: Handler = (ctx) => {
  if (!ctx.annotated) return wait(`waiting for the power-off annotation on BareMetalHost ${hostName(ctx)}`);
  if (poweredOn(ctx) !== false) return wait(`waiting for BareMetalHost ${hostName(ctx)} to power off`);
  return fencing(ctx) ?? advance(RemediationPhase.Waiting, `BareMetalHost ${hostName(ctx)} is off; powering it on again`);
};

/** Undo what fencing did once the host is on: Restore a deleted Node, Untaint a tainted one. Does not block. */
export function restoring(ctx: RemediationContext): Outcome | undefined {
  if (ctx.clusterName === '') return undefined;
  const attempt = attemptOf(ctx);
  if (backups(ctx).length > 0 && nodeOperation(ctx, Purpose.Restore, attempt) === undefined) {
    return request('Restore', "restoring the fenced Node's labels and annotations once it is back");
  }
  if (taints(ctx).length > 0 && nodeOperation(ctx, Purpose.Untaint, attempt) === undefined) {
    return request('Untaint', 'removing the out-of-service taint from the Node');
  }
  return undefined;
}

function timedOut(ctx: RemediationContext): boolean {
  const deadline = deadlineOf(ctx);
  const now = Date.parse(ctx.observedTime);
  return !Number.isNaN(deadline) && !Number.isNaN(now) && now >= deadline;
}

/**
 * `outcome`, asking also for the attempt's Wait when it is missing. Hooks read no clock: the Wait
 * completes at the deadline, and its completionTime is the observed time that ends the wait. It is
 * asked for with the first step once the host is on, so no later sync asks for something new.
 */
function withTimeoutClock(ctx: RemediationContext, outcome: Outcome): Outcome {
  const missing = ctx.clusterName !== '' && !Number.isNaN(deadlineOf(ctx)) && nodeOperation(ctx, Purpose.Timeout, attemptOf(ctx)) === undefined;
  if (!missing || outcome.kind !== 'wait') return outcome;
  return { ...outcome, requests: [...(outcome.requests ?? []), 'Wait'] };
}

const waiting: Handler = (ctx) => {
  if (ctx.annotated) return wait(`waiting for the power-off annotation to be removed from BareMetalHost ${hostName(ctx)}`);
  if (poweredOn(ctx) !== true) return wait(`waiting for BareMetalHost ${hostName(ctx)} to power on`);
  const restore = restoring(ctx);
  if (restore !== undefined) return withTimeoutClock(ctx, restore);
  if (!timedOut(ctx)) return withTimeoutClock(ctx, wait(`waiting ${ctx.timeoutSeconds}s from ${ctx.lastRemediated} for the Machine to become healthy`));
  if (ctx.retryLimit > 0 && ctx.retryCount < ctx.retryLimit) {
    return advance(RemediationPhase.Running, `retry ${ctx.retryCount + 1} of ${ctx.retryLimit}: power-cycling again`, { retryCount: ctx.retryCount + 1 });
  }
  return advance(RemediationPhase.Deleting, `gave up after ${ctx.retryCount + 1} power cycles`);
};

const terminal: Handler = (ctx) => done(`phase ${ctx.phase} is final`);

const STATES: Readonly<Record<string, Handler>> = {
  '': () => advance(RemediationPhase.Running, 'starting reboot remediation', { retryCount: 0 }),
  [RemediationPhase.Running]: running,
  [RemediationPhase.Waiting]: waiting,
  [RemediationPhase.Deleting]: terminal,
  [RemediationPhase.Failed]: terminal,
};

function missing(ctx: RemediationContext): string | undefined {
  if (ctx.machine === undefined) return 'waiting for the owner Machine';
  if (ctx.metal3Machine === undefined) return 'waiting for the Metal3Machine of the Machine';
  if (ctx.host === undefined) return 'waiting for the BareMetalHost of the Metal3Machine';
  return undefined;
}

/** One step: the prologue every phase shares, then the phase's handler. */
export function decide(ctx: RemediationContext): Outcome {
  const handler = STATES[ctx.phase];
  if (handler === undefined) return done(`unknown phase ${ctx.phase}`);
  if (handler === terminal) return handler(ctx);
  const gap = missing(ctx);
  if (gap !== undefined) return wait(gap);
  if (rec(ctx.host?.spec).online === false)
    return advance(RemediationPhase.Failed, `BareMetalHost ${hostName(ctx)} is powered off on purpose (spec.online: false)`);
  if (ctx.strategyType !== REBOOT_STRATEGY) return done(`strategy ${JSON.stringify(ctx.strategyType)} is not ${REBOOT_STRATEGY}`);
  return handler(ctx);
}
