// The pool's observed children: every IPAddress Metacontroller says this pool owns. They are the
// pool's primary memory; an allocation that exists as an object is never moved.
import { parseAddress, type Address } from '../../domain/ipam/address.js';
import type { KObject } from '../../domain/k8s.js';
import type { ObjectMap } from '../../domain/metacontroller.js';
import { CAPI_IPAM_GROUP, IPAM_GROUP, Kind } from '../../domain/ipam/types.js';
import type { ClaimKind } from './claims.js';
import { compareText, objectsOf, rec } from '../kit/index.js';
import { stringField } from './request.js';

export interface ObservedAddress {
  readonly kind: ClaimKind;
  readonly objectName: string;
  readonly claimName: string;
  readonly address: Address;
  readonly created: string;
  /** The observed spec, returned unchanged while the allocation is kept (IPAddresses are immutable). */
  readonly spec: Readonly<Record<string, unknown>>;
}

export interface ObservedChildren {
  /** Readable children, oldest first (the first object for an address or a claim wins). */
  readonly addresses: readonly ObservedAddress[];
  /** Children we cannot read (no address, no claim): not returned, so Metacontroller deletes them. */
  readonly unreadable: readonly string[];
}

function readChild(obj: KObject, kind: ClaimKind): ObservedAddress | undefined {
  const spec = rec(obj.spec);
  const claimRef = rec(kind === Kind.IPClaim ? spec.claim : spec.claimRef);
  const claimName = stringField(claimRef.name);
  const address = parseAddress(stringField(spec.address) ?? '');
  if (claimName === undefined || claimName === '' || address === undefined) return undefined;
  return {
    kind,
    objectName: obj.metadata.name ?? '',
    claimName,
    address,
    created: obj.metadata.creationTimestamp ?? '',
    spec,
  };
}

function compareObserved(a: ObservedAddress, b: ObservedAddress): number {
  return compareText(a.created, b.created) || compareText(a.kind, b.kind) || compareText(a.objectName, b.objectName);
}

export function observedChildren(children: ObjectMap, namespace: string): ObservedChildren {
  const addresses: ObservedAddress[] = [];
  const unreadable: string[] = [];
  const sources: Array<[string, ClaimKind]> = [
    [IPAM_GROUP, Kind.IPClaim],
    [CAPI_IPAM_GROUP, Kind.IPAddressClaim],
  ];
  for (const [group, kind] of sources) {
    for (const obj of objectsOf(children, Kind.IPAddress, group, namespace)) {
      const read = readChild(obj, kind);
      if (read === undefined) unreadable.push(`${group}/${obj.metadata.name ?? ''}`);
      else addresses.push(read);
    }
  }
  return { addresses: addresses.sort(compareObserved), unreadable };
}
