// docs/rbac.md: what every ServiceAccount of the chart may do, as a real kube-apiserver that
// authorizes with RBAC answers it. The chart is rendered with helm (defaults, and
// ci/tls-auth-values.yaml), its ServiceAccounts, ClusterRoles, Roles and bindings (Metacontroller's
// subchart included) are created in the cluster, kube-controller-manager's ClusterRole aggregation
// fills the bundled Metacontroller's aggregated ClusterRole, and for each ServiceAccount
// `kubectl auth can-i --list` and a fixed set of `kubectl auth can-i` questions are asked,
// impersonating it. test/integration/chart-rbac.test.ts runs the same collection and fails when
// docs/rbac.md differs.
//
//   npm run docs:rbac     (npx tsx scripts/rbac-table.ts) start a control plane on 127.0.0.1, rewrite docs/rbac.md, stop it
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { startControlPlane } from '../devenv/controlplane.js';
import { kubectlFor, kubectlOrThrow } from '../devenv/environment.js';
import { binary, waitFor } from '../devenv/processes.js';

const execFileAsync = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
export const RBAC_DOC = join(ROOT, 'docs', 'rbac.md');
const RELEASE_NAMESPACE = 'ironhook-system';
/** A namespace holding hosts and their BMC Secrets (the chart grants nothing namespaced there). */
const HOST_NAMESPACE = 'metal-hosts';
/** A ServiceAccount nothing is bound to: what every authenticated account may do anyway. */
export const BASELINE_ACCOUNT = 'rbac-baseline';
/** kube-controller-manager's ClusterRole aggregation, which fills the bundled Metacontroller's role. */
export const RBAC_CONTROLLERS = ['clusterrole-aggregation-controller'];

const RBAC_KINDS = new Set(['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']);

interface Configuration {
  name: string;
  /** helm template --values, relative to the repository root. */
  values: string[];
}

export const CONFIGURATIONS: Configuration[] = [
  { name: 'defaults', values: [] },
  { name: 'TLS and bearer auth (ci/tls-auth-values.yaml)', values: ['charts/ironhook/ci/tls-auth-values.yaml'] },
];

/** A targeted question: `kubectl auth can-i <verb> <resource> [--subresource] (-n <namespace> | -A)`. */
interface Question {
  what: string;
  args: string[];
}

const inHosts = ['-n', HOST_NAMESPACE];
const inRelease = ['-n', RELEASE_NAMESPACE];

export const QUESTIONS: Question[] = [
  { what: 'get a BMC Secret in a host namespace', args: ['get', 'secrets', ...inHosts] },
  { what: 'list Secrets in every namespace', args: ['list', 'secrets', '-A'] },
  { what: 'create a Secret in a host namespace', args: ['create', 'secrets', ...inHosts] },
  { what: 'delete a Secret in a host namespace', args: ['delete', 'secrets', ...inHosts] },
  { what: 'get the webhook token Secret', args: ['get', 'secrets/ironhook-hooks-auth', ...inRelease] },
  { what: 'get a ConfigMap in the release namespace', args: ['get', 'configmaps', ...inRelease] },
  { what: 'anything on anything (wildcard)', args: ['*', '*', '-A'] },
  { what: 'create Pods', args: ['create', 'pods', ...inRelease] },
  { what: 'create ClusterRoleBindings (escalation)', args: ['create', 'clusterrolebindings.rbac.authorization.k8s.io'] },
  { what: 'impersonate users', args: ['impersonate', 'users'] },
  { what: 'get BareMetalHosts', args: ['get', 'baremetalhosts.metal3.io', ...inHosts] },
  { what: 'update BareMetalHost status', args: ['update', 'baremetalhosts.metal3.io', '--subresource=status', ...inHosts] },
  { what: 'create HostOperations', args: ['create', 'hostoperations.ironhook.dev', ...inHosts] },
  { what: 'patch HostOperation status', args: ['patch', 'hostoperations.ironhook.dev', '--subresource=status', ...inHosts] },
  { what: 'create Events', args: ['create', 'events', ...inHosts] },
  { what: "update the pool's leader Lease", args: ['update', 'leases.coordination.k8s.io/ironhook-drivers', ...inRelease] },
  { what: 'update CompositeControllers', args: ['update', 'compositecontrollers.metacontroller.k8s.io'] },
];

export interface AccountAccess {
  /** The ServiceAccount's name (in RELEASE_NAMESPACE). */
  account: string;
  /** `kubectl auth can-i --list -n RELEASE_NAMESPACE` as kubectl prints it. */
  list: string;
  /** QUESTIONS in order: allowed or not. */
  answers: boolean[];
}

export interface ConfigurationAccess {
  configuration: Configuration;
  accounts: AccountAccess[];
}

interface KubeObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: unknown[];
  aggregationRule?: unknown;
}

/** `helm template` of the chart (its dependency in place) with the given values files. */
async function renderChart(values: string[]): Promise<KubeObject[]> {
  const args = [
    'template',
    'ironhook',
    join(ROOT, 'charts', 'ironhook'),
    '--namespace',
    RELEASE_NAMESPACE,
    '--include-crds',
    ...values.flatMap((v) => ['--values', join(ROOT, v)]),
  ];
  const { stdout } = await execFileAsync(binary('helm'), args, { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, KUBECONFIG: '/dev/null' } });
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => o !== null);
}

const userOf = (account: string): string => `system:serviceaccount:${RELEASE_NAMESPACE}:${account}`;

/** Asks one question as `account`: allowed (exit 0) or not (exit 1); anything else throws. */
async function ask(kubeconfig: string, account: string, question: Question): Promise<boolean> {
  const { kubectlResult } = kubectlFor(kubeconfig);
  const res = await kubectlResult('auth', 'can-i', ...question.args, `--as=${userOf(account)}`);
  if (res.code > 1) throw new Error(`kubectl auth can-i ${question.args.join(' ')}: ${res.stderr}`);
  return res.code === 0;
}

async function accessOf(kubeconfig: string, account: string): Promise<AccountAccess> {
  const list = await kubectlOrThrow(kubeconfig, ['auth', 'can-i', '--list', '-n', RELEASE_NAMESPACE, `--as=${userOf(account)}`]);
  const answers: boolean[] = [];
  for (const question of QUESTIONS) answers.push(await ask(kubeconfig, account, question));
  return { account, list, answers };
}

/** Waits until every ClusterRole with an aggregationRule has rules (kube-controller-manager filled them). */
async function waitForAggregation(kubeconfig: string, objects: KubeObject[]): Promise<void> {
  for (const role of objects.filter((o) => o.kind === 'ClusterRole' && o.aggregationRule !== undefined)) {
    await waitFor(
      `ClusterRole ${role.metadata.name} aggregated`,
      async () =>
        ((JSON.parse(await kubectlOrThrow(kubeconfig, ['get', 'clusterrole', role.metadata.name, '-o', 'json'])) as KubeObject).rules ?? []).length > 0,
      60_000,
      200,
    );
  }
}

/** Installs one configuration's RBAC objects, asks as each of its ServiceAccounts (and the baseline), removes them again. */
async function collectConfiguration(kubeconfig: string, dir: string, configuration: Configuration): Promise<ConfigurationAccess> {
  const objects = (await renderChart(configuration.values)).filter((o) => RBAC_KINDS.has(o.kind));
  const file = join(dir, 'rbac.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  await kubectlOrThrow(kubeconfig, ['apply', '-n', RELEASE_NAMESPACE, '-f', file]);
  try {
    await waitForAggregation(kubeconfig, objects);
    const names = [
      BASELINE_ACCOUNT,
      ...objects
        .filter((o) => o.kind === 'ServiceAccount')
        .map((o) => o.metadata.name)
        .sort(),
    ];
    const accounts: AccountAccess[] = [];
    for (const account of names) accounts.push(await accessOf(kubeconfig, account));
    return { configuration, accounts };
  } finally {
    await kubectlOrThrow(kubeconfig, ['delete', '-n', RELEASE_NAMESPACE, '--wait', '-f', file]);
  }
}

/** The chart's CRDs and Metacontroller's (kubectl resolves the questions' types through discovery). */
async function installCRDs(kubeconfig: string, dir: string): Promise<void> {
  const crds = (await renderChart([])).filter((o) => o.kind === 'CustomResourceDefinition');
  const file = join(dir, 'crds.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: crds }));
  await kubectlOrThrow(kubeconfig, ['apply', '--server-side', '-f', file]);
  await kubectlOrThrow(kubeconfig, ['wait', '--for=condition=Established', '--timeout=60s', 'crd', '--all']);
}

/** Every configuration, against a control plane that authorizes with RBAC and runs RBAC_CONTROLLERS. */
export async function collectAccess(kubeconfig: string, dir: string): Promise<ConfigurationAccess[]> {
  await installCRDs(kubeconfig, dir);
  for (const namespace of [RELEASE_NAMESPACE, HOST_NAMESPACE]) await kubectlOrThrow(kubeconfig, ['create', 'namespace', namespace]);
  await kubectlOrThrow(kubeconfig, ['-n', RELEASE_NAMESPACE, 'create', 'serviceaccount', BASELINE_ACCOUNT]);
  const out: ConfigurationAccess[] = [];
  for (const configuration of CONFIGURATIONS) out.push(await collectConfiguration(kubeconfig, dir, configuration));
  return out;
}

const yesNo = (allowed: boolean): string => (allowed ? 'yes' : 'no');

function questionTable(access: ConfigurationAccess): string[] {
  const accounts = access.accounts;
  const head = `| question | ${accounts.map((a) => `\`${a.account}\``).join(' | ')} |`;
  const rule = `|---|${accounts.map(() => '---').join('|')}|`;
  const rows = QUESTIONS.map((q, i) => `| ${q.what}: \`${q.args.join(' ')}\` | ${accounts.map((a) => yesNo(a.answers[i] === true)).join(' | ')} |`);
  return [head, rule, ...rows];
}

function listSections(access: ConfigurationAccess): string[] {
  return access.accounts.flatMap((a) => [
    `#### \`${a.account}\``,
    '',
    `\`kubectl auth can-i --list -n ${RELEASE_NAMESPACE} --as=${userOf(a.account)}\``,
    '',
    '```text',
    a.list.trimEnd(),
    '```',
    '',
  ]);
}

const PREAMBLE = `# RBAC of the chart, per ServiceAccount

Generated by \`npm run docs:rbac\` (\`scripts/rbac-table.ts\`) from \`helm template\` of
\`charts/ironhook\` (release \`ironhook\`, namespace \`${RELEASE_NAMESPACE}\`): its ServiceAccounts,
ClusterRoles, Roles and bindings, Metacontroller's subchart included, and its CRDs, created in a
real kube-apiserver that authorizes with RBAC,
with kube-controller-manager's ClusterRole aggregation filling the bundled Metacontroller's
aggregated ClusterRole. Every answer below is the API server's, asked by impersonating the
ServiceAccount. \`test/integration/chart-rbac.test.ts\` fails when this file differs from a new
collection. \`${BASELINE_ACCOUNT}\` is a ServiceAccount with no binding: what every authenticated
account may do anyway. \`${HOST_NAMESPACE}\` stands for any namespace with hosts.

Why each account has what it has: [helm.md](helm.md) ("The driver pool", "The bundled
Metacontroller", "Using an existing Metacontroller").
`;

/** docs/rbac.md from the collected answers. */
export function rbacMarkdown(access: ConfigurationAccess[]): string {
  const sections = access.flatMap((c) => [
    `## ${c.configuration.name}`,
    '',
    ...questionTable(c),
    '',
    '### `kubectl auth can-i --list`',
    '',
    ...listSections(c),
  ]);
  return `${[PREAMBLE, ...sections].join('\n').trimEnd()}\n`;
}

async function main(): Promise<void> {
  const prepared = spawnSync('bash', [join(ROOT, 'scripts', 'chart-deps.sh')], { cwd: ROOT, encoding: 'utf8' });
  if (prepared.status !== 0) throw new Error(`scripts/chart-deps.sh failed:\n${prepared.stdout}${prepared.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'ironhook-rbac-'));
  const plane = await startControlPlane({ dir, controllers: RBAC_CONTROLLERS });
  try {
    writeFileSync(RBAC_DOC, rbacMarkdown(await collectAccess(plane.kubeconfig, dir)));
  } finally {
    await plane.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
