// Which host a machine is associated with, and what the host reports (addresses).
import { PatchReason } from '../../../domain/capi/requests.js';
import { BAREMETALHOST_ANNOTATION } from '../../../domain/capi/types.js';
import type { KObject } from '../../../domain/k8s.js';
import { rec, str } from '../../kit/index.js';
import { hostNamed, latestRequest, type MachineContext } from '../context.js';
import { Purpose } from '../names.js';
import { isInFlight, patchReason } from '../observed.js';
import { targetName } from '../requests.js';

function hostAnnotation(ctx: MachineContext): string {
  return ctx.m3m.metadata.annotations?.[BAREMETALHOST_ANNOTATION] ?? '';
}

/** The namespace the `metal3.io/BareMetalHost` annotation names when it is not the machine's, else ''. */
export function foreignAnnotationNamespace(ctx: MachineContext): string {
  const value = hostAnnotation(ctx);
  const namespace = value.includes('/') ? value.slice(0, value.indexOf('/')) : '';
  return namespace !== '' && namespace !== ctx.namespace ? namespace : '';
}

/**
 * The host named by the `metal3.io/BareMetalHost` annotation (`<ns>/<name>`), looked up in the
 * machine's namespace only: an annotation naming another namespace names no host here.
 */
export function annotatedHostName(ctx: MachineContext): string {
  if (foreignAnnotationNamespace(ctx) !== '') return '';
  const value = hostAnnotation(ctx);
  return value.slice(value.indexOf('/') + 1);
}

/** The host this machine holds or may hold: the annotation's, else the host of a running or applied claim. */
export function claimedHostName(ctx: MachineContext): string {
  const annotated = annotatedHostName(ctx);
  if (annotated !== '') return annotated;
  const claim = latestRequest(ctx, Purpose.Claim);
  return isInFlight(claim) || patchReason(claim) === PatchReason.Applied ? targetName(claim) : '';
}

export function claimedHost(ctx: MachineContext): KObject | undefined {
  const name = claimedHostName(ctx);
  return name === '' ? undefined : hostNamed(ctx, name);
}

export interface MachineAddress {
  type: string;
  address: string;
}

/** Addresses: one InternalIP per NIC with an address, then Hostname and InternalDNS from the hostname. */
export function hostAddresses(host: KObject | undefined): MachineAddress[] {
  const hardware = rec(rec(host?.status).hardware);
  const nics = Array.isArray(hardware.nics) ? hardware.nics.map(rec) : [];
  const addresses: MachineAddress[] = nics.filter((nic) => str(nic.ip) !== '').map((nic) => ({ type: 'InternalIP', address: str(nic.ip) }));
  const hostname = str(hardware.hostname);
  if (hostname !== '') addresses.push({ type: 'Hostname', address: hostname }, { type: 'InternalDNS', address: hostname });
  return addresses;
}
