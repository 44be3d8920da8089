// The CRD YAML repeats shared shapes (root device hints, images, RAID, hardware details, BMC
// details...) in several places. These tests keep the copies identical apart from descriptions,
// CEL rules and cost bounds, and keep the enums equal to the constants in domain/.
import { describe, expect, it } from 'vitest';
import { ErrorType, OperationalStatus, ProvisioningState } from '../../domain/baremetalhost.js';
import { Action, Phase } from '../../domain/operations.js';
import { crdByKind, loadCrds, schemaAt } from '../support/crds.js';
import type { SchemaNode } from '../support/crds.js';

const crds = loadCrds();

/** Where a fragment lives: "Kind:path.to.node". */
function nodeAt(where: string): SchemaNode {
  const [kind, path] = where.split(':');
  return schemaAt(crdByKind(crds, kind!).schema, path!);
}

// Keys that legitimately differ between copies: documentation, the CEL rules (upstream validates
// only the user-facing spec), and the bounds those rules need for the cost estimate.
const IGNORED = new Set(['description', 'x-kubernetes-validations', 'maxLength', 'maxItems']);

/** The shape of a schema node: everything except the ignored keys, recursively. */
function shape(node: SchemaNode): unknown {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (IGNORED.has(key)) {
      continue;
    }
    if (key === 'properties') {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, SchemaNode>).map(([k, v]) => [k, shape(v)]));
    } else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) {
      out[key] = shape(value as SchemaNode);
    } else {
      out[key] = value;
    }
  }
  return out;
}

const COPIES: [string, string[]][] = [
  [
    'RootDeviceHints',
    [
      'BareMetalHost:spec.rootDeviceHints',
      'BareMetalHost:status.provisioning.rootDeviceHints',
      'BareMetalHost:spec.raid.softwareRAIDVolumes[].physicalDisks[]',
      'HostOperation:spec.prepare.rootDeviceHints',
      'HostOperation:spec.provision.rootDeviceHints',
    ],
  ],
  [
    'Image',
    ['BareMetalHost:spec.image', 'BareMetalHost:status.provisioning.image', 'BareMetalHost:status.lastAttemptedImage', 'HostOperation:spec.provision.image'],
  ],
  ['RAIDConfig', ['BareMetalHost:spec.raid', 'BareMetalHost:status.provisioning.raid', 'HostOperation:spec.prepare.raid', 'HostOperation:spec.provision.raid']],
  ['HardwareDetails', ['BareMetalHost:status.hardware', 'HardwareData:spec.hardware', 'HostOperation:status.result.hardware']],
  ['BMCDetails', ['BareMetalHost:spec.bmc', 'HostOperation:spec.bmc', 'BMCMonitor:spec.bmc']],
  [
    'SecretReference',
    [
      'BareMetalHost:spec.userData',
      'BareMetalHost:spec.networkData',
      'BareMetalHost:spec.metaData',
      'HostOperation:spec.provision.userData',
      'HostOperation:spec.provision.networkData',
      'HostOperation:spec.provision.metaData',
      'BareMetalHost:status.goodCredentials.credentials',
    ],
  ],
  ['CustomDeploy', ['BareMetalHost:spec.customDeploy', 'BareMetalHost:status.provisioning.customDeploy', 'HostOperation:spec.provision.customDeploy']],
  ['BootMode', ['BareMetalHost:spec.bootMode', 'BareMetalHost:status.provisioning.bootMode', 'HostOperation:spec.bootMode']],
  ['bootMACAddress', ['BareMetalHost:spec.bootMACAddress', 'HostOperation:spec.bootMACAddress']],
  ['FirmwareConfig', ['BareMetalHost:spec.firmware', 'BareMetalHost:status.provisioning.firmware']],
  ['HostRef', ['HostOperation:spec.host', 'BMCMonitor:spec.host']],
  ['CredentialsReport', ['HostOperation:status.result.credentials', 'BMCMonitor:status.credentials']],
  ['CredentialsStatus', ['BareMetalHost:status.goodCredentials', 'BareMetalHost:status.triedCredentials']],
  ['OperationError', ['HostOperation:status.error', 'BMCMonitor:status.error']],
  ['Condition', ['BareMetalHost:status.conditions[]', 'HostFirmwareSettings:status.conditions[]']],
];

describe('repeated shapes stay identical', () => {
  it.each(COPIES)('%s', (_name, places) => {
    const [first, ...rest] = places.map((where) => [where, shape(nodeAt(where))] as const);
    for (const [where, copy] of rest) {
      expect(copy, `${where} differs from ${first![0]}`).toEqual(first![1]);
    }
  });
});

const ENUMS: [string, string, readonly unknown[]][] = [
  ['ProvisioningState', 'HostOperation:spec.hostStatus.state', Object.values(ProvisioningState)],
  ['OperationalStatus', 'BareMetalHost:status.operationalStatus', Object.values(OperationalStatus)],
  ['ErrorType', 'BareMetalHost:status.errorType', Object.values(ErrorType)],
  ['Action', 'HostOperation:spec.action', Object.values(Action)],
  ['Action', 'BareMetalHost:status.ironhook.request.action', Object.values(Action)],
  ['Phase', 'HostOperation:status.phase', Object.values(Phase)],
  ['Phase', 'HostOperation:status.steps[].state', Object.values(Phase)],
  ['Phase', 'BareMetalHost:status.ironhook.request.phase', Object.values(Phase)],
];

describe('enums match the domain constants', () => {
  it.each(ENUMS)('%s at %s', (_name, where, values) => {
    expect([...(nodeAt(where).enum ?? [])].sort()).toEqual([...values].sort());
  });
});
