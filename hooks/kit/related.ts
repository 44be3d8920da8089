// The types a controller's customize hook can name in relatedResources, as one table per hook
// route. The hook builds every rule from its table, and scripts/chart-rbac.ts grants
// Metacontroller read access to exactly the types in the tables (plus update on
// `<owner>/finalizers` for the blocking owners), so RBAC and hooks cannot drift apart.
import type { RelatedResourceRule } from '../../domain/metacontroller.js';

/** One type: group and resource (what RBAC grants) and the version its rules ask for. */
export interface RelatedType {
  readonly group: string;
  /** None when the hook reads the version from the request (a Cluster API contract version). */
  readonly version?: string;
  readonly resource: string;
}

/** What one hook route makes Metacontroller read or update beyond what its controller object names. */
export interface HookAccess {
  /** Every type the customize hook's relatedResources can name, by the name the hook uses. */
  readonly related: Readonly<Record<string, RelatedType>>;
  /** Owners the sync hook's children reference with blockOwnerDeletion: true. */
  readonly blockingOwners?: readonly RelatedType[];
}

/** The version part of an apiVersion (`v1beta2` of `cluster.x-k8s.io/v1beta2`, `v1` of `v1`). */
export function versionOf(apiVersion: string): string {
  return apiVersion.slice(apiVersion.lastIndexOf('/') + 1);
}

/** The type `resource` of `apiVersion` (`v1` for the core group). */
export function relatedType(apiVersion: string, resource: string): RelatedType {
  const slash = apiVersion.lastIndexOf('/');
  return { group: slash < 0 ? '' : apiVersion.slice(0, slash), version: versionOf(apiVersion), resource };
}

/** How a rule narrows its type besides the namespace. */
type Narrowing = Pick<RelatedResourceRule, 'labelSelector' | 'names'>;

/**
 * A rule for `type` in `namespace` (none: label rules of namespaced parents list the parent's
 * namespace), asking for `version` when the hook reads it from the request.
 */
export function relatedRule(type: RelatedType, namespace: string | undefined, narrowing: Narrowing = {}, version = type.version): RelatedResourceRule {
  if (version === undefined) throw new Error(`related type ${type.resource}.${type.group} needs a version from the request`);
  const apiVersion = type.group === '' ? version : `${type.group}/${version}`;
  return { apiVersion, resource: type.resource, ...(namespace !== undefined && { namespace }), ...narrowing };
}
