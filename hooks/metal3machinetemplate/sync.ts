// CompositeController `ironhook-metal3machinetemplate`: parent
// Metal3MachineTemplate, children ObjectPatches (OnDelete), related the namespace's
// Metal3Machines. Routes /hooks/metal3machinetemplate/{sync,customize}.
//
// The template is authoritative for automatedCleaningMode: every Metal3Machine cloned from it
// (annotations cluster.x-k8s.io/cloned-from-name and cloned-from-groupkind) whose value differs
// gets an ObjectPatch `<template>-cleaning-<machine>-<sequence>` that sets it, guarded by the
// machine's resourceVersion. The template has no status (upstream has none), so the children
// are the memory: one outstanding patch per machine; a finished patch is kept while the machine
// still shows the resourceVersion it was tested against (the cache has not caught up, or the
// pool could not apply it and nothing changed since) and dropped once the machine shows the
// value; a machine that changed again gets the next sequence.
import { isObjectPatch, OBJECT_PATCH_KIND, PURPOSE_LABEL, REQUESTED_BY_LABEL, type ObjectPatch } from '../../domain/capi/requests.js';
import { CapiKind, INFRA_GROUP, INFRA_V1BETA2, PAUSED_ANNOTATION } from '../../domain/capi/types.js';
import type { KObject } from '../../domain/k8s.js';
import type { CompositeSyncResponse, CustomizeResponse } from '../../domain/metacontroller.js';
import { labelValue, operationName } from '../../domain/naming.js';
import { IRONHOOK_API_VERSION, Phase } from '../../domain/operations.js';
import {
  echoChild,
  isDeleting,
  objectsOf,
  parseComposite,
  parseCustomize,
  rec,
  relatedRule,
  relatedType,
  sortedByName,
  str,
  type CompositeRequest,
} from '../kit/index.js';

const METAL3MACHINETEMPLATE_KIND = 'Metal3MachineTemplate';
const CLONED_FROM_NAME = 'cluster.x-k8s.io/cloned-from-name';
const CLONED_FROM_GROUPKIND = 'cluster.x-k8s.io/cloned-from-groupkind';
const TEMPLATE_GROUPKIND = `${METAL3MACHINETEMPLATE_KIND}.${INFRA_GROUP}`;
const CLEANING_PURPOSE = 'cleaning-mode';

/** Every Metal3Machine of the namespace; the cloned-from annotations are matched in sync. */
/** What metal3machinetemplateCustomize names (and so what the chart's RBAC lets Metacontroller read). */
export const METAL3MACHINETEMPLATE_RELATED = {
  metal3machines: relatedType(INFRA_V1BETA2, 'metal3machines'),
};

export function metal3machinetemplateCustomize(request: unknown): CustomizeResponse {
  const { parent } = parseCustomize(request, METAL3MACHINETEMPLATE_KIND);
  return { relatedResources: [relatedRule(METAL3MACHINETEMPLATE_RELATED.metal3machines, parent.metadata.namespace ?? '')] };
}

function clonedFrom(machine: KObject, template: string): boolean {
  const annotations = machine.metadata.annotations ?? {};
  return annotations[CLONED_FROM_NAME] === template && annotations[CLONED_FROM_GROUPKIND] === TEMPLATE_GROUPKIND;
}

interface PatchView {
  obj: ObjectPatch;
  machine: string;
  sequence: number;
  testedVersion: string;
}

function sequenceOf(name: string): number {
  const match = /-(\d+)$/u.exec(name);
  return match === null ? 0 : Number(match[1]);
}

function testedVersion(patch: ObjectPatch): string {
  const test = patch.spec.operations.find((op) => op.op === 'test' && op.path === '/metadata/resourceVersion');
  return typeof test?.value === 'string' ? test.value : '';
}

/** The newest cleaning patch per machine (by sequence). */
function patchesByMachine(c: CompositeRequest): Map<string, PatchView> {
  const out = new Map<string, PatchView>();
  for (const obj of objectsOf(c.children, OBJECT_PATCH_KIND, 'ironhook.dev', c.namespace)) {
    if (!isObjectPatch(obj) || obj.metadata.labels?.[PURPOSE_LABEL] !== CLEANING_PURPOSE) continue;
    const view = { obj, machine: str(rec(rec(obj.spec).target).name), sequence: sequenceOf(obj.metadata.name ?? ''), testedVersion: testedVersion(obj) };
    const seen = out.get(view.machine);
    if (seen === undefined || seen.sequence < view.sequence) out.set(view.machine, view);
  }
  return out;
}

function newPatch(template: KObject, machine: KObject, mode: string, sequence: number): ObjectPatch {
  const templateName = template.metadata.name ?? '';
  const machineName = machine.metadata.name ?? '';
  const current = rec(machine.spec).automatedCleaningMode;
  return {
    apiVersion: IRONHOOK_API_VERSION,
    kind: OBJECT_PATCH_KIND,
    metadata: {
      name: operationName(templateName, `cleaning-${machineName}`, sequence),
      labels: { [PURPOSE_LABEL]: CLEANING_PURPOSE, [REQUESTED_BY_LABEL]: labelValue(`${METAL3MACHINETEMPLATE_KIND}.${templateName}`) },
    },
    spec: {
      target: { apiVersion: INFRA_V1BETA2, kind: CapiKind.Metal3Machine, name: machineName, namespace: machine.metadata.namespace ?? '' },
      operations: [
        { op: 'test', path: '/metadata/resourceVersion', value: machine.metadata.resourceVersion ?? '' },
        { op: current === undefined ? 'add' : 'replace', path: '/spec/automatedCleaningMode', value: mode },
      ],
    },
  };
}

function finished(patch: ObjectPatch): boolean {
  return patch.status?.phase === Phase.Succeeded || patch.status?.phase === Phase.Failed;
}

/** The patch to return for one machine whose value differs from the template's. */
function patchFor(template: KObject, machine: KObject, mode: string, last: PatchView | undefined): KObject {
  if (last === undefined) return newPatch(template, machine, mode, 1);
  if (!finished(last.obj) || last.testedVersion === machine.metadata.resourceVersion) return echoChild(last.obj, ['spec']);
  return newPatch(template, machine, mode, last.sequence + 1);
}

function desiredChildren(c: CompositeRequest, mode: string): KObject[] {
  const template = c.parent.metadata.name ?? '';
  const patches = patchesByMachine(c);
  const children: KObject[] = [];
  for (const machine of objectsOf(c.related, CapiKind.Metal3Machine, INFRA_GROUP, c.namespace)) {
    if (!clonedFrom(machine, template) || isDeleting(machine)) continue;
    if (rec(machine.spec).automatedCleaningMode === mode) continue;
    children.push(patchFor(c.parent, machine, mode, patches.get(machine.metadata.name ?? '')));
  }
  return children;
}

export function metal3machinetemplateSync(request: unknown): CompositeSyncResponse {
  const c = parseComposite(request, METAL3MACHINETEMPLATE_KIND);
  if (c.parent.metadata.annotations?.[PAUSED_ANNOTATION] !== undefined) {
    // Paused: change nothing, so keep every child exactly as observed.
    const kept = objectsOf(c.children, OBJECT_PATCH_KIND, 'ironhook.dev', c.namespace).map((obj) => echoChild(obj, ['spec']));
    return { children: sortedByName(kept), status: {} };
  }
  const mode = str(rec(rec(rec(c.parent.spec).template).spec).automatedCleaningMode);
  return { children: mode === '' ? [] : sortedByName(desiredChildren(c, mode)), status: {} };
}
