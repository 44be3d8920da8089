// IPAM through the local environment: claims created and deleted concurrently get unique,
// stable addresses, and a pool in use cannot be deleted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../devenv/processes.js';
import type { Cluster } from './support.js';
import { apply, createNamespace, getJSON, openCluster } from './support.js';

interface ClaimView {
  metadata: { name: string };
  status?: { address?: { name: string }; errorMessage?: string };
}

interface AddressView {
  metadata: { name: string };
  spec: { address: string; claim: { name: string } };
}

const POOL = `apiVersion: ipam.metal3.io/v1alpha1
kind: IPPool
metadata: {name: pool-1}
spec:
  namePrefix: e2e
  pools:
  - {start: 192.168.0.10, end: 192.168.0.60}
  prefix: 24
  gateway: 192.168.0.1
  preAllocations:
    claim-00: 192.168.0.50
`;

function claims(names: string[]): string {
  return names.map((name) => `apiVersion: ipam.metal3.io/v1alpha1\nkind: IPClaim\nmetadata: {name: ${name}}\nspec:\n  pool: {name: pool-1}\n`).join('---\n');
}

const range = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `claim-${String(from + i).padStart(2, '0')}`);

let cluster: Cluster;

beforeAll(async () => {
  cluster = await openCluster();
});

afterAll(async () => {
  await cluster.close();
});

/** claim name → allocated address, once every listed claim reports one. */
async function allocations(namespace: string, names: string[]): Promise<Map<string, string>> {
  let result = new Map<string, string>();
  await waitFor(
    `addresses for ${String(names.length)} claims`,
    async () => {
      const claimList = await getJSON<{ items: ClaimView[] }>(cluster.env, namespace, 'ipclaims');
      const addressList = await getJSON<{ items: AddressView[] }>(cluster.env, namespace, 'ipaddresses.ipam.metal3.io');
      const byName = new Map(addressList.items.map((item) => [item.metadata.name, item.spec.address]));
      result = new Map(
        claimList.items.filter((item) => item.status?.address).map((item) => [item.metadata.name, byName.get(item.status?.address?.name ?? '') ?? '']),
      );
      return names.every((name) => Boolean(result.get(name)));
    },
    120_000,
    500,
  );
  return result;
}

describe('IPAM through Metacontroller', () => {
  it('hands out unique addresses, keeps them stable under churn, and blocks deleting a pool in use', async () => {
    const env = cluster.env;
    const namespace = await createNamespace(env, 'ipam');
    await apply(env, POOL, namespace);
    // The pool's first sync waits for Metacontroller's related informers (IPClaims, Cluster API
    // claims and clusters) to sync. Claims created in that window each retry the pool through
    // Metacontroller's per-object exponential back-off, which then parks it for up to 1000 s (seen
    // on a freshly built machine, also at the previous commit). Claims come once the pool is served.
    await waitFor('the pool to be synced once', async () => {
      const pool = await getJSON<{ status?: { conditions?: unknown[] } }>(env, namespace, 'ippool', 'pool-1');
      return (pool.status?.conditions ?? []).length > 0;
    });
    await apply(env, claims(range(0, 20)), namespace);
    const first = await allocations(namespace, range(0, 20));
    expect(first.get('claim-00')).toBe('192.168.0.50');
    expect(new Set(first.values()).size).toBe(20);

    await env.kubectl('delete', 'ipclaim', '-n', namespace, ...range(15, 20), '--wait=false');
    await apply(env, claims(range(20, 30)), namespace);
    const second = await allocations(namespace, [...range(0, 15), ...range(20, 30)]);
    for (const name of range(0, 15)) {
      expect(second.get(name), `${name} keeps its address`).toBe(first.get(name));
    }
    const held = [...range(0, 15), ...range(20, 30)].map((name) => second.get(name));
    expect(new Set(held).size).toBe(25);

    await env.kubectl('delete', 'ippool', 'pool-1', '-n', namespace, '--wait=false');
    await waitFor('the pool to report that deletion is blocked', async () => {
      const pool = await getJSON<{ metadata: { deletionTimestamp?: string }; status?: { ironhook?: { errors?: string[] } } }>(
        env,
        namespace,
        'ippool',
        'pool-1',
      );
      return Boolean(pool.metadata.deletionTimestamp) && (pool.status?.ironhook?.errors ?? []).some((error) => error.includes('deletion blocked'));
    });
    await env.kubectl('delete', 'ipclaim', '--all', '-n', namespace);
    await waitFor('the pool to be deleted', async () => (await env.kubectlResult('get', 'ippool', 'pool-1', '-n', namespace)).code !== 0, 120_000, 500);
  });
});
