// The BareMetalHost spec a Metal3Machine asks for (upstream's setHostSpec): the provisioning
// fields only on a host without image or custom deploy, automatedCleaningMode and `online: true`
// always. Shared by the claim (which carries it when the machine has no dataTemplate, as upstream's
// Associate writes it in the same patch) and SettingHostSpec (which writes what still differs).
import type { JsonPatchOperation } from '../../domain/capi/requests.js';
import { canonicalJSON } from '../../domain/canonical.js';
import type { KObject } from '../../domain/k8s.js';
import { rec, str, type Rec } from '../kit/index.js';
import type { MachineContext } from './context.js';
import { hostSpec } from './observed.js';

export function hasRef(value: unknown): boolean {
  return str(rec(value).name) !== '';
}

function imageFor(spec: Rec): Record<string, unknown> | undefined {
  const image = rec(spec.image);
  if (str(image.url) === '') return undefined;
  const out: Record<string, unknown> = { url: image.url };
  if (str(image.checksum) !== '') out.checksum = image.checksum;
  if (str(image.checksumType) !== '') out.checksumType = image.checksumType;
  if (str(image.diskFormat) !== '') out.format = image.diskFormat;
  return out;
}

/** What the host should carry, given the machine's status (userData, metaData, networkData). */
function desiredHostSpec(ctx: MachineContext, status: Rec, host: KObject): Record<string, unknown> {
  const spec = hostSpec(host);
  const fresh = str(rec(spec.image).url) === '' && str(rec(spec.customDeploy).method) === '';
  const desired: Record<string, unknown> = {};
  if (fresh && hasRef(status.userData)) {
    const method = str(rec(ctx.spec.customDeploy).method);
    Object.assign(desired, {
      image: imageFor(ctx.spec),
      customDeploy: method === '' ? undefined : { method },
      userData: status.userData,
      metaData: status.metaData,
      networkData: status.networkData,
    });
  }
  const cleaning = str(ctx.spec.automatedCleaningMode);
  if (cleaning !== '') desired.automatedCleaningMode = cleaning;
  desired.online = true;
  return Object.fromEntries(Object.entries(desired).filter(([, value]) => value !== undefined));
}

/** The host spec fields that differ from what the machine asks for, sorted by name. */
export function hostSpecChanges(ctx: MachineContext, status: Rec, host: KObject): Record<string, unknown> {
  const spec = hostSpec(host);
  const changed = Object.entries(desiredHostSpec(ctx, status, host)).filter(([key, value]) => canonicalJSON(spec[key]) !== canonicalJSON(value));
  return Object.fromEntries(changed.sort(([a], [b]) => a.localeCompare(b)));
}

export function hostSpecOps(changes: Record<string, unknown>): JsonPatchOperation[] {
  return Object.entries(changes).map(([key, value]) => ({ op: 'add' as const, path: `/spec/${key}`, value }));
}
