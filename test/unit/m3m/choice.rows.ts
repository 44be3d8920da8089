// The host choice table: selector, each filter, node-reuse preference and wait, failure
// domains with fallback.
import { machine, type MachineBuilder } from '../../support/machine-builder.js';

export interface ChoiceRow {
  name: string;
  given: MachineBuilder;
  expect: { kind: 'host' | 'none' | 'reuseWait' | 'invalid'; host?: string; oneOf?: string[]; message?: RegExp };
}

const REUSE = 'infrastructure.cluster.x-k8s.io/node-reuse';
const FD = 'infrastructure.cluster.x-k8s.io/failure-domain';
const CP = 'cluster.x-k8s.io/control-plane';
const KCP = { apiVersion: 'controlplane.cluster.x-k8s.io/v1beta2', kind: 'KubeadmControlPlane', name: 'kcp', uid: 'k' };
const only = (expressions: unknown[]) => machine().spec({ hostSelector: { matchExpressions: expressions } });

// prettier-ignore
export const choiceRows: ChoiceRow[] = [
  { name: 'matchLabels: only the labelled host', given: machine().spec({ hostSelector: { matchLabels: { role: 'worker' } } }).host('a', { labels: { role: 'cp' } }).host('b', { labels: { role: 'worker' } }), expect: { kind: 'host', host: 'b' } },
  { name: 'matchLabels matching nothing: none', given: machine().spec({ hostSelector: { matchLabels: { role: 'gpu' } } }).host('a'), expect: { kind: 'none', message: /0 of 1 hosts match/u } },
  { name: 'In (upper case, lower-cased as upstream)', given: only([{ key: 'rack', operator: 'In', values: ['r2', 'r3'] }]).host('a', { labels: { rack: 'r1' } }).host('b', { labels: { rack: 'r3' } }), expect: { kind: 'host', host: 'b' } },
  { name: 'notin also matches hosts without the label', given: only([{ key: 'rack', operator: 'NotIn', values: ['r1'] }]).host('a', { labels: { rack: 'r1' } }).host('b'), expect: { kind: 'host', host: 'b' } },
  { name: 'exists', given: only([{ key: 'gpu', operator: 'Exists' }]).host('a').host('b', { labels: { gpu: '' } }), expect: { kind: 'host', host: 'b' } },
  { name: 'gt compares integers', given: only([{ key: 'cores', operator: 'Gt', values: ['16'] }]).host('a', { labels: { cores: '16' } }).host('b', { labels: { cores: '32' } }), expect: { kind: 'host', host: 'b' } },
  { name: 'lt compares integers', given: only([{ key: 'cores', operator: 'lt', values: ['16'] }]).host('a', { labels: { cores: '8' } }).host('b', { labels: { cores: '32' } }), expect: { kind: 'host', host: 'a' } },
  { name: '== and = are equality', given: only([{ key: 'rack', operator: '==', values: ['r1'] }, { key: 'row', operator: '=', values: ['x'] }]).host('a', { labels: { rack: 'r1', row: 'y' } }).host('b', { labels: { rack: 'r1', row: 'x' } }), expect: { kind: 'host', host: 'b' } },
  { name: '!= excludes the value', given: only([{ key: 'rack', operator: '!=', values: ['r1'] }]).host('a', { labels: { rack: 'r1' } }).host('b', { labels: { rack: 'r2' } }), expect: { kind: 'host', host: 'b' } },
  { name: 'DoesNotExist is unsupported', given: only([{ key: 'rack', operator: 'DoesNotExist' }]).host('a'), expect: { kind: 'invalid', message: /DoesNotExist/u } },
  { name: '! is DoesNotExist', given: only([{ key: 'rack', operator: '!' }]).host('a', { labels: { rack: 'r1' } }).host('b'), expect: { kind: 'host', host: 'b' } },
  { name: 'an invalid label key is invalid', given: machine().spec({ hostSelector: { matchLabels: { 'bad key': 'x' } } }).host('a'), expect: { kind: 'invalid', message: /label key/u } },
  { name: 'gt compares as 64-bit integers', given: only([{ key: 'n', operator: 'gt', values: ['9007199254740992'] }]).host('a', { labels: { n: '9007199254740993' } }), expect: { kind: 'host', host: 'a' } },
  { name: 'consumerRef with another namespace is someone else', given: machine().host('a', { spec: { consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta2', kind: 'Metal3Machine', name: 'w-1', namespace: 'other' } } }), expect: { kind: 'none' } },
  { name: 'an empty consumerRef still counts as consumed', given: machine().host('a', { spec: { consumerRef: {} } }), expect: { kind: 'none' } },
  { name: 'an invalid failure domain fails the choice when there is a host to pick', given: machine().machine({ spec: { failureDomain: 'not a label' } }).host('a'), expect: { kind: 'invalid', message: /failure domain/u } },
  { name: 'gt with a non-integer value is invalid', given: only([{ key: 'cores', operator: 'gt', values: ['many'] }]).host('a'), expect: { kind: 'invalid', message: /integer/u } },
  { name: 'consumerRef naming this machine wins even when not available', given: machine().host('a').host('b', { consumer: 'me', state: 'provisioned' }), expect: { kind: 'host', host: 'b' } },
  { name: 'consumed by another machine: skipped', given: machine().host('a', { consumer: 'w-2' }), expect: { kind: 'none' } },
  { name: 'being deleted: skipped', given: machine().host('a', { deleting: true }), expect: { kind: 'none' } },
  { name: 'in error: skipped', given: machine().host('a', { errorMessage: 'BMC unreachable' }), expect: { kind: 'none' } },
  { name: 'paused: skipped', given: machine().host('a', { annotations: { 'baremetalhost.metal3.io/paused': '' } }), expect: { kind: 'none' } },
  { name: 'unhealthy (capi.metal3.io): skipped', given: machine().host('a', { annotations: { 'capi.metal3.io/unhealthy': 'capm3/UnhealthyNode' } }), expect: { kind: 'none' } },
  { name: 'unhealthy (capm3.metal3.io): skipped', given: machine().host('a', { annotations: { 'capm3.metal3.io/unhealthy': '' } }), expect: { kind: 'none' } },
  { name: 'not available or ready (inspecting, provisioned): skipped', given: machine().host('a', { state: 'inspecting' }).host('b', { state: 'provisioned' }), expect: { kind: 'none' } },
  { name: 'ready counts like available', given: machine().host('a', { state: 'ready' }), expect: { kind: 'host', host: 'a' } },
  { name: 'node reuse: matching label preferred over unlabelled hosts', given: machine().host('a').host('b').host('z', { labels: { [REUSE]: 'md-workers' } }), expect: { kind: 'host', host: 'z' } },
  { name: 'node reuse: a non-matching label is never picked', given: machine().host('a', { labels: { [REUSE]: 'md-other' } }), expect: { kind: 'none' } },
  { name: 'node reuse: matching host not available yet makes the machine wait', given: machine().host('a').host('z', { state: 'deprovisioning', labels: { [REUSE]: 'md-workers' } }), expect: { kind: 'reuseWait', message: /z \(deprovisioning\)/u } },
  { name: 'node reuse: control-plane machines (label cluster.x-k8s.io/control-plane) match cp-<owner>', given: machine().machine({ labels: { [CP]: '' }, ownerReferences: [KCP] }).host('a').host('z', { labels: { [REUSE]: 'cp-kcp' } }), expect: { kind: 'host', host: 'z' } },
  { name: 'node reuse: the control-plane-name label alone does not make a control-plane machine', given: machine().machine({ labels: { 'cluster.x-k8s.io/control-plane-name': 'kcp' }, ownerReferences: [KCP] }).host('a').host('z', { labels: { [REUSE]: 'cp-kcp' } }), expect: { kind: 'host', host: 'a' } },
  { name: 'node reuse: a control-plane machine without a control-plane owner matches no label', given: machine().machine({ labels: { [CP]: '', 'cluster.x-k8s.io/control-plane-name': 'kcp' }, ownerReferences: [] }).host('z', { labels: { [REUSE]: 'cp-kcp' } }), expect: { kind: 'none' } },
  { name: 'node reuse: an owner apiVersion that does not parse ends the control-plane search', given: machine().machine({ labels: { [CP]: '' }, ownerReferences: [{ ...KCP, apiVersion: 'a/b/c', kind: 'Other' }, KCP] }).host('z', { labels: { [REUSE]: 'cp-kcp' } }), expect: { kind: 'none' } },
  { name: 'node reuse: md-<deployment> needs a MachineSet owner', given: machine().machine({ ownerReferences: [] }).host('a').host('z', { labels: { [REUSE]: 'md-workers' } }), expect: { kind: 'host', host: 'a' } },
  { name: 'node reuse: a ready host waits while another labelled host is not ready', given: machine().host('y', { labels: { [REUSE]: 'md-workers' } }).host('z', { state: 'deprovisioning', labels: { [REUSE]: 'md-workers' } }), expect: { kind: 'reuseWait', message: /z \(deprovisioning\)/u } },
  { name: "node reuse: md-<the MachineSet's MachineDeployment> wins over the deployment-name label (upstream)", given: machine().machineSet('workers-md', 'workers-tpl').host('a', { labels: { [REUSE]: 'md-workers' } }).host('z', { labels: { [REUSE]: 'md-workers-md' } }), expect: { kind: 'host', host: 'z' } },
  { name: 'failure domain: hosts of the Machine failure domain only', given: machine().machine({ spec: { failureDomain: 'fd2' } }).host('a', { labels: { [FD]: 'fd1' } }).host('b', { labels: { [FD]: 'fd2' } }).host('c'), expect: { kind: 'host', host: 'b' } },
  { name: 'failure domain with no hosts: falls back to all', given: machine().machine({ spec: { failureDomain: 'fd9' } }).host('a', { labels: { [FD]: 'fd1' } }), expect: { kind: 'host', host: 'a' } },
  { name: 'several eligible hosts: one of them', given: machine().host('a').host('b').host('c'), expect: { kind: 'host', oneOf: ['a', 'b', 'c'] } },
];
