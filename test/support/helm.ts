// The real helm binary (built from Go modules by scripts/setup-test-binaries.sh) driven from
// tests: lint, template, and parsing of the rendered objects. Nothing here is skipped: when helm
// cannot be built, or the upstream metacontroller-helm dependency cannot be put in place
// (scripts/chart-deps.sh, from the shared source tarball), preparing throws with the script's
// output.
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../../scripts/chart-sync.js';
import { ALLOWED_TARGETS } from '../../drivers/cluster/targets.js';
import { ADOPTED_RESOURCES, groupVersionOf, type WatchedResource } from '../../drivers/kube/port.js';

const execFileAsync = promisify(execFile);

const CACHE_DIR = process.env.IRONHOOK_CACHE ?? join(homedir(), '.cache', 'ironhook');
export const HELM = process.env.HELM ?? join(CACHE_DIR, 'bin', 'helm');
export const CHART_DIR = join(ROOT, 'charts', 'ironhook');
export const RELEASE = 'ironhook';
export const NAMESPACE = 'ironhook-system';

/** A rendered Kubernetes object (loosely typed: tests look into any field). */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

export interface PreparedChart {
  /** The chart to lint and render: charts/ironhook, with metacontroller-helm in its charts/. */
  dir: string;
  /** What scripts/chart-deps.sh reported. */
  dependencyReport: string;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], what: string): { status: number; output: string } {
  const res = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, HELM }, timeout: 1_200_000 });
  if (res.error !== undefined) throw new Error(`${what}: ${res.error.message}`);
  return { status: res.status ?? -1, output: `${res.stdout}${res.stderr}` };
}

/** Builds helm when it is missing; throws with the setup script's output when that fails. */
export function ensureHelm(): string {
  if (existsSync(HELM)) return HELM;
  const res = run('bash', [join(ROOT, 'scripts', 'setup-test-binaries.sh'), 'helm'], 'scripts/setup-test-binaries.sh helm');
  if (res.status !== 0 || !existsSync(HELM)) {
    throw new Error(`helm is required by the chart tests and could not be built at ${HELM}:\n${res.output}`);
  }
  return HELM;
}

/**
 * Makes the chart renderable: scripts/chart-deps.sh puts the upstream dependency in place (from
 * the source tarball in ../shared/vendor, or METACONTROLLER_SOURCE_TARBALL). Any failure, a
 * missing tarball included, throws with the script's output: the chart is only ever tested with
 * its dependency.
 */
export function prepareChart(): PreparedChart {
  ensureHelm();
  const deps = run('bash', [join(ROOT, 'scripts', 'chart-deps.sh')], 'scripts/chart-deps.sh');
  if (deps.status !== 0) {
    throw new Error(`scripts/chart-deps.sh could not put metacontroller-helm into charts/ironhook/charts (exit ${deps.status}):\n${deps.output}`);
  }
  return { dir: CHART_DIR, dependencyReport: deps.output };
}

const scratchDirs: string[] = [];

/** A copy of the prepared chart, dependency included, in a new temporary folder (removed by removeScratchCharts). */
function scratchChart(prefix: string): string {
  const parent = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(parent);
  const dir = join(parent, 'ironhook');
  cpSync(CHART_DIR, dir, { recursive: true });
  return dir;
}

export function removeScratchCharts(): void {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Runs helm, with no cluster unless a kubeconfig is given; never throws on a non-zero exit (the result says). */
export async function helm(args: string[], kubeconfig = '/dev/null'): Promise<HelmResult> {
  try {
    const { stdout, stderr } = await execFileAsync(HELM, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, KUBECONFIG: kubeconfig } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: unknown; stdout?: string; stderr?: string; message: string };
    if (typeof e.code !== 'number') throw err;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message };
  }
}

export interface RenderOptions {
  /** Values files, relative to the repository root. */
  values?: string[];
  /** --set arguments (key=value). */
  set?: string[];
  /** --set-string arguments. */
  setString?: string[];
  namespace?: string;
  release?: string;
}

export function templateArgs(dir: string, options: RenderOptions = {}): string[] {
  const args = ['template', options.release ?? RELEASE, dir, '--namespace', options.namespace ?? NAMESPACE];
  for (const file of options.values ?? []) args.push('--values', join(ROOT, file));
  for (const s of options.set ?? []) args.push('--set', s);
  for (const s of options.setString ?? []) args.push('--set-string', s);
  return args;
}

/** Parses a multi-document YAML stream; throws on any YAML error. */
export function parseObjects(text: string): RenderedObject[] {
  const out: RenderedObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message ?? ''}`);
    const value: unknown = doc.toJS();
    if (value !== null && value !== undefined) out.push(value as RenderedObject);
  }
  return out;
}

/** `helm template` and the parsed objects; throws with helm's message when rendering fails. */
export async function render(dir: string, options: RenderOptions = {}): Promise<RenderedObject[]> {
  const res = await helm(templateArgs(dir, options));
  if (res.code !== 0) throw new Error(`helm template failed: ${res.stderr}`);
  return parseObjects(res.stdout);
}

/** The chart rendered once with each `charts/ironhook/ci/` values file, looked up by file name. */
export async function renderCIValues(dir: string, files: readonly string[]): Promise<(file: string) => RenderedObject[]> {
  const renders = new Map<string, RenderedObject[]>();
  for (const file of files) renders.set(file, await render(dir, { values: [`charts/ironhook/ci/${file}`] }));
  return (file) => {
    const objects = renders.get(file);
    if (objects === undefined) throw new Error(`no render for ${file}`);
    return objects;
  };
}

/** Renders NOTES.txt (helm template skips it) by wrapping it into a ConfigMap in a scratch copy. */
export async function renderNotes(options: RenderOptions = {}): Promise<string> {
  const dir = scratchChart('ironhook-notes-');
  const notes = readFileSync(join(dir, 'templates', 'NOTES.txt'), 'utf8');
  const wrapper = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes-under-test\ndata:\n  notes: {{ tpl ${JSON.stringify(notes)} . | quote }}\n`;
  writeFileSync(join(dir, 'templates', 'zz-notes-under-test.yaml'), wrapper);
  const res = await helm([...templateArgs(dir, options), '--show-only', 'templates/zz-notes-under-test.yaml']);
  if (res.code !== 0) throw new Error(`rendering NOTES.txt failed: ${res.stderr}`);
  const [cm] = parseObjects(res.stdout);
  const text = (cm?.data as Record<string, unknown> | undefined)?.notes;
  if (typeof text !== 'string') throw new Error('NOTES.txt rendered to nothing');
  return text;
}

// ---------------------------------------------------------------------------------------------
// What the chart is checked against: manifests/, and what the code reads and calls.

/** Every object of manifests/<folder>/*.yaml, files in name order. */
export function manifestObjects(folder: string): RenderedObject[] {
  const dir = join(ROOT, 'manifests', folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => d.toJS() as RenderedObject | null))
    .filter((o): o is RenderedObject => o !== null);
}

export interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs?: string[];
  nonResourceURLs?: string[];
}

export const rulesOf = (o: RenderedObject): Rule[] => (o.rules as Rule[] | undefined) ?? [];

/** Verbs a set of rules grants on group/resource (any resourceNames). */
export function verbsOn(rules: Rule[], group: string, resource: string): Set<string> {
  const verbs = new Set<string>();
  for (const r of rules) {
    if (r.apiGroups?.includes(group) === true && r.resources?.includes(resource) === true) r.verbs?.forEach((v) => verbs.add(v));
  }
  return verbs;
}

/** Every `group resource verb` a set of rules grants, sorted. */
export function grants(rules: Rule[]): string[] {
  const of = (r: Rule): string[] =>
    (r.apiGroups ?? []).flatMap((g) => (r.resources ?? []).flatMap((res) => (r.verbs ?? []).map((v) => `${g || 'core'} ${res} ${v}`)));
  return [...new Set(rules.flatMap(of))].sort();
}

export const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');

/** Environment variable names a source file reads as `env.NAME` (drivers/pool/config.ts). */
export function envNamesRead(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return new Set([...text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]!));
}

/** The members of a string-literal union type `export type Name = 'a' | 'b';` in a source file. */
function literalUnion(file: string, name: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const decl = new RegExp(`export type ${name} =\\s*([^;]+);`).exec(text);
  if (decl === null) throw new Error(`${file}: no "export type ${name} = ..."`);
  return [...decl[1]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
}

const CLIENT_VERBS: Record<string, string> = { read: 'get', list: 'list', create: 'create', replace: 'update', patch: 'patch', delete: 'delete' };

/**
 * Every `group resource verb` the driver pool's Kubernetes code calls: the @kubernetes/client-node
 * API methods (`this.core.…(`, `this.custom.…(`, `this.coordination.…(`, `this.api.…(`) in
 * drivers/kube/client.ts and drivers/agent/secret-store.ts, and the watches of
 * drivers/kube/port.ts's WatchedResource. Throws on a call it cannot map, so a new kind of
 * call is noticed.
 */
export function poolApiCalls(): string[] {
  const watched = literalUnion('drivers/kube/port.ts', 'WatchedResource');
  const status = literalUnion('drivers/kube/port.ts', 'StatusResource');
  const groupOf = (resource: string): string => groupVersionOf(resource as Exclude<WatchedResource, 'secrets'>).group;
  const custom = (resources: string[], sub: string): string[] => resources.filter((r) => r !== 'secrets').map((r) => `${groupOf(r)} ${r}${sub}`);
  const kinds: Record<string, string[]> = {
    Secret: ['core secrets'],
    Event: ['core events'],
    Lease: ['coordination.k8s.io leases'],
    CustomObject: custom(watched, ''),
    CustomObjectStatus: custom(status, '/status'),
  };
  const out = new Set(watched.map((r) => (r === 'secrets' ? 'core secrets watch' : `${groupOf(r)} ${r} watch`)));
  for (const file of ['drivers/kube/client.ts', 'drivers/agent/secret-store.ts']) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(
      /\.(?:core|custom|coordination|api)\.(read|list|create|replace|patch|delete)(?:Namespaced|Cluster)?([A-Z][A-Za-z]*?)(?:ForAllNamespaces)?\(/g,
    )) {
      // The pool deletes only requests and monitors (stale children, drivers/runner/stale.ts), and
      // patches custom objects only to re-point moved children (drivers/pool/moved-children.ts).
      const only: Record<string, readonly string[]> = { delete: status, patch: ADOPTED_RESOURCES };
      const types = m[2] === 'CustomObject' && only[m[1]!] !== undefined ? custom([...only[m[1]!]!], '') : kinds[m[2]!];
      if (types === undefined) throw new Error(`${file}: ${m[0]} calls a kind the chart test does not map`);
      for (const t of types) out.add(`${t} ${CLIENT_VERBS[m[1]!]!}`);
    }
  }
  for (const call of clusterRunnerCalls()) out.add(call);
  return [...out].sort();
}

/**
 * What drivers/cluster/ calls on the management cluster: list/watch of its two request kinds and
 * patches of their status, and for every ObjectPatch target drivers/cluster/targets.ts allows:
 * get and JSON patch (plus update for condition upserts, except label-only kinds), on /status too
 * where allowed. (Secrets: the kubeconfig read is the `get`.)
 */
function clusterRunnerCalls(): string[] {
  const out = ['objectpatches', 'nodeoperations'].flatMap((r) => [`ironhook.dev ${r} list`, `ironhook.dev ${r} watch`, `ironhook.dev ${r}/status patch`]);
  for (const target of ALLOWED_TARGETS) {
    const verbs = target.labelsOnly ? ['get', 'patch'] : ['get', 'patch', 'update'];
    const resources = target.status ? [target.plural, `${target.plural}/status`] : [target.plural];
    for (const resource of resources) out.push(...verbs.map((verb) => `${target.group || 'core'} ${resource} ${verb}`));
  }
  return out;
}
