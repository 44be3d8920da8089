// The annotations decorator: removes the one-shot annotations the host has acted on, as
// listed by the sync hook in status.ironhook.consumedAnnotations (docs/architecture.md).
import { Annotation } from '../../domain/baremetalhost.js';
import type { BareMetalHost } from '../../domain/baremetalhost.js';
import type { DecoratorSyncResponse } from '../../domain/metacontroller.js';
import { decoratorTarget } from '../kit/index.js';

export function syncHostAnnotations(body: unknown): DecoratorSyncResponse {
  const host = decoratorTarget(body, 'object', 'BareMetalHost') as BareMetalHost;
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
