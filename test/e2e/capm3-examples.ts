// The example manifests of the Cluster API provider through the real API server (capm3-data.test.ts):
// each file is applied unchanged with `kubectl apply --server-side` into a fresh namespace and read
// back in the other API version through the conversion webhook. None of them names a BMC, so
// nothing they create can reach a machine; the namespace is deleted afterwards. The seed host
// (examples/seed/server-01.yaml) names a private IPMI address: it is only validated unchanged
// (--dry-run=server), and applied for real with its BMC address pointed at a loopback emulator.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExpectStatic } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { RedfishEmulator, SystemConfig } from '../../emulators/redfish/index.js';
import { REPO_ROOT, kubectlApply } from '../../devenv/environment.js';
import type { Environment } from '../../devenv/environment.js';
import { waitFor } from '../../devenv/processes.js';
import { createNamespace, getJSON } from './support.js';

const GROUP = 'infrastructure.cluster.x-k8s.io';
const SEED_SERVER_FILE = join(REPO_ROOT, 'examples', 'seed', 'server-01.yaml');
const CAPM3_EXAMPLES = ['seed-cluster.yaml', 'upstream-v1beta1-cluster.yaml', 'upstream-v1beta1-machine.yaml', 'upstream-v1beta1-remediation.yaml'].map(
  (file) => join(REPO_ROOT, 'examples', 'capm3', file),
);
/** Upstream v1beta1's failureDomains map, and the v1beta2 list it becomes (sorted by name, controlPlane only when true). */
const FAILURE_DOMAINS_V1BETA1 = { 'rack-b': {}, 'rack-a': { controlPlane: true, attributes: { row: '1' } } };
const FAILURE_DOMAINS_V1BETA2 = [{ name: 'rack-a', controlPlane: true, attributes: { row: '1' } }, { name: 'rack-b' }];

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

type Spec = Record<string, unknown>;
interface Read {
  spec: Spec;
}

function manifests(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => doc.toJS() as Manifest)
    .filter((doc) => typeof doc === 'object');
}

/** Reads an object of `plural` in exactly `version` (`<plural>.<version>.<group>`). */
async function read(env: Environment, namespace: string, what: { plural: string; version: string }, name: string): Promise<Read> {
  return getJSON<Read>(env, namespace, `${what.plural}.${what.version}.${GROUP}`, name);
}

function loopbackOnly(docs: Manifest[]): void {
  for (const doc of docs.filter((each) => each.kind === 'BareMetalHost')) {
    const address = (doc.spec?.bmc as { address?: string } | undefined)?.address ?? '';
    if (!/^[a-z0-9+-]+:\/\/127\.0\.0\.1[:/]/u.test(address)) {
      throw new Error(`refusing to apply BareMetalHost ${doc.metadata.name} with BMC ${address}: not loopback`);
    }
  }
}

/** The seed host's system as the emulator plays it: the example's credentials and boot MAC. */
function seedServerSystem(): SystemConfig {
  const docs = manifests(SEED_SERVER_FILE);
  const host = docs.find((doc) => doc.kind === 'BareMetalHost');
  const secret = docs.find((doc) => doc.kind === 'Secret');
  const decode = (key: string): string => Buffer.from(secret?.data?.[key] ?? '', 'base64').toString('utf8');
  const mac = typeof host?.spec?.bootMACAddress === 'string' ? host.spec.bootMACAddress : '';
  return { id: host?.metadata.name ?? 'server-01', username: decode('username'), password: decode('password'), powerState: 'Off', macs: [mac] };
}

export const SEED_SERVER: SystemConfig = seedServerSystem();

async function v1beta2ReadAsV1beta1(env: Environment, namespace: string, expect: ExpectStatic): Promise<void> {
  const template = await read(env, namespace, { plural: 'metal3machinetemplates', version: 'v1beta1' }, 'seed-workers');
  const machineSpec = (template.spec.template as { spec: { image: Spec; dataTemplate: Spec; hostSelector: Spec } }).spec;
  expect(machineSpec.image).toEqual(expect.objectContaining({ format: 'qcow2', checksumType: 'sha256' }));
  expect(machineSpec.image).not.toHaveProperty('diskFormat');
  expect(machineSpec.dataTemplate).toEqual(expect.objectContaining({ name: 'workers' }));
  expect(machineSpec.hostSelector).toEqual({
    matchLabels: { 'ironhook.dev/pool': 'seed' },
    matchExpressions: [{ key: 'ironhook.dev/role', operator: 'in', values: ['worker'] }],
  });
  const remediation = await read(env, namespace, { plural: 'metal3remediationtemplates', version: 'v1beta1' }, 'seed-workers-reboot');
  const strategy = (remediation.spec.template as { spec: { strategy: Spec } }).spec.strategy;
  expect(strategy).toEqual({ type: 'Reboot', retryLimit: 2, timeout: '600s' });
  const metal3Cluster = await read(env, namespace, { plural: 'metal3clusters', version: 'v1beta1' }, 'seed');
  expect(metal3Cluster.spec).toEqual(
    expect.objectContaining({ controlPlaneEndpoint: { host: '192.168.1.5', port: 6443 }, cloudProviderEnabled: false, noCloudProvider: true }),
  );
  for (const kind of ['cluster', 'machinedeployment', 'machinehealthcheck', 'secret']) {
    const name = kind === 'secret' ? 'seed-workers-userdata' : kind === 'cluster' ? 'seed' : 'seed-workers';
    expect((await getJSON<{ metadata: { name: string } }>(env, namespace, kind, name)).metadata.name).toBe(name);
  }
}

async function v1beta1ReadAsV1beta2(env: Environment, namespace: string, expect: ExpectStatic): Promise<void> {
  const metal3Cluster = await read(env, namespace, { plural: 'metal3clusters', version: 'v1beta2' }, 'test1');
  expect(metal3Cluster.spec).toEqual(expect.objectContaining({ controlPlaneEndpoint: { host: '192.168.111.249', port: 6443 }, cloudProviderEnabled: false }));
  const clusterTemplate = await read(env, namespace, { plural: 'metal3clustertemplates', version: 'v1beta2' }, 'test1-cluster-template');
  const clusterTemplateSpec = (clusterTemplate.spec.template as { spec: Spec }).spec;
  expect(clusterTemplateSpec).toEqual(expect.objectContaining({ cloudProviderEnabled: false }));
  expect(clusterTemplateSpec).not.toHaveProperty('noCloudProvider');
  for (const [name, diskFormat] of [
    ['test1-controlplane', 'raw'],
    ['test1-workers', 'qcow2'],
  ] as const) {
    const template = await read(env, namespace, { plural: 'metal3machinetemplates', version: 'v1beta2' }, name);
    const image = (template.spec.template as { spec: { image: Spec } }).spec.image;
    expect(image).toEqual(expect.objectContaining({ diskFormat }));
    expect(image).not.toHaveProperty('format');
  }
  const machine = await read(env, namespace, { plural: 'metal3machines', version: 'v1beta2' }, 'test1-workers-x7k2p');
  expect(machine.spec.image).toEqual(expect.objectContaining({ diskFormat: 'qcow2', checksumType: 'md5' }));
  expect(machine.spec.image).not.toHaveProperty('format');
  const remediationTemplate = await read(env, namespace, { plural: 'metal3remediationtemplates', version: 'v1beta2' }, 'worker-remediation-request');
  expect((remediationTemplate.spec.template as { spec: { strategy: Spec } }).spec.strategy).toEqual({ type: 'Reboot', retryLimit: 2, timeoutSeconds: 300 });
  const remediation = await read(env, namespace, { plural: 'metal3remediations', version: 'v1beta2' }, 'test1-workers-x7k2p');
  expect(remediation.spec.strategy).toEqual({ type: 'Reboot', retryLimit: 2, timeoutSeconds: 300 });
  // The written Go duration survives the round trip through the stored v1beta2 object.
  const asWritten = await read(env, namespace, { plural: 'metal3remediations', version: 'v1beta1' }, 'test1-workers-x7k2p');
  expect(asWritten.spec.strategy).toEqual({ type: 'Reboot', retryLimit: 2, timeout: '5m0s' });
}

/**
 * No example carries failureDomains: the v1beta1 Metal3Cluster example again, under another name,
 * with upstream's map added. The hook copies spec to status, so both holders convert.
 */
async function failureDomainsConvert(env: Environment, namespace: string, expect: ExpectStatic): Promise<void> {
  const example = manifests(CAPM3_EXAMPLES[1] ?? '').find((doc) => doc.kind === 'Metal3Cluster');
  const object = { ...example, metadata: { name: 'test1-failure-domains' }, spec: { ...example?.spec, failureDomains: FAILURE_DOMAINS_V1BETA1 } };
  const applied = await kubectlApply(env.kubeconfig, JSON.stringify(object), ['--server-side', '-n', namespace]);
  expect(applied).toEqual(expect.objectContaining({ code: 0 }));
  const stored = await read(env, namespace, { plural: 'metal3clusters', version: 'v1beta2' }, 'test1-failure-domains');
  expect(stored.spec.failureDomains).toEqual(FAILURE_DOMAINS_V1BETA2);
  let status: Spec | undefined;
  await waitFor(
    'the Metal3Cluster to copy its failure domains to status',
    async () => {
      status = (await getJSON<{ status?: Spec }>(env, namespace, `metal3clusters.v1beta2.${GROUP}`, 'test1-failure-domains')).status;
      return status?.failureDomains !== undefined;
    },
    60_000,
    1000,
  );
  expect(status?.failureDomains).toEqual(FAILURE_DOMAINS_V1BETA2);
  const legacy = await getJSON<Read & { status?: Spec }>(env, namespace, `metal3clusters.v1beta1.${GROUP}`, 'test1-failure-domains');
  expect(legacy.spec.failureDomains).toEqual(FAILURE_DOMAINS_V1BETA1);
  expect(legacy.status?.failureDomains).toEqual(FAILURE_DOMAINS_V1BETA1);
}

export async function examplesApplyAndConvert(env: Environment, expect: ExpectStatic): Promise<void> {
  const namespace = await createNamespace(env, 'capm3-examples');
  try {
    for (const file of CAPM3_EXAMPLES) {
      expect(manifests(file).filter((doc) => doc.kind === 'BareMetalHost')).toEqual([]);
      await env.kubectl('apply', '--server-side', '-f', file, '-n', namespace);
    }
    await v1beta2ReadAsV1beta1(env, namespace, expect);
    await v1beta1ReadAsV1beta2(env, namespace, expect);
    await failureDomainsConvert(env, namespace, expect);
  } finally {
    // The Cluster, its machines and the Metal3 objects start reconciling (they wait for hosts and
    // owners that never come); the namespace takes them away, finalizers included.
    await env.kubectl('delete', 'namespace', namespace, '--wait=true', '--timeout=150s');
  }
  expect((await env.kubectlResult('get', 'namespace', namespace)).code).not.toBe(0);
}

interface HostStatusView {
  spec: { online?: boolean; bmc?: { address?: string } };
  status?: { provisioning?: { state?: string }; poweredOn?: boolean; operationalStatus?: string; hardware?: { nics?: { mac?: string }[] } };
}

export async function seedServerRegisters(env: Environment, emulator: RedfishEmulator, expect: ExpectStatic): Promise<void> {
  const namespace = await createNamespace(env, 'seed-server');
  await env.kubectl('apply', '--dry-run=server', '-f', SEED_SERVER_FILE, '-n', namespace);
  expect((await env.kubectlResult('get', 'baremetalhost', SEED_SERVER.id, '-n', namespace)).code).not.toBe(0);

  const address = emulator.address(SEED_SERVER.id, 'redfish-virtualmedia');
  const docs = manifests(SEED_SERVER_FILE).map((doc) =>
    doc.kind === 'BareMetalHost' ? { ...doc, spec: { ...doc.spec, bmc: { ...(doc.spec?.bmc as Spec), address } } } : doc,
  );
  loopbackOnly(docs);
  const applied = await kubectlApply(env.kubeconfig, docs.map((doc) => JSON.stringify(doc)).join('\n---\n'), ['--server-side', '-n', namespace]);
  expect(applied).toEqual(expect.objectContaining({ code: 0 }));
  const host = await waitAvailable(env, namespace, SEED_SERVER.id);
  expect(host.spec.bmc?.address).toBe(address);
  expect(host.status?.operationalStatus).toBe('OK');
  expect(host.status?.poweredOn).toBe(false);
  expect((host.status?.hardware?.nics ?? []).map((nic) => nic.mac?.toLowerCase())).toContain(SEED_SERVER.macs?.[0]);
}

async function waitAvailable(env: Environment, namespace: string, name: string): Promise<HostStatusView> {
  let host: HostStatusView | undefined;
  await waitFor(
    `${name} available`,
    async () => {
      host = await getJSON<HostStatusView>(env, namespace, 'baremetalhost', name);
      return host.status?.provisioning?.state === 'available';
    },
    180_000,
    1000,
  );
  if (host === undefined) {
    throw new Error(`${name} was never read`);
  }
  return host;
}
