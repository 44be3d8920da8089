// Which hostile edits a hook may legitimately act on by changing its desired children:
// - the subject's spec, names, uid, labels and annotations are the user's desired state (a host
//   with an unreadable bootMACAddress has a registration error, and one in error no BMC monitor);
// - labels, annotations, uid and ownership of an observed object are identity a user or another
//   controller may change (a recreated claim has a new uid and gets new data);
// - a spec or status edit that the object's CRD schema accepts as well as it accepted the
//   original (the API server would have stored it).
// Every other hostile edit is one the hook cannot interpret, and must not cost an observed child.
import { loadCrds, schemaErrors, type LoadedCrd } from './crds.js';
import { isDeepToken, isObject, valueAt, withValue, type Json, type JsonPath } from './fuzz-json.js';

const crds = loadCrds();
const SUBJECT_METADATA = ['name', 'namespace', 'uid', 'labels', 'annotations', 'generation', 'resourceVersion'];
const OBSERVED_METADATA = ['uid', 'labels', 'annotations', 'generation', 'resourceVersion', 'managedFields', 'ownerReferences'];

function crdFor(obj: Json | undefined): LoadedCrd | undefined {
  if (!isObject(obj) || typeof obj.apiVersion !== 'string') return undefined;
  const [group, version] = obj.apiVersion.split('/');
  return crds.find((c) => c.crd.spec.names.kind === obj.kind && c.crd.spec.group === group && c.version.name === version);
}

/** The edited object still passes its CRD schema wherever the original did. */
function schemaAccepts(base: Json, request: Json, at: JsonPath): boolean {
  const before = valueAt(base, at);
  const crd = crdFor(before);
  if (crd === undefined) return false;
  const known = new Set(schemaErrors(crd, before, false));
  return schemaErrors(crd, valueAt(request, at), false).every((error) => known.has(error));
}

function subjectEdit(base: Json, request: Json, path: JsonPath): boolean {
  const [, part, field] = path;
  if (part === 'spec') return true;
  if (part === 'metadata') return SUBJECT_METADATA.includes(String(field));
  return part === 'status' && schemaAccepts(base, request, path.slice(0, 1));
}

function observedEdit(base: Json, request: Json, path: JsonPath): boolean {
  const [, , , part, field] = path;
  if (part === 'metadata') return OBSERVED_METADATA.includes(String(field));
  return (part === 'spec' || part === 'status') && schemaAccepts(base, request, path.slice(0, 3));
}

/** A hostile edit at `path` that the hook may answer with other children. */
export function mayChangeChildren(base: Json, request: Json, path: JsonPath): boolean {
  if (isDeepToken(valueAt(request, path))) return false;
  const [root] = path;
  if (root === 'parent' || root === 'object') return subjectEdit(base, request, path);
  if ((root === 'children' || root === 'attachments' || root === 'related') && path.length >= 4) return observedEdit(base, request, path);
  return false;
}

/** Where the object holding `path` is, when `path` is a field inside its spec or status. */
function holder(path: JsonPath): JsonPath | undefined {
  const [root] = path;
  const at = root === 'parent' || root === 'object' ? path.slice(0, 1) : path.slice(0, 3);
  const [part] = path.slice(at.length);
  return (part === 'spec' || part === 'status') && path.length > at.length + 1 ? at : undefined;
}

/**
 * For an unreadable field inside a spec or status: the same request without the field, when its
 * CRD schema accepts that. A hook that reads the unreadable value as absent (not reported yet)
 * gives the answer of that real input, and may drop what that input drops.
 */
export function absentAlternative(base: Json, request: Json, path: JsonPath): Json | undefined {
  const at = holder(path);
  if (at === undefined || (path[0] !== 'parent' && path[0] !== 'object' && !['children', 'attachments', 'related'].includes(String(path[0])))) return undefined;
  const without = withValue(request, path, undefined);
  return schemaAccepts(base, without, at) ? without : undefined;
}
