// Executes one ObjectPatch (domain/capi/requests.ts): the operations as one
// application/json-patch+json PATCH (atomic, `test` operations are its preconditions), then the
// condition upserts in a read-modify-write guarded by resourceVersion. Every answer of the API
// server maps to one PatchReason; anything else (network, timeouts, 5xx, 429) is thrown and the
// runner retries it with back-off, leaving the request unfinished.
import { formatTime } from '../../domain/backoff.js';
import { PatchReason } from '../../domain/capi/requests.js';
import type { ObjectPatch, ObjectPatchStatus } from '../../domain/capi/requests.js';
import type { KObject } from '../../domain/k8s.js';
import { Phase } from '../../domain/operations.js';
import type { Clock } from '../pool/clock.js';
import { upsertConditions } from './conditions.js';
import { alreadyApplied, failingTest } from './json-pointer.js';
import { KubeStatusError, isConflict, isNotFound, unlessNotFound } from '../kube/errors.js';
import type { KubeApi } from '../kube/api.js';
import { jsonPatchTarget, readTarget, replaceTarget } from './objects.js';
import { checkTarget } from './targets.js';
import type { TargetRef } from './targets.js';

export interface PatchContext {
  management: KubeApi;
  clock: Clock;
}

interface Step {
  reason: PatchReason;
  message: string;
  resourceVersion?: string;
}

/** Read-modify-write attempts for conditions before the conflict counts as transient. */
const CONDITION_ATTEMPTS = 5;
/** kube-apiserver's whole answer to a JSON patch that does not apply (failed test, missing path). */
const NOT_APPLICABLE = 'the server rejected our request due to an error in our request';

function isNotApplicable(error: KubeStatusError): boolean {
  return error.code === 422 && error.message === NOT_APPLICABLE && error.causes.length === 0;
}

/** An answer that says the request itself is wrong for this object: never worth a retry. */
function isRefusal(error: unknown): error is KubeStatusError {
  return error instanceof KubeStatusError && [400, 403, 422].includes(error.code);
}

function describe(error: KubeStatusError): string {
  return [error.message, ...error.causes.filter((cause) => !error.message.includes(cause))].join('; ');
}

function finished(step: Step, now: string): ObjectPatchStatus {
  return {
    phase: step.reason === PatchReason.Applied ? Phase.Succeeded : Phase.Failed,
    reason: step.reason,
    message: step.message,
    ...(step.resourceVersion !== undefined && { resourceVersion: step.resourceVersion }),
    completionTime: now,
  };
}

function read(ctx: PatchContext, ref: TargetRef): Promise<KObject | undefined> {
  return unlessNotFound(readTarget(ctx.management, ref), undefined);
}

const notFound = (request: ObjectPatch): Step => ({
  reason: PatchReason.NotFound,
  message: `${request.spec.target.kind} ${request.spec.target.name} does not exist`,
});

/**
 * A refused patch: applied before (the pool died before recording it), a failed test (judged on
 * the object as read now, since the API server does not say which operation failed), or invalid.
 */
async function explainRefusal(ctx: PatchContext, ref: TargetRef, request: ObjectPatch, error: KubeStatusError): Promise<Step> {
  const object = await read(ctx, ref);
  if (object === undefined) {
    return notFound(request);
  }
  if (alreadyApplied(object, request.spec.operations)) {
    return {
      reason: PatchReason.Applied,
      message: 'the object already had the patch (an earlier attempt applied it)',
      resourceVersion: object.metadata.resourceVersion,
    };
  }
  const test = failingTest(object, request.spec.operations);
  if (test !== undefined) {
    return { reason: PatchReason.TestFailed, message: `the test of ${test.path} failed: the object changed since the request was made` };
  }
  if (isNotApplicable(error)) {
    return { reason: PatchReason.Rejected, message: 'the patch does not apply to the object (a path it needs is missing or has another type)' };
  }
  return { reason: PatchReason.Rejected, message: `the API server refused the patch: ${describe(error)}` };
}

async function applyOperations(ctx: PatchContext, ref: TargetRef, request: ObjectPatch): Promise<Step> {
  try {
    const patched = await jsonPatchTarget(ctx.management, ref, request.spec.operations);
    return { reason: PatchReason.Applied, message: 'patch applied', resourceVersion: patched.metadata.resourceVersion };
  } catch (error) {
    if (isNotFound(error)) {
      return notFound(request);
    }
    if (isRefusal(error)) {
      return explainRefusal(ctx, ref, request, error);
    }
    throw error;
  }
}

/** One read-modify-write; undefined on a conflict (somebody wrote in between: read again). */
async function upsertOnce(ctx: PatchContext, ref: TargetRef, request: ObjectPatch): Promise<Step | undefined> {
  const object = await read(ctx, ref);
  if (object === undefined) {
    return notFound(request);
  }
  const result = upsertConditions(object, request.spec.conditions ?? [], formatTime(ctx.clock.now()));
  if (result.kind === 'invalid') {
    return { reason: PatchReason.Rejected, message: result.message };
  }
  if (result.kind === 'unchanged') {
    return { reason: PatchReason.Applied, message: 'conditions already up to date', resourceVersion: object.metadata.resourceVersion };
  }
  try {
    const written = await replaceTarget(ctx.management, ref, object);
    return { reason: PatchReason.Applied, message: 'conditions updated', resourceVersion: written.metadata.resourceVersion };
  } catch (error) {
    if (isConflict(error)) {
      return undefined;
    }
    if (isNotFound(error)) {
      return notFound(request);
    }
    if (isRefusal(error)) {
      return { reason: PatchReason.Rejected, message: `the API server refused the conditions: ${describe(error)}` };
    }
    throw error;
  }
}

async function upsertWithRetries(ctx: PatchContext, ref: TargetRef, request: ObjectPatch): Promise<Step> {
  for (let attempt = 0; attempt < CONDITION_ATTEMPTS; attempt += 1) {
    const step = await upsertOnce(ctx, ref, request);
    if (step !== undefined) {
      return step;
    }
  }
  throw new KubeStatusError(409, 'Conflict', `the conditions lost ${String(CONDITION_ATTEMPTS)} read-modify-write races in a row`);
}

function combine(operations: Step | undefined, conditions: Step): Step {
  if (operations === undefined || conditions.reason !== PatchReason.Applied) {
    return conditions;
  }
  return { ...conditions, message: `${operations.message}; ${conditions.message}` };
}

/** The finished status of the request; throws what is worth a retry. */
export async function executeObjectPatch(ctx: PatchContext, request: ObjectPatch): Promise<ObjectPatchStatus> {
  const now = (): string => formatTime(ctx.clock.now());
  const check = checkTarget(request);
  if (check.kind === 'rejected') {
    return finished({ reason: PatchReason.Rejected, message: check.message }, now());
  }
  let operations: Step | undefined;
  if (request.spec.operations.length > 0) {
    operations = await applyOperations(ctx, check.ref, request);
    if (operations.reason !== PatchReason.Applied || (request.spec.conditions ?? []).length === 0) {
      return finished(operations, now());
    }
  }
  return finished(combine(operations, await upsertWithRetries(ctx, check.ref, request)), now());
}
