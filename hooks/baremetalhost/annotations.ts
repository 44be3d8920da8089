// Upstream's request annotations, parsed leniently the way
// BMO does: an unparsable value falls back to the documented default.
import { Annotation } from '../../domain/baremetalhost.js';
import type { HardwareDetails } from '../../domain/baremetalhost.js';
import type { PowerMode } from '../../domain/operations.js';

export interface RebootRequest {
  key: string;
  mode: PowerMode;
  force: boolean;
}

export interface DetachRequest {
  deleteAction: 'delay' | 'delete';
  force: boolean;
}

function parseObject(value: string): Record<string, unknown> {
  if (value.trim() === '') {
    return {};
  }
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function isRebootKey(key: string): boolean {
  return key === Annotation.Reboot || key.startsWith(Annotation.RebootPrefix);
}

/** Every reboot annotation, sorted by key. */
export function rebootRequests(annotations: Readonly<Record<string, string>>): RebootRequest[] {
  return Object.keys(annotations)
    .filter(isRebootKey)
    .sort()
    .map((key) => {
      const value = parseObject(annotations[key] ?? '');
      return { key, mode: value.mode === 'hard' ? 'hard' : 'soft', force: value.force === true };
    });
}

export function detachRequest(annotations: Readonly<Record<string, string>>): DetachRequest | undefined {
  const value = annotations[Annotation.Detached];
  if (value === undefined) {
    return undefined;
  }
  const parsed = parseObject(value);
  return { deleteAction: parsed.deleteAction === 'delay' ? 'delay' : 'delete', force: parsed.force === true };
}

const HARDWARE_KEYS = new Set(['systemVendor', 'firmware', 'ramMebibytes', 'nics', 'storage', 'cpu', 'hostname']);

/** The hardware-details annotation, or undefined when it is absent or not a HardwareDetails object. */
export function hardwareDetails(annotations: Readonly<Record<string, string>>): HardwareDetails | undefined {
  const value = annotations[Annotation.HardwareDetails];
  if (value === undefined) {
    return undefined;
  }
  const parsed = parseObject(value);
  const keys = Object.keys(parsed);
  if (keys.length === 0 || keys.some((key) => !HARDWARE_KEYS.has(key))) {
    return undefined;
  }
  const details: HardwareDetails = parsed;
  return details;
}

/** The status-restore annotation's content (restore-on-empty), if usable. */
export function statusAnnotation(annotations: Readonly<Record<string, string>>): Record<string, unknown> | undefined {
  const value = annotations[Annotation.Status];
  if (value === undefined) {
    return undefined;
  }
  const parsed = parseObject(value);
  return Object.keys(parsed).length > 0 ? parsed : undefined;
}
