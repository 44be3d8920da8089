// The metaData Secret: a flat map of strings, written source by source in
// upstream's order (a later source wins on a duplicate key), then the forced `providerid`.
import { annotationOf, bootMac, hostInterfaceMac, labelOf, marshalYaml, poolAddress, sourceObject, type RenderContext } from './context.js';
import type { MetaData } from './types.js';

type Writer = (meta: MetaData, ctx: RenderContext, out: Map<string, string>) => void;

/** prefix + (offset + index * step) + suffix, computed in int32 as upstream does (it wraps around). */
function renderIndex(item: NonNullable<MetaData['indexes']>[number], index: number): string {
  const step = item.step === undefined || item.step === 0 ? 1 : item.step;
  const value = ((item.offset ?? 0) + Math.imul(index, step)) | 0;
  return `${item.prefix ?? ''}${String(value)}${item.suffix ?? ''}`;
}

function objectName(ctx: RenderContext, which: 'machine' | 'metal3machine' | 'baremetalhost'): string {
  return sourceObject(ctx, which).metadata.name ?? '';
}

const WRITERS: readonly Writer[] = [
  (meta, ctx, out) => {
    for (const item of meta.fromHostInterfaces ?? []) {
      out.set(item.key, item.fromBootMAC === true ? bootMac(ctx.host) : hostInterfaceMac(ctx.host, item.interface ?? ''));
    }
  },
  (meta, ctx, out) => {
    for (const item of meta.ipAddressesFromPool ?? []) out.set(item.key, poolAddress(ctx, item.name).address);
  },
  (meta, ctx, out) => {
    for (const item of meta.prefixesFromPool ?? []) out.set(item.key, String(poolAddress(ctx, item.name).prefix));
  },
  (meta, ctx, out) => {
    for (const item of meta.gatewaysFromPool ?? []) out.set(item.key, poolAddress(ctx, item.name).gateway);
  },
  (meta, ctx, out) => {
    for (const item of meta.indexes ?? []) out.set(item.key, renderIndex(item, ctx.index));
  },
  (meta, ctx, out) => {
    for (const item of meta.namespaces ?? []) out.set(item.key, ctx.namespace);
  },
  (meta, ctx, out) => {
    for (const item of meta.objectNames ?? []) out.set(item.key, objectName(ctx, item.object));
  },
  (meta, ctx, out) => {
    for (const item of meta.fromLabels ?? []) out.set(item.key, labelOf(sourceObject(ctx, item.object), item.label));
  },
  (meta, ctx, out) => {
    for (const item of meta.fromAnnotations ?? []) out.set(item.key, annotationOf(sourceObject(ctx, item.object), item.annotation));
  },
  (meta, _ctx, out) => {
    for (const item of meta.strings ?? []) out.set(item.key, item.value);
  },
];

/** `<metal3machine namespace>/<host name>/<metal3machine name>`, always present. */
function providerId(ctx: Pick<RenderContext, 'metal3Machine' | 'host'>): string {
  const m3m = ctx.metal3Machine.metadata;
  return `${m3m.namespace ?? ''}/${ctx.host.metadata.name ?? ''}/${m3m.name ?? ''}`;
}

/** The metaData map; dnsServersFromPool claims addresses but renders nothing (as upstream). */
export function metaDataMap(meta: MetaData, ctx: RenderContext): Record<string, string> {
  const out = new Map<string, string>();
  for (const write of WRITERS) write(meta, ctx, out);
  out.set('providerid', providerId(ctx));
  return Object.fromEntries(out);
}

/** The text of the `metaData` key. */
export function renderMetaData(meta: MetaData, ctx: RenderContext): string {
  return marshalYaml(metaDataMap(meta, ctx));
}
