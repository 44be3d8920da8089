// Advisory conditions: the classic Metal3 pitfalls, made visible while they still matter. Each
// rule reads the host as this sync leaves it and either says nothing or returns a condition that
// is True while the problem lasts, with a message that ends in what to do. Absent means "not
// relevant now"; none of them changes what the host does.
import { parseBMCAddress } from '../../domain/bmc/index.js';
import { lookupScheme } from '../../domain/bmc/schemes.js';
import { Annotation, OperationalStatus, ProvisioningState } from '../../domain/baremetalhost.js';
import type { BareMetalHostStatus } from '../../domain/baremetalhost.js';
import type { HostContext } from './context.js';
import { inspectionDisabled } from './context.js';
import type { ConditionDraft } from './conditions.js';
import { dataChanges } from './provisioned-data.js';

export interface AdvisoryInput {
  readonly ctx: HostContext;
  /** The state this sync commits. */
  readonly state: ProvisioningState;
  readonly status: BareMetalHostStatus;
}

type Rule = (input: AdvisoryInput) => ConditionDraft | undefined;

const S = ProvisioningState;

function advisory(type: string, reason: string, message: string): ConditionDraft {
  return { type, status: 'True', reason, message };
}

function hostRef(ctx: HostContext): string {
  return `bmh ${ctx.name} -n ${ctx.namespace}`;
}

function bootsOverNetwork(ctx: HostContext): boolean {
  const parsed = parseBMCAddress(ctx.spec.bmc?.address ?? '');
  return parsed.kind === 'parsed' && lookupScheme(parsed.bmc.baseScheme)?.definition.capabilities.bootMethod === 'ipxe';
}

type NIC = NonNullable<NonNullable<BareMetalHostStatus['hardware']>['nics']>[number];

function missingNIC(mac: string, nics: readonly NIC[]): ConditionDraft {
  const found = nics.map((item) => `${item.name ?? '?'} ${item.mac ?? '?'}`).join(', ');
  return advisory(
    'BootMACMismatch',
    'NotAmongInspectedNICs',
    `spec.bootMACAddress ${mac} is not the MAC of any NIC inspection found (${found}); provisioning would wait for a NIC that does not exist. It must be a host NIC, never the BMC's: set spec.bootMACAddress to one of these`,
  );
}

/** Trap 1: a bootMACAddress that inspection did not find (often the BMC's own MAC), or a NIC that cannot PXE boot. */
const bootMACMismatch: Rule = ({ ctx, status }) => {
  const mac = (ctx.spec.bootMACAddress ?? '').toLowerCase();
  const nics = status.hardware?.nics ?? [];
  if (mac === '' || nics.length === 0) {
    return undefined;
  }
  const nic = nics.find((item) => (item.mac ?? '').toLowerCase() === mac);
  if (nic === undefined) {
    return missingNIC(mac, nics);
  }
  if (nic.pxe || !bootsOverNetwork(ctx)) {
    return undefined;
  }
  return advisory(
    'BootMACMismatch',
    'NotPXECapable',
    `spec.bootMACAddress ${mac} is NIC ${nic.name ?? '?'}, which inspection reports cannot PXE boot, and the BMC scheme boots over the network: pick a PXE-capable NIC or a virtual-media scheme`,
  );
};

/** Trap 3: online: false keeps the host off but does not stop Ironhook; the paused annotation does. */
const poweredOffNotPaused: Rule = ({ ctx, state }) => {
  if (ctx.spec.online || ctx.deleting || state === S.None || state === S.Unmanaged) {
    return undefined;
  }
  return advisory(
    'OnlineFalseNotPaused',
    'StillReconciled',
    `spec.online is false: the host is kept powered off, but it is still managed (registration, inspection, cleaning, deprovisioning and deletion may power it on). To stop every action, pause it: kubectl annotate ${hostRef(ctx)} ${Annotation.Paused}=`,
  );
};

const CLEANS_LATER: readonly ProvisioningState[] = [S.Available, S.Ready, S.Provisioning, S.Provisioned, S.Deprovisioning];

/** Trap 4: the default automatedCleaningMode erases every disk's partition table on deprovisioning. */
const cleaningWillEraseDisks: Rule = ({ ctx, state, status }) => {
  const disks = status.hardware?.storage ?? [];
  if ((ctx.spec.automatedCleaningMode ?? 'metadata') !== 'metadata' || disks.length === 0 || !CLEANS_LATER.includes(state)) {
    return undefined;
  }
  const names = disks.map((disk) => disk.name ?? '?').join(', ');
  const when = state === S.Deprovisioning ? 'is erasing' : 'will erase, when the host is deprovisioned (or a provisioning attempt fails),';
  return advisory(
    'CleaningWillEraseDisks',
    'AutomatedCleaningMetadata',
    `automatedCleaningMode is metadata (the default): cleaning ${when} the partition tables and filesystem signatures of all ${disks.length} disks (${names}), whatever they hold. To keep the data: kubectl patch ${hostRef(ctx)} --type merge -p '{"spec":{"automatedCleaningMode":"disabled"}}'`,
  );
};

const DELETE_STATES: readonly ProvisioningState[] = [S.Deprovisioning, S.PoweringOffBeforeDelete, S.Deleting];

/** Trap 5: a failing cleaning or power-off holds the finalizer; the detached annotation is the way out. */
const deletionBlocked: Rule = ({ ctx, state, status }) => {
  if (!ctx.deleting || !DELETE_STATES.includes(state) || status.operationalStatus !== OperationalStatus.Error) {
    return undefined;
  }
  return advisory(
    'DeletionBlocked',
    'DeletionStepFailed',
    `deletion waits for ${state}, which failed: ${status.errorMessage}. It is retried with back-off; to delete the host without it (Ironhook forgets the host, the machine stays as it is): kubectl annotate ${hostRef(ctx)} ${Annotation.Detached}=`,
  );
};

/** Trap 6: userData/networkData/metaData or the image changed after provisioning; nothing reprovisions. */
const provisionedDataOutOfDate: Rule = ({ ctx, state, status }) => {
  if (state !== S.Provisioned) {
    return undefined;
  }
  const changes = dataChanges(ctx.spec, ctx.namespace, status.ironhook?.provisionedData);
  if (changes.length === 0) {
    return undefined;
  }
  return advisory(
    'ProvisionedDataOutOfDate',
    'SpecChangedAfterProvisioning',
    `${changes.join('; ')} since the host was provisioned, and a provisioned host is not reprovisioned for that. To apply it, deprovision and provision again: remove spec.image (kubectl patch ${hostRef(ctx)} --type json -p '[{"op":"remove","path":"/spec/image"}]'), wait for available, then set it back; under Cluster API, replace the Machine instead`,
  );
};

const MD5_HEX = /^[0-9a-f]{32}$/iu;

type Image = NonNullable<HostContext['spec']['image']>;

/** How an image's checksum is md5: declared by checksumType, detected from its length, or not at all. */
function md5Kind(image: Image): string | undefined {
  if (image.checksumType === 'md5') {
    return 'an md5 checksum';
  }
  const auto = (image.checksumType ?? 'auto') === 'auto';
  return auto && MD5_HEX.test(image.checksum ?? '') ? 'a 32-digit hex string, detected as md5' : undefined;
}

/** Trap 7: md5 still works, but is deprecated and not FIPS-compliant. */
const imageChecksumWeak: Rule = ({ ctx }) => {
  const image = ctx.spec.image;
  const kind = image?.url ? md5Kind(image) : undefined;
  if (kind === undefined) {
    return undefined;
  }
  return advisory(
    'ImageChecksumWeak',
    'MD5Checksum',
    `spec.image.checksum is ${kind}: md5 is deprecated and not FIPS-compliant. Publish a sha256 or sha512 checksum and set spec.image.checksumType to match`,
  );
};

/** Trap 8: an oci:// tag can move, and spec.image.checksum is ignored for OCI images. */
const imageNotPinned: Rule = ({ ctx }) => {
  const url = ctx.spec.image?.url ?? '';
  if (!url.toLowerCase().startsWith('oci://') || /@sha(256|512):[0-9a-f]+$/iu.test(url)) {
    return undefined;
  }
  return advisory(
    'ImageNotPinned',
    'OCITagNotDigest',
    `spec.image.url ${url} names an OCI tag, which can move to another image, and spec.image.checksum is ignored for oci:// images: pin it by digest (oci://<registry>/<repository>@sha256:<digest>)`,
  );
};

function inspectionWait(ctx: HostContext, state: ProvisioningState): string {
  if (inspectionDisabled(ctx)) {
    return `inspection is disabled (${ctx.spec.inspectionMode === 'disabled' ? 'spec.inspectionMode' : Annotation.Inspect}), so nothing fills it; give it with the ${Annotation.HardwareDetails} annotation if you need it`;
  }
  if (state === S.Inspecting) {
    return 'inspection is running: it fills in once the agent (or the BMC, for fast inspection) reports the inventory';
  }
  return `inspection starts once registration succeeds (the host is ${state === S.None ? 'not registered yet' : state}); the Progressing condition says what registration waits for`;
}

const BEFORE_INVENTORY: readonly ProvisioningState[] = [S.None, S.Registering, S.Inspecting];

/** Trap 11: an empty status.hardware says why instead of nothing. */
const inspectionPending: Rule = ({ ctx, state, status }) => {
  const empty = Object.keys(status.hardware ?? {}).length === 0;
  if (!empty || ctx.deleting || !(BEFORE_INVENTORY.includes(state) || inspectionDisabled(ctx))) {
    return undefined;
  }
  return advisory(
    'InspectionPending',
    inspectionDisabled(ctx) ? 'InspectionDisabled' : 'NotInspectedYet',
    `status.hardware is empty: ${inspectionWait(ctx, state)}`,
  );
};

const RULES: readonly Rule[] = [
  bootMACMismatch,
  poweredOffNotPaused,
  cleaningWillEraseDisks,
  deletionBlocked,
  provisionedDataOutOfDate,
  imageChecksumWeak,
  imageNotPinned,
  inspectionPending,
];

export function advisories(input: AdvisoryInput): ConditionDraft[] {
  return RULES.map((rule) => rule(input)).filter((item): item is ConditionDraft => item !== undefined);
}
