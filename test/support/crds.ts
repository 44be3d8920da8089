// Loading the CRDs under manifests/crds and the manifests under examples/, and validating objects
// against a CRD's openAPIV3Schema with ajv (the CEL rules are checked by the e2e tests only).
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parseAllDocuments } from 'yaml';
import type {
  BMCDetails,
  BareMetalHost,
  BareMetalHostStatus,
  HardwareData,
  HardwareDetails,
  HostFirmwareSettings,
  RAIDConfig,
  RootDeviceHints,
} from '../../domain/baremetalhost.js';
import type { KObject } from '../../domain/k8s.js';
import type { Action, BMCMonitor, HostOperation, HostOperationSpec, HostOperationStatus, RequestParametersOf } from '../../domain/operations.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const CRD_DIR = join(ROOT, 'manifests', 'crds');
export const EXAMPLES_DIR = join(ROOT, 'examples');
export const POLICY_DIR = join(ROOT, 'manifests', 'policies');
export const ADMISSION_POLICY = join(POLICY_DIR, 'baremetalhost-metadata-policy.yaml');

/** An OpenAPI v3 schema node as CRDs use it (structural subset plus the x-kubernetes extensions). */
export interface SchemaNode {
  type?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  required?: string[];
  enum?: unknown[];
  anyOf?: SchemaNode[];
  pattern?: string;
  maxLength?: number;
  maxItems?: number;
  nullable?: boolean;
  default?: unknown;
  'x-kubernetes-validations'?: ValidationRule[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  [key: string]: unknown;
}

export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  fieldPath?: string;
  reason?: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  jsonPath: string;
  description?: string;
  priority?: number;
}

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: { status?: Record<string, never> };
  additionalPrinterColumns?: PrinterColumn[];
  schema: { openAPIV3Schema: SchemaNode };
}

export interface Crd {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; listKind: string; plural: string; singular: string; shortNames?: string[]; categories?: string[] };
    versions: CrdVersion[];
  };
}

export interface LoadedCrd {
  file: string;
  crd: Crd;
  version: CrdVersion;
  schema: SchemaNode;
}

/**
 * All documents of a YAML file (empty documents dropped), read as YAML 1.1 like kubectl does, so
 * an unquoted off or yes is a boolean here too.
 */
export function readManifests(path: string): KObject[] {
  return parseAllDocuments(readFileSync(path, 'utf8'), { version: '1.1' })
    .map((doc) => doc.toJS() as KObject | null)
    .filter((doc): doc is KObject => doc !== null);
}

export function loadCrds(): LoadedCrd[] {
  return readdirSync(CRD_DIR)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const [crd] = readManifests(join(CRD_DIR, file)) as unknown as Crd[];
      const version = crd!.spec.versions[0]!;
      return { file, crd: crd!, version, schema: version.schema.openAPIV3Schema };
    });
}

export function crdByKind(crds: LoadedCrd[], kind: string): LoadedCrd {
  const found = crds.find((c) => c.crd.spec.names.kind === kind);
  if (found === undefined) {
    throw new Error(`no CRD for kind ${kind}`);
  }
  return found;
}

/** Every schema node with its JSON-ish path (".spec.bmc.address", ".spec.raid.hardwareRAIDVolumes[]"). */
export function walkSchema(node: SchemaNode, visit: (node: SchemaNode, path: string) => void, path = ''): void {
  visit(node, path);
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    walkSchema(child, visit, `${path}.${name}`);
  }
  if (node.items !== undefined) {
    walkSchema(node.items, visit, `${path}[]`);
  }
  if (typeof node.additionalProperties === 'object') {
    walkSchema(node.additionalProperties, visit, `${path}{}`);
  }
  node.anyOf?.forEach((alternative, index) => {
    walkSchema(alternative, visit, `${path}<${index}>`);
  });
}

/** The node at a property path like "spec.raid.hardwareRAIDVolumes[]". */
export function schemaAt(root: SchemaNode, path: string): SchemaNode {
  let node: SchemaNode | undefined = root;
  for (const part of path.split('.')) {
    const name = part.replace(/\[\]$/u, '');
    node = node?.properties?.[name];
    if (part.endsWith('[]')) {
      node = node?.items;
    }
  }
  if (node === undefined) {
    throw new Error(`no schema node at ${path}`);
  }
  return node;
}

/**
 * A copy of the schema where every object with properties rejects unknown ones. The API server
 * prunes unknown fields silently, so without this a misspelt field would pass unnoticed.
 */
export function closedSchema(node: SchemaNode): SchemaNode {
  const copy: SchemaNode = { ...node };
  if (node.properties !== undefined) {
    copy.properties = Object.fromEntries(Object.entries(node.properties).map(([k, v]) => [k, closedSchema(v)]));
    if (node.additionalProperties === undefined && Object.keys(node.properties).length > 0) {
      copy.additionalProperties = false;
    }
  }
  if (node.items !== undefined) {
    copy.items = closedSchema(node.items);
  }
  if (typeof node.additionalProperties === 'object') {
    copy.additionalProperties = closedSchema(node.additionalProperties);
  }
  return copy;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function newAjv(): Ajv {
  // strict: false lets ajv skip the x-kubernetes-* keywords it does not know.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv;
}

const validators = new Map<string, ValidateFunction>();

/** An ajv validator for the CRD's schema; `closed` rejects unknown properties (see closedSchema). */
function validatorFor(loaded: LoadedCrd, closed = true): ValidateFunction {
  const key = `${loaded.file}:${String(closed)}`;
  let validate = validators.get(key);
  if (validate === undefined) {
    const schema = closed ? closedSchema(loaded.schema) : loaded.schema;
    validate = newAjv().compile(schema);
    validators.set(key, validate);
  }
  return validate;
}

/** ajv's errors as short "path message" strings, for readable assertion failures. */
export function schemaErrors(loaded: LoadedCrd, object: unknown, closed = true): string[] {
  const validate = validatorFor(loaded, closed);
  if (validate(object)) {
    return [];
  }
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

export interface InvalidCase {
  file: string;
  /** schema: OpenAPI; cel: x-kubernetes-validations; policy: the admission policy in manifests/policies. */
  layer: 'schema' | 'cel' | 'policy';
  expect: string;
}

export function invalidCases(): InvalidCase[] {
  const [doc] = readManifests(join(EXAMPLES_DIR, 'invalid', 'cases.yaml')) as unknown as { cases: InvalidCase[] }[];
  return doc!.cases;
}

export function exampleFiles(folder: string): string[] {
  return readdirSync(join(EXAMPLES_DIR, folder))
    .filter((file) => file.endsWith('.yaml') && file !== 'cases.yaml')
    .sort()
    .map((file) => join(EXAMPLES_DIR, folder, file));
}

/** Every object of examples/<folder>/*.yaml (cases.yaml aside) that `keep` accepts, with its file name, files sorted. */
export function exampleObjects(folder: string, keep: (object: KObject) => boolean): { file: string; object: KObject }[] {
  return exampleFiles(folder).flatMap((path) =>
    readManifests(path)
      .filter(keep)
      .map((object) => ({ file: basename(path), object })),
  );
}

/** The regular expressions a CEL rule passes to matches() as raw string literals r'...'. */
export function regexesIn(rule: string): string[] {
  return [...rule.matchAll(/matches\(r'([^']*)'\)/gu)].map((m) => m[1]!);
}

/** All x-kubernetes-validations of a schema with the path of the node that carries them. */
export function rulesOf(schema: SchemaNode): { path: string; rule: ValidationRule }[] {
  const found: { path: string; rule: ValidationRule }[] = [];
  walkSchema(schema, (node, path) => {
    for (const rule of node['x-kubernetes-validations'] ?? []) {
      found.push({ path, rule });
    }
  });
  return found;
}

// --- Fully populated objects typed with the domain types ------------------------------------
// tsc checks their field names against domain/, the unit tests check them against the CRD
// schemas, and the e2e tests send them to a real API server (so they also satisfy the CEL rules).

const T = '2026-11-29T10:00:00Z';
/** The namespace of every fixture object and of the Secrets they reference. */
export const FIXTURE_NAMESPACE = 'metal3';
const HOST_UID = '2b0c8a4e-5f1d-4c3b-8a9e-7d6f5e4c3b2a';

const fullHints: RootDeviceHints = {
  deviceName: '/dev/disk/by-path/pci-0000:18:00.0-scsi-0:2:0:0',
  hctl: '0:2:0:0',
  model: 'PERC H740P',
  vendor: 'DELL',
  serialNumber: '6d0946606d4c4d002c2b3a4b5c6d7e8f',
  minSizeGigabytes: 200,
  wwn: '0x6d0946606d4c4d00',
  wwnWithExtension: '0x6d0946606d4c4d002c2b3a4b5c6d7e8f',
  wwnVendorExtension: '0x2c2b3a4b5c6d7e8f',
  rotational: false,
};

const hardwareRaid: RAIDConfig = {
  hardwareRAIDVolumes: [
    {
      level: '1',
      sizeGibibytes: 200,
      name: 'boot',
      rotational: false,
      numberOfPhysicalDisks: 2,
      controller: 'RAID.Integrated.1-1',
      physicalDisks: ['Disk.Bay.0:Enclosure.Internal.0-1:RAID.Integrated.1-1', 'Disk.Bay.1:Enclosure.Internal.0-1:RAID.Integrated.1-1'],
    },
  ],
  softwareRAIDVolumes: [],
};

const softwareRaid: RAIDConfig = {
  hardwareRAIDVolumes: null,
  softwareRAIDVolumes: [{ level: '1', sizeGibibytes: 100, physicalDisks: [fullHints, { deviceName: '/dev/sdb' }] }],
};

const fullHardware: HardwareDetails = {
  systemVendor: { manufacturer: 'Dell Inc.', productName: 'PowerEdge R650', serialNumber: 'J7X9Q53' },
  firmware: { bios: { date: '2025-06-02', vendor: 'Dell Inc.', version: '1.17.2' } },
  ramMebibytes: 262144,
  nics: [
    {
      name: 'eno12399',
      model: '0x14e4 0x16d7',
      mac: '3c:ec:ef:10:20:30',
      ip: '192.168.111.20',
      speedGbps: 25,
      vlans: [{ id: 100, name: 'provisioning' }],
      vlanId: 0,
      pxe: true,
      lldp: { switchID: 'c4:7e:e0:11:22:33', portID: 'Ethernet1/7', switchSystemName: 'tor-b4' },
      pciAddress: '0000:31:00.0',
    },
  ],
  storage: [
    {
      name: '/dev/disk/by-path/pci-0000:18:00.0-scsi-0:2:0:0',
      alternateNames: ['/dev/sda'],
      rotational: false,
      type: 'SSD',
      sizeBytes: 479559942144,
      vendor: 'DELL',
      model: 'PERC H740P',
      serialNumber: '6d0946606d4c4d002c2b3a4b5c6d7e8f',
      wwn: '0x6d0946606d4c4d00',
      wwnVendorExtension: '0x2c2b3a4b5c6d7e8f',
      wwnWithExtension: '0x6d0946606d4c4d002c2b3a4b5c6d7e8f',
      hctl: '0:2:0:0',
    },
  ],
  cpu: { arch: 'x86_64', model: 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz', clockMegahertz: 2000.5, flags: ['avx2', 'vmx'], count: 64 },
  hostname: 'compute-7',
};

const bmc: BMCDetails = {
  address: 'redfish-virtualmedia+https://10.10.0.27/redfish/v1/Systems/System.Embedded.1',
  credentialsName: 'compute-7-bmc-secret',
  disableCertificateVerification: true,
};

const fullStatus: BareMetalHostStatus = {
  operationalStatus: 'OK',
  errorType: 'detach error',
  errorMessage: '',
  errorCount: 0,
  provisioningFailCount: 1,
  lastAttemptedImage: { url: 'http://172.22.0.1/images/os.qcow2', checksum: 'abc', checksumType: 'sha256', format: 'qcow2' },
  lastUpdated: T,
  hardwareProfile: 'unknown',
  hardware: fullHardware,
  provisioning: {
    state: 'provisioned',
    ID: 'a2d4b6c8-0000-4000-8000-00000000c0de',
    image: { url: 'oci://quay.io/example/os:9.6', checksum: '', checksumType: 'auto', format: 'raw', ociAuthSecretName: 'pull-secret' },
    rootDeviceHints: fullHints,
    bootMode: 'UEFISecureBoot',
    raid: softwareRaid,
    firmware: { virtualizationEnabled: true, sriovEnabled: false, simultaneousMultithreadingEnabled: true },
    customDeploy: { method: 'install_coreos' },
  },
  goodCredentials: { credentials: { name: 'compute-7-bmc-secret', namespace: FIXTURE_NAMESPACE }, credentialsVersion: '4711' },
  triedCredentials: { credentials: { name: 'compute-7-bmc-secret', namespace: FIXTURE_NAMESPACE }, credentialsVersion: '4711' },
  poweredOn: true,
  operationHistory: {
    register: { start: T, end: T },
    inspect: { start: T, end: T },
    provision: { start: T, end: null },
    deprovision: { start: null, end: null },
  },
  conditions: [{ type: 'Ready', status: 'True', reason: 'Provisioned', message: '', lastTransitionTime: T, observedGeneration: 3 }],
  ironhook: {
    request: { name: 'compute-7-poweron-9', action: 'PowerOn', sequence: 9, phase: 'Succeeded' },
    consumedAnnotations: ['reboot.metal3.io'],
  },
};

/** A BareMetalHost with every field of the domain types set (hardware RAID variant). */
export const fullHost: BareMetalHost = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'BareMetalHost',
  metadata: { name: 'compute-7', namespace: FIXTURE_NAMESPACE },
  spec: {
    online: true,
    bmc,
    bootMACAddress: '3c:ec:ef:10:20:30',
    bootMode: 'UEFISecureBoot',
    consumerRef: {
      apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
      kind: 'Metal3Machine',
      namespace: FIXTURE_NAMESPACE,
      name: 'md-0-abcde',
      uid: HOST_UID,
      resourceVersion: '1234',
      fieldPath: 'spec',
    },
    image: { url: 'oci://quay.io/example/os:9.6', checksum: '', checksumType: 'auto', format: 'raw', ociAuthSecretName: 'pull-secret' },
    userData: { name: 'compute-7-user-data', namespace: FIXTURE_NAMESPACE },
    networkData: { name: 'compute-7-network-data', namespace: FIXTURE_NAMESPACE },
    metaData: { name: 'compute-7-meta-data', namespace: FIXTURE_NAMESPACE },
    preprovisioningNetworkDataName: 'compute-7-ramdisk-network',
    externallyProvisioned: false,
    automatedCleaningMode: 'disabled',
    rootDeviceHints: fullHints,
    raid: hardwareRaid,
    customDeploy: { method: 'install_coreos' },
    hardwareProfile: 'unknown',
    architecture: 'x86_64',
    disablePowerOff: true,
    inspectionMode: 'fast',
    description: 'rack B4, slot 7',
  },
  status: fullStatus,
};

/** The software RAID variant (hardware and software RAID are exclusive). */
export const softwareRaidHost: BareMetalHost = {
  ...fullHost,
  metadata: { name: 'compute-8', namespace: FIXTURE_NAMESPACE },
  spec: { ...fullHost.spec, rootDeviceHints: { deviceName: '/dev/sda' }, raid: softwareRaid },
  status: {
    ...fullStatus,
    lastAttemptedImage: fullStatus.provisioning.image,
    provisioning: { ...fullStatus.provisioning, raid: hardwareRaid },
  },
};

const operationBase: Omit<HostOperationSpec, 'action'> = {
  host: { name: 'compute-7', uid: HOST_UID },
  sequence: 9,
  notBefore: T,
  hostGeneration: 3,
  hostStatus: { state: 'available', errorCount: 0, provisioningFailCount: 0 },
  bmc,
  bootMACAddress: '3c:ec:ef:10:20:30',
  bootMode: 'UEFI',
};

const operationStatus: HostOperationStatus = {
  phase: 'Succeeded',
  startTime: T,
  completionTime: T,
  message: 'done',
  steps: [{ name: 'SetBootDevice', state: 'Succeeded', time: T, message: 'Pxe once, UEFI' }],
  error: { kind: 'Transient', reason: 'BMCUnreachable', message: 'connection refused' },
  delayReason: 'provisioning limit of 20 hosts reached',
  result: {
    poweredOn: true,
    credentials: { name: 'compute-7-bmc-secret', namespace: FIXTURE_NAMESPACE, credentialsVersion: '4711' },
    provisioningID: 'a2d4b6c8-0000-4000-8000-00000000c0de',
    hardware: fullHardware,
    hardwareProfile: 'unknown',
  },
};

function operation(action: Action, parameters: RequestParametersOf): HostOperation {
  return {
    apiVersion: 'ironhook.dev/v1alpha1',
    kind: 'HostOperation',
    metadata: { name: `compute-7-${action.toLowerCase()}-9`, namespace: FIXTURE_NAMESPACE },
    spec: { ...operationBase, action, ...parameters },
    status: operationStatus,
  };
}

/** One HostOperation per parameter block; together they set every field of the domain types. */
export const fullOperations: HostOperation[] = [
  operation('Register', { register: {} }),
  operation('Inspect', { inspect: { mode: 'fast' } }),
  operation('Prepare', { prepare: { raid: hardwareRaid, rootDeviceHints: fullHints } }),
  operation('Prepare', { prepare: { raid: softwareRaid } }),
  operation('Provision', {
    provision: {
      image: { url: 'http://172.22.0.1/images/os.qcow2', checksum: 'abc', checksumType: 'sha256', format: 'qcow2', ociAuthSecretName: '' },
      customDeploy: { method: 'install_coreos' },
      userData: { name: 'compute-7-user-data', namespace: FIXTURE_NAMESPACE },
      networkData: { name: 'compute-7-network-data', namespace: FIXTURE_NAMESPACE },
      metaData: { name: 'compute-7-meta-data', namespace: FIXTURE_NAMESPACE },
      preprovisioningNetworkDataName: 'compute-7-ramdisk-network',
      rootDeviceHints: fullHints,
      raid: hardwareRaid,
      architecture: 'x86_64',
    },
  }),
  operation('Provision', { provision: { customDeploy: { method: 'install_coreos' }, raid: softwareRaid } }),
  operation('Deprovision', { deprovision: { automatedCleaningMode: 'metadata' } }),
  operation('Reboot', { power: { mode: 'soft' } }),
  operation('Detach', {}),
];

export const fullMonitor: BMCMonitor = {
  apiVersion: 'ironhook.dev/v1alpha1',
  kind: 'BMCMonitor',
  metadata: { name: 'compute-7', namespace: FIXTURE_NAMESPACE },
  spec: { host: { name: 'compute-7', uid: HOST_UID }, bmc, intervalSeconds: 60 },
  status: {
    observedTime: T,
    changedTime: T,
    poweredOn: true,
    reachable: false,
    credentials: { name: 'compute-7-bmc-secret', namespace: FIXTURE_NAMESPACE, credentialsVersion: '4711' },
    error: { kind: 'Transient', reason: 'BMCUnreachable', message: 'connection refused' },
  },
};

export const fullHardwareData: HardwareData = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'HardwareData',
  metadata: { name: 'compute-7', namespace: FIXTURE_NAMESPACE },
  spec: { hardware: fullHardware },
};

export const fullFirmwareSettings: HostFirmwareSettings = {
  apiVersion: 'metal3.io/v1alpha1',
  kind: 'HostFirmwareSettings',
  metadata: { name: 'compute-7', namespace: FIXTURE_NAMESPACE },
  spec: { settings: { ProcVirtualization: 'Enabled', NumLock: 'Off', MemFrequency: 3200 } },
  status: {
    schema: { name: 'schema-2f8e6b1c', namespace: FIXTURE_NAMESPACE },
    settings: { ProcVirtualization: 'Disabled', NumLock: 'On', MemFrequency: '3200' },
    lastUpdated: T,
    conditions: [{ type: 'Valid', status: 'True', reason: 'Success', message: '', lastTransitionTime: T, observedGeneration: 2 }],
  },
};
