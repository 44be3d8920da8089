// The bench's BareMetalHosts: one BMC Secret and one host per emulated system, the way an SRE
// enrols a rack (one `kubectl apply` of a generated file), and the same file again with an image
// to provision them all. Cleaning is off on both sides of the comparison (upstream-baseline.md).
import type { ImageFiles } from '../bmcs.js';
import type { ScaleFleet } from './fleet.js';

export type ImageMode = 'live-iso' | 'disk';

interface HostsInput {
  fleet: ScaleFleet;
  password: string;
  files: ImageFiles;
  /** Without an image the hosts are only enrolled (registered, inspected, available). */
  image?: ImageMode;
}

function imageOf(files: ImageFiles, mode: ImageMode): Record<string, string> {
  return mode === 'disk'
    ? { url: files.diskURL, checksum: files.diskChecksumURL, checksumType: 'sha256', format: 'raw' }
    : { url: files.liveISOURL, format: 'live-iso' };
}

/** A kubectl List of every BareMetalHost in system order, each after its Secret when enrolling. */
export function hostsManifest(input: HostsInput): string {
  const items: unknown[] = [];
  for (const [id, address] of input.fleet.addresses) {
    if (input.image === undefined)
      items.push({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: `${id}-bmc` },
        type: 'Opaque',
        stringData: { username: 'admin', password: input.password },
      });
    const spec = {
      online: input.image !== undefined,
      bootMACAddress: input.fleet.macs.get(id),
      bootMode: 'UEFI',
      automatedCleaningMode: 'disabled',
      bmc: { address, credentialsName: `${id}-bmc` },
      ...(input.image === undefined ? {} : { image: imageOf(input.files, input.image) }),
    };
    items.push({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: id }, spec });
  }
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
}
