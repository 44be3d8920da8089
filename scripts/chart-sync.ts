// Generates the chart's CRD, Metacontroller-object and RBAC templates from manifests/ (the source
// of truth), so the chart never drifts from what the e2e tests and `kubectl apply` use.
//
//   npx tsx scripts/chart-sync.ts          rewrite the generated templates (see TARGETS, AGGREGATES)
//   npx tsx scripts/chart-sync.ts --check  exit 1 and list the files that differ (used by tests)
//
// CRDs: wrapped in `crds.install`, labelled, annotated `helm.sh/resource-policy: keep` when
// `crds.keep`. Controller objects: labelled, hook URLs moved from the local default
// (http://127.0.0.1:8080) to the release's Service (`ironhook.hookBaseURL`), with Metacontroller
// 4.16+ webhook security (caBundle, authorization, basicAuth, clientTLS) from values; each hook
// keeps its own timeout and each object its resync period unless `controllers.hookTimeout` /
// `controllers.resyncPeriodSeconds` override them; child rules and whole objects of a Cluster API
// the chart does not install render only with `<file>.clusterAPI.enabled`. Admission policies
// (manifests/policies): labelled, behind `admissionPolicy.install`. RBAC: scripts/chart-rbac.ts.
// Nothing else changes; test/unit/chart.test.ts renders the chart and compares the objects with
// manifests/.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { clusterAPIGates, documentsOf, header, loadContext, SyncError, yamlFiles, type Gate, type SyncContext } from './chart-manifests.js';
import { controllerRbacTemplate, crdViewRoleTemplate } from './chart-rbac.js';

export { SyncError } from './chart-manifests.js';

export const ROOT = resolve(import.meta.dirname, '..');
export const CHART_DIR = join(ROOT, 'charts', 'ironhook');
/** The hook server address manifests/controllers use (the local environment's default). */
export const LOCAL_HOOK_BASE = 'http://127.0.0.1:8080';

/** One template per source file. */
export interface Target {
  /** manifests/ subfolder with the sources. */
  source: string;
  /** Chart folder the templates are written to (nothing else may live there). */
  output: string;
  transform: (text: string, name: string, context: SyncContext) => string;
}

/** One template from all files of a source folder. */
export interface Aggregate {
  source: string;
  /** Chart-relative path of the template. */
  output: string;
  build: (files: readonly { name: string; text: string }[]) => string;
}

/** Text that Go templates would read as an action is emitted literally. */
function escapeTemplate(text: string): string {
  return text.replaceAll('{{', '{{ "{{" }}');
}

const isStringMap = (v: unknown): boolean => typeof v === 'object' && v !== null && Object.values(v).every((x) => typeof x === 'string');

/** Every document's metadata may hold only a name and string labels, so labels/annotations can be inserted. */
function requireSimpleMetadata(docs: Record<string, unknown>[], name: string): void {
  for (const doc of docs) {
    const meta = (doc.metadata ?? {}) as Record<string, unknown>;
    const keys = Object.keys(meta);
    const simple = keys.includes('name') && keys.every((k) => k === 'name' || (k === 'labels' && isStringMap(meta.labels)));
    if (!simple) {
      throw new SyncError(
        `${name}: metadata must contain only "name" and string "labels" (found ${keys.join(', ') || 'nothing'}); extend scripts/chart-sync.ts`,
      );
    }
  }
}

/** Index after the `    key: value` lines of a `  labels:` block that starts at `start`. */
function labelsEnd(lines: readonly string[], start: number): number {
  let end = start + 1;
  while (end < lines.length && (lines[end] ?? '').startsWith('    ')) end++;
  return end;
}

/**
 * After each top-level `metadata:` + `  name: …` pair: `  labels:` with the chart's `labels` lines
 * first, then the source's own labels (when a `  labels:` block follows the name), then `after`.
 * Returns the lines and how many metadata blocks were extended.
 */
function insertMetadata(lines: string[], labels: string[], after: string[]): { lines: string[]; count: number } {
  const out: string[] = [];
  let count = 0;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    out.push(line);
    i++;
    if (lines[i - 2] !== 'metadata:' || !/^ {2}name: \S+$/.test(line)) continue;
    out.push('  labels:', ...labels);
    if (lines[i] === '  labels:') {
      const end = labelsEnd(lines, i);
      out.push(...lines.slice(i + 1, end));
      i = end;
    }
    out.push(...after);
    count++;
  }
  return { lines: out, count };
}

/** Drops a leading `---` that only follows comments, so the comments join the first document. */
function dropLeadingSeparator(lines: string[]): string[] {
  const first = lines.findIndex((l) => l.trim() !== '' && !l.startsWith('#'));
  if (first >= 0 && lines[first] === '---') return [...lines.slice(0, first), ...lines.slice(first + 1)];
  return lines;
}

function withoutTrailingNewlines(lines: string[]): string[] {
  const out = [...lines];
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

const CHART_LABELS = ['    {{- include "ironhook.labels" $ | nindent 4 }}'];

const KEEP_ANNOTATION = ['  {{- if $.Values.crds.keep }}', '  annotations:', '    helm.sh/resource-policy: keep', '  {{- end }}'];

/** CRDs with a conversion webhook carry the keep policy, cert-manager's CA injection and crds.conversion.annotations. */
const CONVERSION_ANNOTATIONS = ['  {{- with include "ironhook.conversionCRDAnnotations" $ }}', '  annotations:', '    {{- . | nindent 4 }}', '  {{- end }}'];

/** The hook Service fields of a conversion webhook, as the release names them (the conversion listener's port). */
const CONVERSION_SERVICE: Readonly<Record<string, string>> = {
  name: '{{ include "ironhook.hooks.fullname" $ }}',
  namespace: '{{ $.Release.Namespace }}',
  port: '{{ include "ironhook.conversionServicePort" $ }}',
};

const indentOf = (line: string): number => /^ */.exec(line)?.[0].length ?? 0;

/**
 * Points `clientConfig.service` of a conversion webhook at the release's hook Service and adds the
 * CA bundle from values (`ironhook.conversionCABundle`). Refuses URL webhooks and an inline caBundle.
 */
function conversionLines(lines: string[], name: string): string[] {
  const at = lines.findIndex((l) => /^ +clientConfig:$/.test(l));
  if (at < 0) throw new SyncError(`${name}: a Webhook conversion without clientConfig`);
  const indent = indentOf(lines[at] ?? '');
  let end = at + 1;
  while (end < lines.length && ((lines[end] ?? '').trim() === '' || indentOf(lines[end] ?? '') > indent)) end++;
  const block = lines.slice(at + 1, end);
  if (!block.some((l) => l.trim() === 'service:') || block.some((l) => /^\s*(url|caBundle):/.test(l))) {
    throw new SyncError(`${name}: the conversion webhook must name a service (no url, no caBundle); extend scripts/chart-sync.ts`);
  }
  const rewritten = block.map((l) => {
    const field = /^(\s+)(name|namespace|port): \S+$/.exec(l);
    return field !== null && indentOf(l) === indent + 4 ? `${field[1] ?? ''}${field[2] ?? ''}: ${CONVERSION_SERVICE[field[2] ?? ''] ?? ''}` : l;
  });
  const pad = ' '.repeat(indent);
  const ca = [`${pad}{{- with include "ironhook.conversionCABundle" $ }}`, `${pad}  caBundle: {{ . }}`, `${pad}{{- end }}`];
  return [...lines.slice(0, at + 1), ...rewritten, ...ca, ...lines.slice(end)];
}

/** The chart template for one manifests/crds file. */
export function crdTemplate(text: string, name: string): string {
  const docs = documentsOf(text, name);
  if (docs.length !== 1 || docs[0]?.kind !== 'CustomResourceDefinition') {
    throw new SyncError(`${name}: expected exactly one CustomResourceDefinition`);
  }
  requireSimpleMetadata(docs, name);
  const webhook = (docs[0].spec as { conversion?: { strategy?: string } } | undefined)?.conversion?.strategy === 'Webhook';
  let lines = withoutTrailingNewlines(escapeTemplate(text).split('\n'));
  if (webhook) lines = conversionLines(lines, name);
  const inserted = insertMetadata(dropLeadingSeparator(lines), CHART_LABELS, webhook ? CONVERSION_ANNOTATIONS : KEEP_ANNOTATION);
  if (inserted.count !== 1) throw new SyncError(`${name}: no top-level "metadata:" followed by "  name:"`);
  return `${header(`crds/${name}`, '.Values.crds.install')}${inserted.lines.join('\n')}\n{{- end }}\n`;
}

const CONTROLLER_LABELS = [...CHART_LABELS, '    {{- with $.Values.controllers.labels }}{{ toYaml . | nindent 4 }}{{- end }}'];

const CONTROLLER_KINDS = new Set(['CompositeController', 'DecoratorController']);
const POLICY_KINDS = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);

/** A hook URL moved to the release's base URL, with the webhook security fields; counted. */
function urlLines(line: string, name: string, counter: { urls: number }): string[] | undefined {
  const url = /^(\s*)url: (\S+)$/.exec(line);
  if (url === null) return undefined;
  const [, indent = '', value = ''] = url;
  if (!value.startsWith(`${LOCAL_HOOK_BASE}/`)) {
    throw new SyncError(`${name}: hook url ${value} does not start with ${LOCAL_HOOK_BASE}/`);
  }
  counter.urls++;
  const path = value.slice(LOCAL_HOOK_BASE.length);
  return [
    `${indent}url: {{ printf "%s%s" (include "ironhook.hookBaseURL" $) ${JSON.stringify(path)} | quote }}`,
    `${indent}{{- with include "ironhook.webhookSecurity" $ | trim }}{{ . | nindent ${indent.length} }}{{- end }}`,
  ];
}

/** Timeouts and resync periods keep the manifest's value unless values override them. */
function settingLine(line: string, name: string): string {
  const timeout = /^(\s*)timeout: ([0-9][0-9a-zµ.]*)$/.exec(line);
  if (timeout !== null) return `${timeout[1] ?? ''}timeout: {{ $.Values.controllers.hookTimeout | default ${JSON.stringify(timeout[2])} | quote }}`;
  if (/^\s*timeout:/.test(line)) throw new SyncError(`${name}: cannot read the hook timeout in "${line.trim()}"`);
  const resync = /^(\s*)resyncPeriodSeconds: (\d+)$/.exec(line);
  if (resync !== null) return `${resync[1] ?? ''}resyncPeriodSeconds: {{ $.Values.controllers.resyncPeriodSeconds | default ${resync[2] ?? ''} | int }}`;
  return line;
}

/** Rewrites one line of a controller manifest; counts the hook URLs it templated. */
function controllerLine(line: string, name: string, counter: { urls: number }): string[] {
  return urlLines(line, name, counter) ?? [settingLine(line, name)];
}

/** Wraps the gated line ranges in `{{- if <condition> }}` … `{{- end }}` (indented like the range's first line). */
function gateLines(lines: readonly string[][], gates: readonly Gate[]): string[] {
  const indentOf = (i: number): string => /^\s*/.exec(lines[i]?.[0] ?? '')?.[0] ?? '';
  const out: string[] = [];
  lines.forEach((group, i) => {
    for (const gate of gates) if (gate.first === i) out.push(`${indentOf(i)}{{- if ${gate.condition} }}`);
    out.push(...group);
    for (const gate of gates) if (gate.last === i) out.push(`${indentOf(gate.first)}{{- end }}`);
  });
  return out;
}

/** The chart template for one manifests/controllers file. */
export function controllerTemplate(text: string, name: string, context: SyncContext): string {
  const docs = documentsOf(text, name);
  if (docs.length === 0 || !docs.every((d) => CONTROLLER_KINDS.has(String(d.kind)))) {
    throw new SyncError(`${name}: expected CompositeController/DecoratorController documents only`);
  }
  requireSimpleMetadata(docs, name);
  const counter = { urls: 0 };
  const source = withoutTrailingNewlines(text.split('\n'));
  const gates = clusterAPIGates(source.join('\n'), name, context);
  const transformed = withoutTrailingNewlines(escapeTemplate(text).split('\n')).map((l) => controllerLine(l, name, counter));
  const lines = gateLines(transformed, gates);
  const inserted = insertMetadata(dropLeadingSeparator(lines), CONTROLLER_LABELS, []);
  if (inserted.count !== docs.length) throw new SyncError(`${name}: every document needs "metadata:" followed by "  name:"`);
  if (counter.urls === 0) throw new SyncError(`${name}: no hook url found`);
  return `${header(`controllers/${name}`, '.Values.controllers.install')}${inserted.lines.join('\n')}\n{{- end }}\n`;
}

/** The chart template for one manifests/policies file: labelled, behind admissionPolicy.install. */
export function policyTemplate(text: string, name: string): string {
  const docs = documentsOf(text, name);
  if (docs.length === 0 || !docs.every((d) => POLICY_KINDS.has(String(d.kind)))) {
    throw new SyncError(`${name}: expected ValidatingAdmissionPolicy/ValidatingAdmissionPolicyBinding documents only`);
  }
  requireSimpleMetadata(docs, name);
  const lines = dropLeadingSeparator(withoutTrailingNewlines(escapeTemplate(text).split('\n')));
  const inserted = insertMetadata(lines, CHART_LABELS, []);
  if (inserted.count !== docs.length) throw new SyncError(`${name}: every document needs "metadata:" followed by "  name:"`);
  return `${header(`policies/${name}`, '.Values.admissionPolicy.install')}${inserted.lines.join('\n')}\n{{- end }}\n`;
}

export const TARGETS: readonly Target[] = [
  { source: 'crds', output: join('templates', 'crds'), transform: crdTemplate },
  { source: 'controllers', output: join('templates', 'controllers'), transform: controllerTemplate },
  { source: 'controllers', output: join('templates', 'controllers-rbac'), transform: controllerRbacTemplate },
  { source: 'policies', output: join('templates', 'policies'), transform: policyTemplate },
];

export const AGGREGATES: readonly Aggregate[] = [{ source: 'crds', output: join('templates', 'crds-view-role.yaml'), build: crdViewRoleTemplate }];

function sources(root: string, folder: string): { name: string; text: string }[] {
  return yamlFiles(join(root, 'manifests', folder)).map((name) => ({ name, text: readFileSync(join(root, 'manifests', folder, name), 'utf8') }));
}

/** Every generated template: chart-relative path → content. */
export function expectedTemplates(root: string = ROOT): Map<string, string> {
  const context = loadContext(root);
  const out = new Map<string, string>();
  for (const target of TARGETS) {
    for (const { name, text } of sources(root, target.source)) out.set(join(target.output, name), target.transform(text, name, context));
  }
  for (const aggregate of AGGREGATES) {
    const files = sources(root, aggregate.source);
    if (files.length > 0) out.set(aggregate.output, aggregate.build(files));
  }
  return out;
}

/** Chart-relative paths that are missing, differ, or are stale (no source any more). */
export function driftedTemplates(root: string = ROOT): string[] {
  const chart = join(root, 'charts', 'ironhook');
  const expected = expectedTemplates(root);
  const differs = (path: string): boolean => !existsSync(join(chart, path)) || readFileSync(join(chart, path), 'utf8') !== expected.get(path);
  const present = [
    ...TARGETS.flatMap((target) => yamlFiles(join(chart, target.output)).map((file) => join(target.output, file))),
    ...AGGREGATES.map((a) => a.output).filter((path) => existsSync(join(chart, path))),
  ];
  const stale = present.filter((path) => !expected.has(path));
  return [...[...expected.keys()].filter(differs), ...stale].sort();
}

/** Writes the generated templates and removes stale ones; returns the paths it changed. */
export function writeTemplates(root: string = ROOT): string[] {
  const chart = join(root, 'charts', 'ironhook');
  const drift = driftedTemplates(root);
  const expected = expectedTemplates(root);
  for (const path of drift) {
    const file = join(chart, path);
    const content = expected.get(path);
    if (content === undefined) {
      rmSync(file);
      continue;
    }
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, content);
  }
  return drift;
}

function main(argv: readonly string[]): number {
  const check = argv.includes('--check');
  const changed = check ? driftedTemplates() : writeTemplates();
  const where = relative(process.cwd(), CHART_DIR) || '.';
  if (changed.length === 0) {
    console.log(`chart-sync: ${where} templates match manifests/`);
    return 0;
  }
  for (const path of changed) console.log(`${check ? 'out of date' : 'updated'}: ${join(where, path)}`);
  if (check) console.error('chart-sync: run `npx tsx scripts/chart-sync.ts` and commit the result');
  return check ? 1 : 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (err) {
    console.error(`chart-sync: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 2;
  }
}
