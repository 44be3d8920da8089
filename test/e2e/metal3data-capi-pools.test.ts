// A Metal3DataTemplate that references a Cluster API pool (any kind but Metal3's IPPool) through
// the local environment (kube-apiserver with Cluster API's CRDs and webhooks, upstream
// Metacontroller, the hook server): the Metal3Data gets an IPAddressClaim `<data>-<pool>` as
// CAPM3 creates it, waits while it is unbound, renders from the IPAddress its status.addressRef
// names, and on deletion drops the claim and waits until the IPAM provider has let it go.
//
// The test plays the IPAM provider (no in-cluster provider runs here): it binds the claim by
// creating the IPAddress and writing status.addressRef, and holds the claim with a finalizer of
// its own until it "released" the address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../devenv/processes.js';
import type { Cluster } from './support.js';
import { apply, createNamespace, getJSON, openCluster } from './support.js';
import { addWorker } from './metal3data-worker.js';

const GROUP = 'infrastructure.cluster.x-k8s.io';
const CAPI_IPAM = 'ipam.cluster.x-k8s.io';
const POOL_REF = { apiGroup: CAPI_IPAM, kind: 'InClusterIPPool', name: 'external' };
const PROVIDER_FINALIZER = 'e2e.ironhook.dev/release-address';

const TEMPLATE = `apiVersion: ${GROUP}/v1beta2
kind: Metal3DataTemplate
metadata:
  name: workers
  labels: {cluster.x-k8s.io/cluster-name: e2e}
spec:
  clusterName: e2e
  metaData:
    strings:
    - {key: role, value: worker}
  networkData:
    networks:
      ipv4:
      - id: external
        link: eno1
        fromPoolRef: {apiGroup: ${CAPI_IPAM}, kind: InClusterIPPool, name: external}
        routes:
        - network: 0.0.0.0
          gateway:
            fromPoolRef: {apiGroup: ${CAPI_IPAM}, kind: InClusterIPPool, name: external}
`;

interface Meta {
  name: string;
  uid: string;
  labels?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
  ownerReferences?: { kind: string; name: string; controller?: boolean }[];
}
interface ClaimView {
  metadata: Meta;
  spec: { poolRef: Record<string, string>; clusterName?: string };
}
interface DataView {
  metadata: Meta;
  status?: { ready?: boolean; errorMessage?: string; ironhook?: { waitingFor?: string; addresses?: Record<string, string> } };
}

let cluster: Cluster;

beforeAll(async () => {
  cluster = await openCluster();
});

afterAll(async () => {
  await cluster.close();
});

async function claimOf(namespace: string, name: string): Promise<ClaimView | undefined> {
  const list = await getJSON<{ items: ClaimView[] }>(cluster.env, namespace, `ipaddressclaims.${CAPI_IPAM}`);
  return list.items.find((c) => c.metadata.name === name);
}

async function dataOf(namespace: string): Promise<DataView | undefined> {
  return (await getJSON<{ items: DataView[] }>(cluster.env, namespace, `metal3datas.${GROUP}`)).items[0];
}

async function secretText(namespace: string, name: string, key: string): Promise<string | undefined> {
  const list = await getJSON<{ items: { metadata: Meta; data: Record<string, string> }[] }>(cluster.env, namespace, 'secrets');
  const secret = list.items.find((s) => s.metadata.name === name);
  return secret === undefined ? undefined : Buffer.from(secret.data[key] ?? '', 'base64').toString('utf8');
}

/** The claim as CAPM3's ensureIPClaim names and points it; Metacontroller owns it as controller. */
function expectAsUpstream(claim: ClaimView | undefined): void {
  expect(claim?.spec).toEqual({ poolRef: POOL_REF });
  expect(claim?.metadata.labels?.['cluster.x-k8s.io/cluster-name']).toBe('e2e');
  const controllers = (claim?.metadata.ownerReferences ?? []).filter((o) => o.controller === true);
  expect(controllers.map((o) => `${o.kind}/${o.name}`)).toEqual(['Metal3Data/workers-0']);
}

async function waitingFor(namespace: string): Promise<string> {
  return (await dataOf(namespace))?.status?.ironhook?.waitingFor ?? '';
}

/**
 * The provider binds the claim: the IPAddress (named otherwise than the claim, which the contract
 * allows) and status.addressRef; it also holds the claim until it released the address.
 */
async function bind(namespace: string): Promise<void> {
  const env = cluster.env;
  const claim = [`ipaddressclaims.${CAPI_IPAM}`, 'workers-0-external', '-n', namespace, '--type=merge'];
  await env.kubectl('patch', ...claim, '-p', JSON.stringify({ metadata: { finalizers: [PROVIDER_FINALIZER] } }));
  await apply(
    env,
    `apiVersion: ${CAPI_IPAM}/v1beta2
kind: IPAddress
metadata: {name: external-10-50-0-9}
spec:
  address: 10.50.0.9
  prefix: 24
  gateway: 10.50.0.1
  claimRef: {name: workers-0-external}
  poolRef: {apiGroup: ${CAPI_IPAM}, kind: InClusterIPPool, name: external}
`,
    namespace,
  );
  const ready = { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: new Date().toISOString() };
  await env.kubectl(
    'patch',
    ...claim,
    '--subresource=status',
    '-p',
    JSON.stringify({ status: { addressRef: { name: 'external-10-50-0-9' }, conditions: [ready] } }),
  );
}

async function expectRendered(namespace: string): Promise<void> {
  expect((await dataOf(namespace))?.status?.ironhook?.addresses).toEqual({ external: '10.50.0.9' });
  const networkData = await secretText(namespace, 'w-0-networkdata', 'networkData');
  expect(networkData).toContain('ip_address: 10.50.0.9\n');
  expect(networkData).toContain('netmask: 255.255.255.0\n');
  expect(networkData).toContain('gateway: 10.50.0.1\n');
  expect(await secretText(namespace, 'w-0-metadata', 'metaData')).toBe(`providerid: ${namespace}/host-0/w-0\nrole: worker\n`);
}

describe('Metal3Data with a Cluster API pool through Metacontroller', () => {
  it('claims with an IPAddressClaim, waits while unbound, renders from the bound IPAddress, releases on deletion', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'm3data-capi');
    await apply(env, TEMPLATE, namespace);
    await addWorker(cluster.env, namespace, 0);

    let claim: ClaimView | undefined;
    await waitFor('the IPAddressClaim workers-0-external', async () => (claim = await claimOf(namespace, 'workers-0-external')) !== undefined, 180_000, 500);
    expectAsUpstream(claim);

    // Unbound: the data waits, no error, no Secret.
    const unbound = 'an IP address from InClusterIPPool.ipam.cluster.x-k8s.io external';
    await waitFor('the data to wait for the external pool', async () => (await waitingFor(namespace)).startsWith(unbound), 120_000, 500);
    expect((await dataOf(namespace))?.status?.errorMessage).toBeUndefined();
    expect(await secretText(namespace, 'w-0-networkdata', 'networkData')).toBeUndefined();

    await bind(namespace);
    await waitFor('the data to be ready', async () => (await dataOf(namespace))?.status?.ready === true, 180_000, 500);
    await expectRendered(namespace);

    // Deletion: the claim goes (the provider's finalizer holds it), the data waits for it.
    await env.kubectl('delete', `metal3dataclaims.${GROUP}`, 'w-0', '-n', namespace, '--wait=false');
    const deleting = async (): Promise<boolean> => (await claimOf(namespace, 'workers-0-external'))?.metadata.deletionTimestamp !== undefined;
    await waitFor('the IPAddressClaim to be deleted', deleting, 120_000, 500);
    const released = '1 IPAddressClaim(s) to release their addresses';
    await waitFor('the data to wait for the claim', async () => (await waitingFor(namespace)) === released, 120_000, 500);
    const claimArgs = [`ipaddressclaims.${CAPI_IPAM}`, 'workers-0-external', '-n', namespace, '--type=merge'];
    await env.kubectl('patch', ...claimArgs, '-p', JSON.stringify({ metadata: { finalizers: [] } }));
    const gone = async (): Promise<boolean> => (await dataOf(namespace)) === undefined && (await claimOf(namespace, 'workers-0-external')) === undefined;
    await waitFor('the data and its claim to be gone', gone, 120_000, 500);
  });
});
