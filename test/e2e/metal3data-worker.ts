// The Machine → Metal3Machine → Metal3DataClaim chain the Metal3Data e2e tests start from.
import type { Environment } from '../../devenv/environment.js';
import { apply, getJSON } from './support.js';

const GROUP = 'infrastructure.cluster.x-k8s.io';

async function uidOf(env: Environment, namespace: string, kind: string, name: string): Promise<string> {
  return (await getJSON<{ metadata: { uid: string } }>(env, namespace, kind, name)).metadata.uid;
}

/**
 * Worker n as Cluster API and the provider would leave it: host-n (boot MAC 52:54:00:aa:00:nn,
 * also in its annotation example.com/eno1-mac), Machine w-n-m → Metal3Machine w-n (associated with
 * host-n) → claim w-n of template `workers`. The test plays the provider, so the Metal3Machine
 * names no dataTemplate, and the claim's owner reference is not a controller reference: the
 * Metal3Machine controller would otherwise take the claim as its child and release it, since its
 * own hook did not ask for it.
 */
export async function addWorker(env: Environment, namespace: string, n: number): Promise<void> {
  const name = `w-${String(n)}`;
  const mac = `52:54:00:aa:00:${String(n).padStart(2, '0')}`;
  await apply(
    env,
    `apiVersion: metal3.io/v1alpha1
kind: BareMetalHost
metadata: {name: host-${String(n)}, annotations: {example.com/eno1-mac: "${mac}"}}
spec: {online: false, bootMACAddress: "${mac}"}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: Machine
metadata: {name: ${name}-m, labels: {cluster.x-k8s.io/cluster-name: e2e}}
spec:
  clusterName: e2e
  bootstrap: {dataSecretName: ${name}-bootstrap}
  infrastructureRef: {apiGroup: ${GROUP}, kind: Metal3Machine, name: ${name}}
`,
    namespace,
  );
  const machineUid = await uidOf(env, namespace, 'machines.cluster.x-k8s.io', `${name}-m`);
  await apply(
    env,
    `apiVersion: ${GROUP}/v1beta2
kind: Metal3Machine
metadata:
  name: ${name}
  labels: {cluster.x-k8s.io/cluster-name: e2e}
  annotations: {metal3.io/BareMetalHost: ${namespace}/host-${String(n)}}
  ownerReferences: [{apiVersion: cluster.x-k8s.io/v1beta2, kind: Machine, name: ${name}-m, uid: ${machineUid}, controller: true}]
spec: {image: {url: "http://127.0.0.1:9/never-fetched.iso", diskFormat: live-iso}}
`,
    namespace,
  );
  const m3mUid = await uidOf(env, namespace, `metal3machines.${GROUP}`, name);
  await apply(
    env,
    `apiVersion: ${GROUP}/v1beta2
kind: Metal3DataClaim
metadata:
  name: ${name}
  labels: {cluster.x-k8s.io/cluster-name: e2e}
  ownerReferences: [{apiVersion: ${GROUP}/v1beta2, kind: Metal3Machine, name: ${name}, uid: ${m3mUid}}]
spec: {template: {name: workers}}
`,
    namespace,
  );
}
