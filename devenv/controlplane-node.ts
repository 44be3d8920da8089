// What the local control plane adds in node mode (startControlPlane({ node: true })), so that a
// real kubelet (devenv/node.ts) can join and run pods: a client CA for node and apiserver-to-kubelet
// credentials, the Node authorizer with NodeRestriction, ServiceAccount admission, the
// kube-controller-manager controllers that pods, Deployments, StatefulSets and Jobs need, the
// kube-scheduler, and a MutatingAdmissionPolicy that makes every pod a host-network pod pointed at
// the apiserver's 127.0.0.1 port (this environment has no pod network and no Services).
// docs/dev/real-node.md explains each piece.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { binary, startProcess, waitFor } from './processes.js';
import type { StartedProcess } from './processes.js';
import { makeCa, makeLeaf } from './tls.js';

const run = promisify(execFile);

/** What a node needs from a control plane in node mode. */
export interface NodeAccess {
  /** The CA the apiserver and the kubelet trust for client certificates; the node signs its credentials with it. */
  clientCA: { cert: string; key: string };
  /** The apiserver's serving certificate (its own self-signed bundle): the kubelet's CA, and kube-root-ca.crt. */
  servingCA: string;
  /** The apiserver's port on 127.0.0.1, where pods reach it (KUBERNETES_SERVICE_HOST/PORT). */
  port: number;
}

const CLIENT_AUTH = 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n';

interface NodePKI {
  dir: string;
  ca: { cert: string; key: string };
}

/** `<dir>/pki`: the client CA and the apiserver's client certificate for the kubelet API (system:masters). */
export function makeNodePKI(dir: string): NodePKI {
  const pki = join(dir, 'pki');
  mkdirSync(pki, { recursive: true });
  makeCa(pki, 'client-ca', 2);
  makeLeaf(pki, 'apiserver-kubelet-client', { ca: 'client-ca', ext: CLIENT_AUTH, days: 2, subject: '/O=system:masters/CN=kube-apiserver-kubelet-client' });
  return { dir: pki, ca: { cert: join(pki, 'client-ca.crt'), key: join(pki, 'client-ca.key') } };
}

/** A client certificate `<name>.crt`/`<name>.key` in `pki` for `user` in `group`, signed by the client CA. */
export function makeClientCert(access: NodeAccess, dir: string, identity: { name: string; user: string; group: string }): { cert: string; key: string } {
  mkdirSync(dir, { recursive: true });
  // makeLeaf reads <ca>.crt and <ca>.key: the CA's absolute path without the extension.
  const ca = access.clientCA.cert.replace(/\.crt$/u, '');
  makeLeaf(dir, identity.name, { ca, ext: CLIENT_AUTH, days: 2, subject: `/O=${identity.group}/CN=${identity.user}` });
  return { cert: join(dir, `${identity.name}.crt`), key: join(dir, `${identity.name}.key`) };
}

/** The apiserver flags of node mode (replacing RBAC-only authorization and the disabled ServiceAccount admission). */
export function nodeApiserverArgs(pki: NodePKI): string[] {
  return [
    `--client-ca-file=${pki.ca.cert}`,
    `--kubelet-client-certificate=${join(pki.dir, 'apiserver-kubelet-client.crt')}`,
    `--kubelet-client-key=${join(pki.dir, 'apiserver-kubelet-client.key')}`,
    '--authorization-mode=Node,RBAC',
    '--enable-admission-plugins=NodeRestriction',
  ];
}

/**
 * kube-controller-manager's controllers in node mode (Kubernetes 1.36 names, `kube-controller-manager --help`):
 * what pods (ServiceAccounts, their tokens and kube-root-ca.crt), Deployments, StatefulSets and Jobs
 * need, the node's lifecycle (its not-ready taint), garbage and namespace cleanup, and the
 * aggregated admin/edit/view roles charts bind.
 */
export const NODE_CONTROLLERS = [
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'clusterrole-aggregation-controller',
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'job-controller',
  'ttl-after-finished-controller',
  'endpointslice-controller',
  'pod-garbage-collector-controller',
  // Removes the node.kubernetes.io/not-ready:NoSchedule taint the TaintNodesByCondition admission puts on every new Node.
  'node-lifecycle-controller',
];

/** The extra kube-controller-manager flags of node mode. */
export function nodeControllerManagerArgs(dir: string, access: NodeAccess): string[] {
  return [`--root-ca-file=${access.servingCA}`, `--service-account-private-key-file=${join(dir, 'sa.key')}`];
}

export function startScheduler(kubeconfig: string, logDir: string, detached: boolean): StartedProcess {
  return startProcess({
    name: 'kube-scheduler',
    command: binary('kube-scheduler'),
    args: [`--kubeconfig=${kubeconfig}`, '--leader-elect=false', '--secure-port=0'],
    logDir,
    detached,
  });
}

const POLICY = 'ironhook-loopback-pods';

/** The env every container gets: client-go's in-cluster config reads these two. */
const apiserverEnv = (port: number): string =>
  `[Object.spec.containers.env{name: "KUBERNETES_SERVICE_HOST", value: "127.0.0.1"}, Object.spec.containers.env{name: "KUBERNETES_SERVICE_PORT", value: "${String(port)}"}]`;

/** hostPort must equal containerPort in a host-network pod. */
const HOST_PORTS = `has(c.ports) ? c.ports.map(p, Object.spec.containers.ports{containerPort: p.containerPort, protocol: p.protocol, hostPort: p.containerPort}) : []`;

const containerPatch = (port: number): string => `Object.spec.containers{name: c.name, env: ${apiserverEnv(port)}, ports: ${HOST_PORTS}}`;

/**
 * The MutatingAdmissionPolicy (admissionregistration.k8s.io/v1, GA in 1.36) and its binding: every pod
 * created gets `hostNetwork: true`, `dnsPolicy: Default` (instead of ClusterFirst: there is no cluster
 * DNS), hostPort = containerPort, and KUBERNETES_SERVICE_HOST=127.0.0.1 / KUBERNETES_SERVICE_PORT=<port>
 * in every container and init container. Mirror pods are left alone.
 */
function loopbackPodPolicy(port: number): Record<string, unknown>[] {
  const containers = `object.spec.containers.map(c, ${containerPatch(port)})`;
  const dnsPolicy = `!has(object.spec.dnsPolicy) || object.spec.dnsPolicy == "ClusterFirst" ? "Default" : object.spec.dnsPolicy`;
  const initContainers = `object.spec.initContainers.map(c, ${containerPatch(port).replaceAll('Object.spec.containers', 'Object.spec.initContainers')})`;
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: POLICY, annotations: { 'ironhook.dev/purpose': 'local node only (docs/dev/real-node.md): no pod network, no Services' } },
    spec: {
      failurePolicy: 'Fail',
      reinvocationPolicy: 'Never',
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }] },
      matchConditions: [
        { name: 'not-a-mirror-pod', expression: `!has(object.metadata.annotations) || !('kubernetes.io/config.mirror' in object.metadata.annotations)` },
      ],
      mutations: [
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: { expression: `Object{spec: Object.spec{hostNetwork: true, dnsPolicy: ${dnsPolicy}, containers: ${containers}}}` },
        },
        {
          patchType: 'ApplyConfiguration',
          applyConfiguration: { expression: `has(object.spec.initContainers) ? Object{spec: Object.spec{initContainers: ${initContainers}}} : Object{}` },
        },
      ],
    },
  };
  const binding = {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name: POLICY },
    spec: { policyName: POLICY },
  };
  return [policy, binding];
}

interface DryRunPod {
  spec: { hostNetwork?: boolean; containers: { env?: { name: string; value?: string }[] }[] };
}

/** Applies the policy and waits until the apiserver enforces it (a server-side dry run of a pod comes back mutated). */
export async function applyLoopbackPodPolicy(kubeconfig: string, port: number): Promise<void> {
  const kubectl = async (args: string[], input: string): Promise<string> => {
    const child = run(binary('kubectl'), ['--kubeconfig', kubeconfig, ...args]);
    child.child.stdin?.end(input);
    return (await child).stdout;
  };
  await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: loopbackPodPolicy(port) }));
  const probe = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'policy-probe', namespace: 'default' },
    spec: { automountServiceAccountToken: false, containers: [{ name: 'probe', image: 'localhost/pause:local' }] },
  };
  await waitFor(
    `the MutatingAdmissionPolicy ${POLICY} to take effect`,
    async () => {
      const pod = JSON.parse(await kubectl(['create', '--dry-run=server', '-o', 'json', '-f', '-'], JSON.stringify(probe))) as DryRunPod;
      const env = pod.spec.containers[0]?.env ?? [];
      return pod.spec.hostNetwork === true && env.some((entry) => entry.name === 'KUBERNETES_SERVICE_PORT' && entry.value === String(port));
    },
    60_000,
    250,
  );
}
