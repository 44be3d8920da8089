// What the IPAM controllers read from a Metacontroller v2 request beyond the kit's readers: the
// Cluster API settings read from the controller object, and lenient field readers.
import type { KObject } from '../../domain/k8s.js';
import { CAPI_GROUP, CAPI_IPAM_GROUP } from '../../domain/ipam/types.js';
import { isRecord } from '../kit/index.js';

/** Cluster API IPAM is served when the controller declares CAPI IPAddress children (or rules). */
export interface CapiVersions {
  /** The contract version, the same for both groups. */
  version: string;
  /** `ipam.cluster.x-k8s.io/<version>` */
  ipam: string;
  /** `cluster.x-k8s.io/<version>`, the same version as the IPAM group. */
  cluster: string;
}

function childRules(controller: KObject | undefined): Array<{ apiVersion: string; resource: string }> {
  const spec = controller?.spec;
  if (!isRecord(spec) || !Array.isArray(spec.childResources)) return [];
  return spec.childResources.filter(
    (rule): rule is { apiVersion: string; resource: string } => isRecord(rule) && typeof rule.apiVersion === 'string' && typeof rule.resource === 'string',
  );
}

/** CAPI support is on exactly when the CompositeController lists CAPI IPAddresses as children. */
export function capiVersionsOf(controller: KObject | undefined): CapiVersions | undefined {
  const rule = childRules(controller).find((r) => r.resource === 'ipaddresses' && r.apiVersion.startsWith(`${CAPI_IPAM_GROUP}/`));
  if (rule === undefined) return undefined;
  const version = rule.apiVersion.slice(CAPI_IPAM_GROUP.length + 1);
  return { version, ipam: rule.apiVersion, cluster: `${CAPI_GROUP}/${version}` };
}

export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isRecord(value)) return out;
  for (const key of Object.keys(value).sort()) {
    const item = value[key];
    if (typeof item === 'string') out[key] = item;
  }
  return out;
}
