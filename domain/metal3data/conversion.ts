// v1beta1 ↔ v1beta2 for Metal3DataTemplate, Metal3Data and Metal3DataClaim:
// metaData `*FromIPPool` ↔ `*FromPool`, bond parameters map ↔ list, status.indexes
// map ↔ list, ObjectReference ↔ Metal3ObjectRef, templateReference (v1beta1 only) and
// fromHostInterfaces[].fromBootMAC (v1beta2 only) kept in the conversion annotation.
import { isRecord, joinReference, referenceKept, splitReference, type Body, type Converted, type Kept, type KindConverter } from '../capi/conversion.js';
import { INFRA_GROUP } from '../capi/types.js';
import { asRecord as rec, type Rec } from '../records.js';
import { Kind } from './types.js';

const POOL_LISTS: readonly [string, string][] = [
  ['ipAddressesFromIPPool', 'ipAddressesFromPool'],
  ['prefixesFromIPPool', 'prefixesFromPool'],
  ['gatewaysFromIPPool', 'gatewaysFromPool'],
  ['dnsServersFromIPPool', 'dnsServersFromPool'],
];

function clone(body: Body): Body {
  return structuredClone(body);
}

/** spec.metaData with the pool lists renamed (v1beta1 names → v1beta2 names, or back). */
function renamePoolLists(spec: Rec | undefined, reverse: boolean): void {
  const meta = rec(spec?.metaData);
  if (spec === undefined || meta === undefined) return;
  const rename = new Map(POOL_LISTS.map(([v1, v2]) => (reverse ? [v2, v1] : [v1, v2])));
  spec.metaData = Object.fromEntries(Object.entries(meta).map(([key, value]) => [rename.get(key) ?? key, value]));
}

function bondsOf(spec: Rec | undefined): Rec[] {
  const bonds = rec(rec(spec?.networkData)?.links)?.bonds;
  return Array.isArray(bonds) ? bonds.filter(isRecord) : [];
}

function parametersToList(bond: Rec): void {
  const params = rec(bond.parameters);
  if (params === undefined) return;
  bond.parameters = Object.keys(params)
    .sort()
    .map((name) => ({ name, value: params[name] }));
}

function parametersToMap(bond: Rec): void {
  if (!Array.isArray(bond.parameters)) return;
  const map: Rec = {};
  for (const param of bond.parameters.filter(isRecord)) {
    if (typeof param.name === 'string') map[param.name] = param.value;
  }
  bond.parameters = map;
}

function hostInterfaces(spec: Rec | undefined): Rec[] {
  const list = rec(spec?.metaData)?.fromHostInterfaces;
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

/** Down: drop fromBootMAC, remembering which entries had it. */
function dropBootMac(spec: Rec | undefined): Kept[] {
  const kept: Kept[] = [];
  for (const item of hostInterfaces(spec)) {
    if (item.fromBootMAC === undefined) continue;
    kept.push({ fromBootMAC: item.fromBootMAC, key: item.key, ...(item.interface !== undefined && { interface: item.interface }) });
    delete item.fromBootMAC;
  }
  return kept;
}

/** Up: put fromBootMAC back on the entries that still have the same key and interface. */
function restoreBootMac(spec: Rec | undefined, kept: unknown): void {
  if (!Array.isArray(kept)) return;
  for (const item of hostInterfaces(spec)) {
    const saved = kept.filter(isRecord).find((k) => k.key === item.key && k.interface === item.interface);
    if (saved !== undefined) item.fromBootMAC = saved.fromBootMAC;
  }
}

function indexesToList(status: Rec | undefined): void {
  const map = rec(status?.indexes);
  if (status === undefined || map === undefined) return;
  status.indexes = Object.entries(map)
    .map(([name, index]) => ({ index, name }))
    .sort((a, b) => Number(a.index) - Number(b.index) || (a.name < b.name ? -1 : 1));
}

function indexesToMap(status: Rec | undefined): void {
  if (status === undefined || !Array.isArray(status.indexes)) return;
  const map: Rec = {};
  for (const entry of status.indexes.filter(isRecord)) {
    if (typeof entry.name === 'string') map[entry.name] = entry.index;
  }
  status.indexes = map;
}

/** Moves spec.templateReference (v1beta1 only) into `kept`. */
function takeTemplateReference(spec: Rec | undefined, kept: Kept): void {
  if (spec?.templateReference === undefined) return;
  kept.templateReference = spec.templateReference;
  delete spec.templateReference;
}

function putTemplateReference(spec: Rec | undefined, restore: Kept): void {
  if (spec !== undefined && restore.templateReference !== undefined) spec.templateReference = restore.templateReference;
}

const metal3DataTemplateConverter: KindConverter = {
  group: INFRA_GROUP,
  kind: Kind.Metal3DataTemplate,
  up(body: Body, restore: Kept): Converted {
    const out = clone(body);
    const spec = rec(out.spec);
    const kept: Kept = {};
    takeTemplateReference(spec, kept);
    renamePoolLists(spec, false);
    bondsOf(spec).forEach(parametersToList);
    restoreBootMac(spec, restore.fromHostInterfaces);
    indexesToList(rec(out.status));
    return { body: out, kept };
  },
  down(body: Body, restore: Kept): Converted {
    const out = clone(body);
    const spec = rec(out.spec);
    const bootMac = dropBootMac(spec);
    renamePoolLists(spec, true);
    bondsOf(spec).forEach(parametersToMap);
    putTemplateReference(spec, restore);
    indexesToMap(rec(out.status));
    return { body: out, kept: bootMac.length > 0 ? { fromHostInterfaces: bootMac } : {} };
  },
};

/** ObjectReference → Metal3ObjectRef at `holder[field]`, remembering the extras under `path`. */
function narrowReference(holder: Rec | undefined, field: string, kept: Kept, path: string): void {
  const split = splitReference(holder?.[field]);
  if (holder === undefined || split === undefined) return;
  holder[field] = split.ref;
  const extras = referenceKept(split.ref, split.extras);
  if (extras !== undefined) kept[path] = extras;
}

function widenReference(holder: Rec | undefined, field: string, restore: Kept, path: string): void {
  const joined = joinReference(holder?.[field], restore[path]);
  if (holder !== undefined && joined !== undefined) holder[field] = joined;
}

/** A converter for kinds whose only differences are references (and templateReference). */
function referenceConverter(kind: string, refs: readonly [string, string][], templateReference: boolean): KindConverter {
  return {
    group: INFRA_GROUP,
    kind,
    up(body: Body): Converted {
      const out = clone(body);
      const kept: Kept = {};
      if (templateReference) takeTemplateReference(rec(out.spec), kept);
      for (const [part, field] of refs) narrowReference(rec(out[part]), field, kept, `${part}.${field}`);
      return { body: out, kept };
    },
    down(body: Body, restore: Kept): Converted {
      const out = clone(body);
      if (templateReference) putTemplateReference(rec(out.spec), restore);
      for (const [part, field] of refs) widenReference(rec(out[part]), field, restore, `${part}.${field}`);
      return { body: out, kept: {} };
    },
  };
}

const metal3DataConverter = referenceConverter(
  Kind.Metal3Data,
  [
    ['spec', 'template'],
    ['spec', 'claim'],
  ],
  true,
);

const metal3DataClaimConverter = referenceConverter(
  Kind.Metal3DataClaim,
  [
    ['spec', 'template'],
    ['status', 'renderedData'],
  ],
  false,
);

export const metal3DataConverters: readonly KindConverter[] = [metal3DataTemplateConverter, metal3DataConverter, metal3DataClaimConverter];
