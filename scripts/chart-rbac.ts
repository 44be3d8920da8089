// RBAC generated from manifests/ by scripts/chart-sync.ts (ADR 0004):
//
// * per manifests/controllers/<file>: a ClusterRole `<fullname>-controllers-<file>` carrying
//   rbac.metacontroller.aggregationLabels with what Metacontroller needs for those controller
//   objects: parents and decorated types read, updated, with status; children fully managed;
//   `<owner>/finalizers` update where Metacontroller or a hook sets blockOwnerDeletion (the
//   OwnerReferencesPermissionEnforcement admission plugin checks it); related types read. Types of
//   a Cluster API the chart does not install are behind `<file>.clusterAPI.enabled`.
// * from manifests/crds: a ClusterRole aggregated into view/edit/admin that reads every CRD.
//
// Related types come from customize hooks, which manifests cannot show: each controller folder
// exports the table its customize hook builds relatedResources from, and its blockOwnerDeletion
// owners (hooks/registry.ts hookAccess, by route); test/unit/chart.test.ts runs the customize
// fixtures through the real hooks to check the rendered RBAC covers their answers. Cluster API
// types the chart does not install are behind `<file>.clusterAPI.enabled` when values.yaml has
// that switch (required when a controller object names one); related ones are granted
// unconditionally otherwise (hooks only ask for them when a parent refers to one).
import { basename } from 'node:path';
import type { HookAccess, RelatedType } from '../hooks/kit/index.js';
import { hookAccess } from '../hooks/registry.js';
import {
  clusterAPICondition,
  controllerModel,
  documentsOf,
  hasClusterAPISwitch,
  header,
  isExternalClusterAPI,
  SyncError,
  type ControllerModel,
  type SyncContext,
  type TypeRef,
} from './chart-manifests.js';

/** A hook route's related types and blocking owners, as RBAC type references. */
interface HookNeeds {
  /** Every type the customize hook's relatedResources can name (get, list, watch). */
  related: TypeRef[];
  /** Owners the sync hook's children reference with blockOwnerDeletion: true (update <owner>/finalizers). */
  blockingOwners: TypeRef[];
}

const typeRef = (type: RelatedType): TypeRef => ({ group: type.group, resource: type.resource });

function needsOf(access: HookAccess): HookNeeds {
  return { related: Object.values(access.related).map(typeRef), blockingOwners: (access.blockingOwners ?? []).map(typeRef) };
}

export const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] as const;
const READ = ['get', 'list', 'watch'];
const PARENT = [...READ, 'update'];
const CHILD = [...VERB_ORDER];

interface Need {
  type: TypeRef;
  /** Named by a controller object (not only by its hooks). */
  fromObject: boolean;
  verbs: Set<string>;
  /** Why, as role → controller names ("child of" → ["ironhook-ippool"]). */
  why: Map<string, string[]>;
}

type Needs = Map<string, Need>;

const OWNER = 'owner of children (blockOwnerDeletion) of';
const OWNER_BY_HOOK = 'owner (blockOwnerDeletion) of children of';
/** Roles that only hook code gives a type (not the controller object). */
const FROM_HOOKS = new Set(['related to', OWNER_BY_HOOK]);

/** Records that `why.controller` needs `verbs` on `type` as its `why.role`. */
function add(needs: Needs, type: TypeRef, verbs: readonly string[], why: { role: string; controller: string }): void {
  const { role, controller } = why;
  const key = `${type.group}\u0000${type.resource}`;
  const need = needs.get(key) ?? { type, fromObject: false, verbs: new Set<string>(), why: new Map<string, string[]>() };
  if (!FROM_HOOKS.has(role)) need.fromObject = true;
  verbs.forEach((v) => need.verbs.add(v));
  const names = need.why.get(role) ?? [];
  if (!names.includes(controller)) names.push(controller);
  need.why.set(role, names);
  needs.set(key, need);
}

const sub = (type: TypeRef, subresource: string): TypeRef => ({ group: type.group, resource: `${type.resource}/${subresource}` });

function hookNeeds(model: ControllerModel, file: string): HookNeeds[] {
  const declared = model.routes.flatMap((route) => {
    const access = Object.hasOwn(hookAccess, route) ? hookAccess[route] : undefined;
    return access === undefined ? [] : [needsOf(access)];
  });
  if (declared.length === 0 && model.hooks.includes('customize')) {
    throw new SyncError(
      `${file}: ${model.name} has a customize hook (/hooks/${model.routes.join(', ')}); export the types its relatedResources can name in hookAccess (hooks/registry.ts)`,
    );
  }
  return declared;
}

function addController(needs: Needs, model: ControllerModel, file: string): void {
  const role = model.kind === 'CompositeController' ? 'parent of' : 'decorated by';
  for (const parent of model.parents) {
    add(needs, parent, PARENT, { role, controller: model.name });
    add(needs, sub(parent, 'status'), ['get', 'update'], { role, controller: model.name });
    if (model.children.length > 0) add(needs, sub(parent, 'finalizers'), ['update'], { role: OWNER, controller: model.name });
  }
  for (const child of model.children) add(needs, child, CHILD, { role: 'child of', controller: model.name });
  for (const declared of hookNeeds(model, file)) {
    for (const related of declared.related) add(needs, related, READ, { role: 'related to', controller: model.name });
    for (const owner of declared.blockingOwners) add(needs, sub(owner, 'finalizers'), ['update'], { role: OWNER_BY_HOOK, controller: model.name });
  }
}

function ruleLines(need: Need): string[] {
  const verbs = VERB_ORDER.filter((v) => need.verbs.has(v));
  const why = [...need.why].map(([role, names]) => `${role} ${names.join(', ')}`).join('; ');
  return [
    `  # ${need.type.resource}: ${why}`,
    `  - apiGroups: [${JSON.stringify(need.type.group)}]`,
    `    resources: [${JSON.stringify(need.type.resource)}]`,
    `    verbs: [${verbs.map((v) => JSON.stringify(v)).join(', ')}]`,
  ];
}

const byType = (a: Need, b: Need): number => `${a.type.group}/${a.type.resource}`.localeCompare(`${b.type.group}/${b.type.resource}`);

/** A DNS-label-safe suffix from a manifest file name. */
function suffixOf(file: string): string {
  return basename(file, '.yaml')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-');
}

const ROLE_METADATA = ['apiVersion: rbac.authorization.k8s.io/v1', 'kind: ClusterRole', 'metadata:'];

/** The aggregated ClusterRole for one manifests/controllers file. */
export function controllerRbacTemplate(text: string, file: string, context: SyncContext): string {
  const models = documentsOf(text, file).map(controllerModel);
  const needs: Needs = new Map();
  for (const model of models) addController(needs, model, file);
  const all = [...needs.values()].sort(byType);
  const switchable = hasClusterAPISwitch(file, context);
  const external = all.filter((n) => isExternalClusterAPI(n.type, context) && (switchable || n.fromObject));
  const rules = all.filter((n) => !external.includes(n)).flatMap(ruleLines);
  if (external.length > 0) {
    rules.push(`  {{- if ${clusterAPICondition(file, context)} }}`, ...external.flatMap(ruleLines), '  {{- end }}');
  }
  const body = [
    `# What Metacontroller needs for the controller objects of manifests/controllers/${file}:`,
    ...models.map((m) => `#   ${m.kind} ${m.name}`),
    "# Aggregated into Metacontroller's ClusterRole through rbac.metacontroller.aggregationLabels.",
    ...ROLE_METADATA,
    `  name: {{ include "ironhook.fullname" $ }}-controllers-${suffixOf(file)}`,
    '  labels:',
    '    {{- include "ironhook.labels" $ | nindent 4 }}',
    '    {{- toYaml $.Values.rbac.metacontroller.aggregationLabels | nindent 4 }}',
    'rules:',
    ...rules,
    '{{- end }}',
  ];
  return `${header(`controllers/${file}`, '$.Values.rbac.create')}${body.join('\n')}\n`;
}

interface CRDSpec {
  group?: string;
  names?: { plural?: string };
  versions?: { subresources?: { status?: unknown } }[];
}

/** Resources (and status subresources) of the CRDs, by group. */
function crdResources(files: readonly { name: string; text: string }[]): Map<string, string[]> {
  const byGroup = new Map<string, string[]>();
  for (const { name, text } of files) {
    for (const doc of documentsOf(text, name)) {
      const spec = doc.spec as CRDSpec;
      const plural = spec.names?.plural ?? '';
      const status = (spec.versions ?? []).some((v) => v.subresources?.status !== undefined);
      const list = byGroup.get(spec.group ?? '') ?? [];
      list.push(plural, ...(status ? [`${plural}/status`] : []));
      byGroup.set(spec.group ?? '', list);
    }
  }
  return byGroup;
}

/** The ClusterRole that lets the built-in view, edit and admin roles read every CRD of manifests/crds. */
export function crdViewRoleTemplate(files: readonly { name: string; text: string }[]): string {
  const byGroup = crdResources(files);
  const rules = [...byGroup.keys()].sort().flatMap((group) => [
    `  - apiGroups: [${JSON.stringify(group)}]`,
    `    resources: [${(byGroup.get(group) ?? [])
      .sort()
      .map((r) => JSON.stringify(r))
      .join(', ')}]`,
    '    verbs: ["get", "list", "watch"]',
  ]);
  const body = [
    '# Read access to every CRD of manifests/crds for the built-in view, edit and admin roles. Write',
    '# access for users: the "-edit" ClusterRole in templates/metacontroller-rbac.yaml.',
    ...ROLE_METADATA,
    '  name: {{ include "ironhook.fullname" $ }}-view',
    '  labels:',
    '    {{- include "ironhook.labels" $ | nindent 4 }}',
    '    rbac.authorization.k8s.io/aggregate-to-view: "true"',
    '    rbac.authorization.k8s.io/aggregate-to-edit: "true"',
    '    rbac.authorization.k8s.io/aggregate-to-admin: "true"',
    'rules:',
    ...rules,
    '{{- end }}',
  ];
  return `${header('crds', 'and $.Values.rbac.create $.Values.rbac.aggregateToDefaultRoles')}${body.join('\n')}\n`;
}
