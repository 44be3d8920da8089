// The annotations decorator: removes the one-shot annotations the host has acted on, as
// listed by the sync hook in status.ironhook.consumedAnnotations (docs/architecture.md).
import { Annotation } from '../../domain/baremetalhost.js';
import type { BareMetalHost } from '../../domain/baremetalhost.js';
import type { DecoratorSyncResponse } from '../../domain/metacontroller.js';
import { HookInputError } from '../types.js';

function targetHost(body: unknown): BareMetalHost {
  const host = (body as { object?: BareMetalHost } | null)?.object;
  if (host?.kind !== 'BareMetalHost' || typeof host.metadata !== 'object') {
    throw new HookInputError('not a BareMetalHost decorator request', ['object must be a BareMetalHost']);
  }
  return host;
}

export function syncHostAnnotations(body: unknown): DecoratorSyncResponse {
  const host = targetHost(body);
  const annotations = host.metadata.annotations ?? {};
  const consumed = host.status?.ironhook?.consumedAnnotations ?? [];
  // Phased reboot annotations (reboot.metal3.io/<key>) belong to whoever set them: never removed here.
  const removals = consumed.filter((key) => annotations[key] !== undefined && !key.startsWith(Annotation.RebootPrefix)).sort();
  if (annotations[Annotation.Paused] !== undefined || removals.length === 0) {
    return { status: null, attachments: [] };
  }
  return {
    annotations: Object.fromEntries(removals.map((key) => [key, null])),
    status: null,
    attachments: [],
  };
}
