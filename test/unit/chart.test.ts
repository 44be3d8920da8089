// The Helm chart charts/ironhook, through the real helm binary: lint and render with every
// ci/*-values.yaml, generated templates in sync with manifests/, controller objects pointing at
// the release's Service with hook version v2, their own timeouts and explicit update strategies,
// the Cluster API switch, restricted pods, least-privilege RBAC without wildcards (derived from
// the controller objects, the customize fixtures run through the real hooks, and the driver
// pool's API calls), the pool's environment and ports as drivers/ reads them, the values schema
// and NOTES.txt (the NetworkPolicies: chart-networkpolicy.test.ts). Counts and names come from
// manifests/, never from this file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isMap, isScalar, parseDocument, type Node, type Pair } from 'yaml';
import { hookAccess, hookRegistry } from '../../hooks/registry.js';
import { DEFAULT_HOOK_CONFIG } from '../../hooks/types.js';
import { driftedTemplates, LOCAL_HOOK_BASE, ROOT } from '../../scripts/chart-sync.js';
import {
  envNamesRead,
  grants,
  groupOf,
  helm,
  manifestObjects,
  NAMESPACE,
  poolApiCalls,
  prepareChart,
  removeScratchCharts,
  renderCIValues,
  render,
  renderNotes,
  rulesOf,
  templateArgs,
  verbsOn,
  type PreparedChart,
  type RenderedObject,
  type Rule,
} from '../support/helm.js';
import { childrenOf, controllersOf, hooksOf, named, ofKind, parentsOf, specOf, type ResourceRule } from '../support/controller-objects.js';

const CHART = join(ROOT, 'charts', 'ironhook');
const CI_FILES = readdirSync(join(CHART, 'ci'))
  .filter((f) => f.endsWith('-values.yaml'))
  .sort();
const SERVICE_BASE = `http://ironhook-hooks.${NAMESPACE}.svc:8080`;
const UPDATE_METHODS = ['OnDelete', 'Recreate', 'InPlace', 'RollingRecreate', 'RollingInPlace'];

let chart: PreparedChart;
let rendered: (file: string) => RenderedObject[];

beforeAll(async () => {
  chart = prepareChart();
  rendered = await renderCIValues(chart.dir, CI_FILES);
}, 1_200_000);

afterAll(() => {
  removeScratchCharts();
});

const MANIFEST_CONTROLLERS = manifestObjects('controllers');
const MANIFEST_CRDS = manifestObjects('crds');
/** `<plural>.<group>` of every CRD the chart installs. */
const CRD_TYPES = new Set(
  MANIFEST_CRDS.map((c) => {
    const spec = c.spec as { group: string; names: { plural: string } };
    return `${spec.names.plural}.${spec.group}`;
  }),
);

/** A Cluster API type (cluster.x-k8s.io or a subgroup) the chart does not install: behind ipam.clusterAPI.enabled. */
function isExternalClusterAPI(group: string, resource: string): boolean {
  const capi = group === 'cluster.x-k8s.io' || group.endsWith('.cluster.x-k8s.io');
  return capi && !CRD_TYPES.has(`${resource.split('/')[0] ?? ''}.${group}`);
}
const externalRule = (r: ResourceRule): boolean => isExternalClusterAPI(groupOf(r.apiVersion), r.resource);

/** manifests/controllers as documented for clusters without Cluster API: its child rules and the objects on its types dropped. */
function withoutClusterAPI(objects: RenderedObject[]): RenderedObject[] {
  return objects
    .filter((o) => !(parentsOf(o).length > 0 && parentsOf(o).every(externalRule)))
    .map((o) => {
      const copy = structuredClone(o);
      const spec = specOf(copy);
      for (const key of ['childResources', 'attachments', 'resources'] as const) {
        if (spec[key] !== undefined) spec[key] = spec[key].filter((r) => !externalRule(r));
      }
      return copy;
    });
}

/** What a hook's timeout and its object's resync period are in manifests/controllers. */
function manifestSettings(name: string): { resync: number | undefined; timeouts: Record<string, string | undefined> } {
  const o = MANIFEST_CONTROLLERS.find((m) => m.metadata.name === name);
  if (o === undefined) throw new Error(`${name} is not in manifests/controllers`);
  return { resync: specOf(o).resyncPeriodSeconds, timeouts: Object.fromEntries(hooksOf(o).map(([hook, h]) => [hook, h.webhook?.timeout])) };
}

interface Conversion {
  strategy?: string;
  webhook?: { clientConfig?: { service?: { path?: string; name?: string; port?: number }; caBundle?: string } };
}
const conversionOf = (crd: RenderedObject): Conversion | undefined => (crd.spec as { conversion?: Conversion }).conversion;
const hasConversionWebhook = (crd: RenderedObject): boolean => conversionOf(crd)?.strategy === 'Webhook';

/** A CRD rendered as release "lab" in namespace "metal" with a CA bundle and a cert-manager annotation for conversion webhooks. */
function expectLabConversion(crd: RenderedObject): void {
  const source = MANIFEST_CRDS.find((m) => m.metadata.name === crd.metadata.name)!;
  if (!hasConversionWebhook(source)) {
    expect(crd.metadata.annotations, crd.metadata.name).toEqual({ 'helm.sh/resource-policy': 'keep' });
    return;
  }
  expect(crd.metadata.annotations, crd.metadata.name).toEqual({ 'helm.sh/resource-policy': 'keep', 'cert-manager.io/inject-ca-from': 'metal/hooks' });
  const service = { name: 'lab-ironhook-hooks', namespace: 'metal', port: 443, path: conversionOf(source)?.webhook?.clientConfig?.service?.path };
  expect(conversionOf(crd)?.webhook?.clientConfig, crd.metadata.name).toEqual({ service, caBundle: 'Q0E=' });
}

/** The CRD with the manifest's conversion clientConfig (the chart's own is checked in chart-conversion.test.ts). */
function withManifestClientConfig(crd: RenderedObject): RenderedObject {
  const source = MANIFEST_CRDS.find((m) => m.metadata.name === crd.metadata.name);
  const webhook = conversionOf(crd)?.webhook;
  if (source === undefined || webhook === undefined) return crd;
  const copy = structuredClone(crd);
  const target = conversionOf(copy)?.webhook;
  if (target !== undefined) target.clientConfig = conversionOf(source)?.webhook?.clientConfig;
  return copy;
}

/** Objects in kind/name order (helm template orders by kind, manifests/ by file). */
const sorted = (objects: RenderedObject[]): RenderedObject[] =>
  [...objects].sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));

/** The object without the labels (and keep annotation) the chart adds. */
function withoutChartMetadata(o: RenderedObject): RenderedObject {
  const copy = structuredClone(o);
  delete copy.metadata.labels;
  delete copy.metadata.annotations;
  return copy;
}

/** Controller object with its hook URLs mapped from `base` back to the manifests' local base. */
function withLocalUrls(o: RenderedObject, base: string): RenderedObject {
  const copy = withoutChartMetadata(o);
  for (const [, hook] of hooksOf(copy)) {
    const url = hook.webhook?.url ?? '';
    expect(url.startsWith(`${base}/hooks/`), `${o.metadata.name}: ${url} is under ${base}`).toBe(true);
    if (hook.webhook !== undefined) hook.webhook.url = LOCAL_HOOK_BASE + url.slice(base.length);
  }
  return copy;
}

describe('chart sources', () => {
  it('has the generated CRD and controller templates in sync with manifests/ (npx tsx scripts/chart-sync.ts)', () => {
    expect(driftedTemplates()).toEqual([]);
  });

  it('declares Chart.yaml as Helm v3 with a kubeVersion range, semver version, appVersion as image tag and the metacontroller dependency', () => {
    const meta = parseDocument(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')).toJS() as Record<string, unknown>;
    const values = parseDocument(readFileSync(join(CHART, 'values.yaml'), 'utf8')).toJS() as { image: { tag: string } };
    expect(meta.apiVersion).toBe('v2');
    expect(meta.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(meta.kubeVersion).toMatch(/^>=\s*1\.\d+/);
    expect(meta.appVersion).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
    expect(values.image.tag).toBe('');
    expect(meta.dependencies).toEqual([
      {
        name: 'metacontroller-helm',
        version: '4.17.2',
        repository: 'oci://ghcr.io/metacontroller',
        alias: 'metacontroller',
        condition: 'metacontroller.enabled',
      },
    ]);
  });

  it('git-ignores the dependency charts that scripts/chart-deps.sh produces', () => {
    expect(readFileSync(join(CHART, '.gitignore'), 'utf8')).toMatch(/^\/charts\/$/m);
  });

  it('has the metacontroller-helm dependency in place (scripts/chart-deps.sh), rendered only with metacontroller.enabled', () => {
    expect(chart.dir).toBe(CHART);
    expect(chart.dependencyReport).toMatch(/metacontroller-helm-4\.17\.2\.tgz/);
    expect(existsSync(join(CHART, 'charts', 'metacontroller-helm-4.17.2.tgz'))).toBe(true);
    expect(ofKind(rendered('default-values.yaml'), 'StatefulSet').map((o) => o.metadata.name)).toEqual(['ironhook-metacontroller']);
    expect(ofKind(rendered('no-metacontroller-values.yaml'), 'StatefulSet')).toEqual([]);
  });
});

describe('helm lint --strict and helm template', () => {
  it.each(CI_FILES)('lints cleanly with ci/%s', async (file) => {
    const res = await helm(['lint', '--strict', chart.dir, '--namespace', NAMESPACE, '--values', join(CHART, 'ci', file)]);
    expect(res.code, res.stdout + res.stderr).toBe(0);
    // helm lint only logs template fail()/required() as [INFO]; those must not happen either.
    expect(res.stdout).not.toMatch(/Fail:|\[WARNING\]|\[ERROR\]/);
  });

  it.each(CI_FILES)('renders ci/%s into well-formed, uniquely named objects', (file) => {
    const objects = rendered(file);
    expect(objects.length).toBeGreaterThan(10);
    const keys = objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    for (const o of objects) {
      expect(o.apiVersion, keys.join(',')).toMatch(/^[\w.-]+(\/[\w.-]+)?$/);
      expect(o.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    }
  });
});

describe('Metacontroller objects', () => {
  it('equal manifests/controllers except for the hook URLs, which point at the release Service', () => {
    const objects = controllersOf(rendered('default-values.yaml'));
    expect(sorted(objects.map(withoutChartMetadata).map((o) => withLocalUrls(o, SERVICE_BASE)))).toEqual(sorted(MANIFEST_CONTROLLERS));
  });

  it('point at https://<service>.<namespace>.svc with TLS, and at controllers.hookBaseURL when set', async () => {
    const tls = controllersOf(rendered('tls-auth-values.yaml'));
    expect(tls.map((o) => withLocalUrls(o, SERVICE_BASE.replace('http:', 'https:'))).length).toBe(MANIFEST_CONTROLLERS.length);
    const local = await render(chart.dir, { set: ['controllers.hookBaseURL=http://127.0.0.1:18080/', 'hooks.enabled=false'] });
    expect(controllersOf(local).map((o) => withLocalUrls(o, 'http://127.0.0.1:18080')).length).toBe(MANIFEST_CONTROLLERS.length);
    expect(ofKind(local, 'Deployment').map((d) => d.metadata.name)).toEqual(['ironhook-drivers']);
  });

  it.each(CI_FILES)("use hook version v2 with each hook's own timeout and each object's resync period from manifests/ (ci/%s)", (file) => {
    const objects = controllersOf(rendered(file));
    expect(objects.length).toBeGreaterThan(0);
    for (const o of objects) {
      const own = manifestSettings(o.metadata.name);
      expect(specOf(o).resyncPeriodSeconds, o.metadata.name).toBe(own.resync);
      for (const [name, hook] of hooksOf(o)) {
        expect(hook.version, `${o.metadata.name} ${name}`).toBe('v2');
        expect(hook.webhook?.timeout, `${o.metadata.name} ${name}`).toBe(own.timeouts[name]);
      }
    }
    expect(
      new Set(MANIFEST_CONTROLLERS.flatMap((o) => hooksOf(o).map(([, h]) => h.webhook?.timeout))).size,
      'manifests/ use more than one timeout',
    ).toBeGreaterThan(1);
  });

  it('use controllers.hookTimeout and controllers.resyncPeriodSeconds for every object when set', async () => {
    const objects = controllersOf(await render(chart.dir, { set: ['controllers.hookTimeout=45s', 'controllers.resyncPeriodSeconds=120'] }));
    expect(objects.length).toBe(MANIFEST_CONTROLLERS.length);
    for (const o of objects) {
      expect(specOf(o).resyncPeriodSeconds).toBe(120);
      for (const [, hook] of hooksOf(o)) expect(hook.webhook?.timeout, o.metadata.name).toBe('45s');
    }
  });

  it('leave out the Cluster API child rules and objects with ipam.clusterAPI.enabled=false, exactly as manifests/controllers describes', () => {
    const off = controllersOf(rendered('no-cluster-api-values.yaml'));
    const expected = withoutClusterAPI(MANIFEST_CONTROLLERS);
    expect(sorted(off.map((o) => withLocalUrls(o, SERVICE_BASE)))).toEqual(sorted(expected));
    expect(expected, 'manifests/controllers has Cluster API parts to switch off').not.toEqual(MANIFEST_CONTROLLERS);
    const rules = off.flatMap((o) => [...parentsOf(o), ...childrenOf(o)]);
    expect(rules.filter(externalRule)).toEqual([]);
  });

  it('give every child type an explicit update strategy', () => {
    const children = ofKind(rendered('default-values.yaml'), 'CompositeController').flatMap((o) => childrenOf(o));
    expect(children.length).toBeGreaterThan(0);
    for (const child of children) expect(UPDATE_METHODS, child.resource).toContain(child.updateStrategy?.method);
  });

  it('carry caBundle, clientTLS and bearer authorization from the release namespace when TLS and auth are on', () => {
    for (const o of controllersOf(rendered('tls-auth-values.yaml'))) {
      for (const [, hook] of hooksOf(o)) {
        const { caBundle, clientTLS, authorization, basicAuth } = hook.webhook ?? {};
        expect(caBundle).toEqual({ secretRef: { name: 'ironhook-hooks-tls', namespace: NAMESPACE, key: 'ca.crt' } });
        expect(clientTLS).toEqual({
          secretRef: { name: 'ironhook-metacontroller-client', namespace: NAMESPACE },
          certKey: 'tls.crt',
          privateKeyKey: 'tls.key',
        });
        expect(authorization).toEqual({ type: 'Bearer', secretRef: { name: 'ironhook-hooks-auth', namespace: NAMESPACE, key: 'token' } });
        expect(basicAuth).toBeUndefined();
      }
    }
  });

  it('carry basicAuth when webhook.auth.type is basic, and nothing when auth and TLS are off', () => {
    for (const o of controllersOf(rendered('no-metacontroller-values.yaml'))) {
      for (const [, hook] of hooksOf(o)) {
        expect(hook.webhook?.basicAuth).toEqual({
          secretRef: { name: 'ironhook-hooks-basic', namespace: NAMESPACE },
          usernameKey: 'username',
          passwordKey: 'password',
        });
        expect(hook.webhook?.caBundle).toBeUndefined();
      }
    }
    const plain = controllersOf(rendered('default-values.yaml')).flatMap(hooksOf);
    for (const [, hook] of plain) expect(Object.keys(hook.webhook ?? {}).sort()).toEqual(['timeout', 'url']);
  });
});

describe('CRDs', () => {
  it('equal manifests/crds, with their own labels and the chart labels, kept on uninstall', () => {
    const crds = ofKind(rendered('default-values.yaml'), 'CustomResourceDefinition');
    for (const crd of crds) {
      expect(crd.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
      expect(crd.metadata.labels?.['app.kubernetes.io/part-of']).toBe('ironhook');
      expect(crd.metadata.labels).toMatchObject(MANIFEST_CRDS.find((m) => m.metadata.name === crd.metadata.name)?.metadata.labels ?? {});
    }
    expect(sorted(crds.map(withoutChartMetadata).map(withManifestClientConfig))).toEqual(sorted(MANIFEST_CRDS.map(withoutChartMetadata)));
  });

  it('point conversion webhooks at the release hook Service, with the CA bundle and annotations from values', async () => {
    const set = ['crds.conversion.caBundle=Q0E=', 'crds.conversion.annotations.cert-manager\\.io/inject-ca-from=metal/hooks'];
    const crds = ofKind(await render(chart.dir, { release: 'lab', namespace: 'metal', set }), 'CustomResourceDefinition');
    expect(crds.length).toBe(MANIFEST_CRDS.length);
    crds.forEach(expectLabConversion);
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    // Without the conversion listener the webhooks call the HTTPS hook port, trusting the inline webhook CA.
    const tls = ['hooks.conversion.enabled=false', 'webhook.tls.enabled=true', 'webhook.tls.secretName=tls', 'webhook.tls.caBundle.source=inline'];
    const inline = ofKind(await render(chart.dir, { set: tls, setString: [`webhook.tls.caBundle.inline=${pem}`] }), 'CustomResourceDefinition');
    for (const crd of inline.filter(hasConversionWebhook)) {
      expect(conversionOf(crd)?.webhook?.clientConfig?.caBundle).toBe(Buffer.from(pem).toString('base64'));
      expect(conversionOf(crd)?.webhook?.clientConfig?.service).toMatchObject({ name: 'ironhook-hooks', port: 8080 });
    }
  });

  it('are templates (upgraded by helm upgrade), not files in crds/, and follow crds.install and crds.keep', async () => {
    expect(readdirSync(CHART)).not.toContain('crds');
    const notKept = ofKind(await render(chart.dir, { set: ['crds.keep=false'] }), 'CustomResourceDefinition');
    expect(notKept.length).toBe(MANIFEST_CRDS.length);
    for (const crd of notKept) expect(crd.metadata.annotations).toBeUndefined();
    expect(ofKind(await render(chart.dir, { set: ['crds.install=false'] }), 'CustomResourceDefinition')).toEqual([]);
  });
});

describe('admission policy', () => {
  it('equals manifests/policies apart from labels, and follows admissionPolicy.install', async () => {
    const kinds = new Set(['ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding']);
    const policies = rendered('default-values.yaml').filter((o) => kinds.has(o.kind));
    expect(policies.length).toBeGreaterThan(0);
    for (const p of policies) expect(p.metadata.labels?.['app.kubernetes.io/part-of']).toBe('ironhook');
    const byKindAndName = (list: RenderedObject[]): RenderedObject[] =>
      [...list].sort((a, b) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`));
    expect(byKindAndName(policies.map(withoutChartMetadata))).toEqual(byKindAndName(manifestObjects('policies')));
    const off = await render(chart.dir, { set: ['admissionPolicy.install=false'] });
    expect(off.filter((o) => kinds.has(o.kind))).toEqual([]);
  });
});

interface Container {
  name: string;
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
    seccompProfile?: { type?: string };
  };
  resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
  readinessProbe?: { httpGet?: { path?: string; port?: unknown } };
  livenessProbe?: { httpGet?: { path?: string; port?: unknown } };
  ports?: { name: string; containerPort: number }[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  command?: string[];
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  securityContext?: { runAsNonRoot?: boolean; seccompProfile?: { type?: string } };
  automountServiceAccountToken?: boolean;
}

function podSpecOf(o: RenderedObject): PodSpec | undefined {
  if (o.kind === 'Pod') return o.spec as PodSpec;
  const template = (o.spec as { template?: { spec?: PodSpec } } | undefined)?.template;
  return template?.spec;
}

const workloads = (objects: RenderedObject[]): RenderedObject[] => objects.filter((o) => podSpecOf(o) !== undefined);
const poolContainer = (file: string): Container => podSpecOf(named(rendered(file), 'Deployment', 'ironhook-drivers')!)!.containers[0]!;
const envOf = (c: Container): Record<string, string | undefined> => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));

function expectRestrictedContainer(c: Container, where: string): void {
  expect(c.securityContext, where).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
  expect(Object.keys(c.resources?.requests ?? {}).sort(), `${where} requests`).toEqual(['cpu', 'memory']);
  expect(Object.keys(c.resources?.limits ?? {}).sort(), `${where} limits`).toEqual(['cpu', 'memory']);
}

function expectRestricted(o: RenderedObject): void {
  const pod = podSpecOf(o)!;
  const where = `${o.kind}/${o.metadata.name}`;
  expect(pod.securityContext, where).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) expectRestrictedContainer(c, `${where} ${c.name}`);
}

describe('workloads', () => {
  it.each(CI_FILES)('run every container restricted, with requests and limits (ci/%s, test pods and the bundled Metacontroller included)', (file) => {
    const pods = workloads(rendered(file));
    expect(pods.length).toBeGreaterThanOrEqual(2);
    pods.forEach(expectRestricted);
  });

  it('run the hook server with 2 replicas, probes on /readyz and /healthz, no service account token', () => {
    const hooks = named(rendered('default-values.yaml'), 'Deployment', 'ironhook-hooks')!;
    expect((hooks.spec as { replicas: number }).replicas).toBeGreaterThanOrEqual(2);
    const pod = podSpecOf(hooks)!;
    expect(pod.automountServiceAccountToken).toBe(false);
    const [c] = pod.containers;
    expect(c?.command).toEqual(['node', 'dist/hooks/main.js']);
    expect(c?.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
    expect(c?.livenessProbe?.httpGet).toMatchObject({ path: '/healthz', port: 'http' });
    expect(named(rendered('default-values.yaml'), 'ServiceAccount', 'ironhook-hooks')?.automountServiceAccountToken).toBe(false);
  });

  it('configure the hook server through the environment variables hooks/server/settings.ts reads', () => {
    const settings = readFileSync(join(ROOT, 'hooks', 'server', 'settings.ts'), 'utf8');
    const read = new Set([...settings.matchAll(/['"]([A-Z][A-Z0-9_]+)['"]/g)].map((m) => m[1]));
    for (const file of ['default-values.yaml', 'tls-auth-values.yaml', 'no-metacontroller-values.yaml']) {
      const [c] = podSpecOf(named(rendered(file), 'Deployment', 'ironhook-hooks')!)!.containers;
      for (const name of Object.keys(envOf(c!))) expect(read, `${file}: ${name}`).toContain(name);
    }
    const tls = envOf(podSpecOf(named(rendered('tls-auth-values.yaml'), 'Deployment', 'ironhook-hooks')!)!.containers[0]!);
    expect(tls).toMatchObject({
      TLS_CERT_FILE: '/etc/ironhook/tls/tls.crt',
      TLS_KEY_FILE: '/etc/ironhook/tls/tls.key',
      TLS_CLIENT_CA_FILE: '/etc/ironhook/client-ca/ca.crt',
      HOOK_BEARER_TOKEN_FILE: '/etc/ironhook/auth/token',
    });
    const basic = envOf(podSpecOf(named(rendered('no-metacontroller-values.yaml'), 'Deployment', 'ironhook-hooks')!)!.containers[0]!);
    expect(basic.HOOK_BASIC_AUTH_FILE).toBe('/etc/ironhook/auth/auth');
  });

  it('ship a PodDisruptionBudget for the hook server, and follow the replica counts', () => {
    expect(named(rendered('default-values.yaml'), 'PodDisruptionBudget', 'ironhook-hooks')?.spec).toMatchObject({ maxUnavailable: 1 });
    const ha = rendered('replicas-values.yaml');
    expect((named(ha, 'Deployment', 'ironhook-hooks')?.spec as { replicas: number }).replicas).toBe(3);
    expect((named(ha, 'Deployment', 'ironhook-drivers')?.spec as { replicas: number }).replicas).toBe(2);
  });

  it('run the driver pool behind drivers.enabled with its own token-mounting ServiceAccount', () => {
    const drivers = named(rendered('default-values.yaml'), 'Deployment', 'ironhook-drivers')!;
    expect(podSpecOf(drivers)?.containers[0]?.command).toEqual(['node', 'dist/drivers/main.js']);
    expect(envOf(poolContainer('tls-auth-values.yaml')).ALLOWED_BMC_NETWORKS).toBe('192.0.2.0/24');
    const off = rendered('drivers-disabled-values.yaml');
    expect(off.filter((o) => o.metadata.name.startsWith('ironhook-drivers'))).toEqual([]);
  });

  it('configure the driver pool only through environment variables drivers/pool/config.ts and drivers/cluster/config.ts read', () => {
    const read = new Set([...envNamesRead('drivers/pool/config.ts'), ...envNamesRead('drivers/cluster/config.ts')]);
    const files = CI_FILES.filter((f) => named(rendered(f), 'Deployment', 'ironhook-drivers') !== undefined);
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      for (const e of poolContainer(file).env ?? []) expect(read, `${file}: ${e.name}`).toContain(e.name);
    }
    const env = poolContainer('default-values.yaml').env ?? [];
    expect(env.find((e) => e.name === 'LEADER_ELECTION_NAMESPACE')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'metadata.namespace' } });
    expect(env.find((e) => e.name === 'POD_NAME')?.valueFrom).toEqual({ fieldRef: { fieldPath: 'metadata.name' } });
    expect(envOf(poolContainer('default-values.yaml'))).toMatchObject({
      LEADER_ELECT: 'true',
      LEADER_ELECTION_ID: 'ironhook-drivers',
      AGENT_STATE_STORE: 'secret',
      SHUTDOWN_TIMEOUT_SECONDS: '20',
    });
    expect(envOf(poolContainer('agent-api-values.yaml'))).toMatchObject({
      WATCH_NAMESPACE: 'metal3,lab',
      AGENT_API_URL: 'http://172.22.0.2:30385',
      AGENT_STATE_STORE: 'memory',
      DEPLOY_KERNEL_URL: 'http://172.22.0.1:8080/ipa.kernel',
      DEPLOY_RAMDISK_URL: 'http://172.22.0.1:8080/ipa.initramfs',
    });
  });

  it('serve the pool probes and /metrics on METRICS_PORT and the agent API on AGENT_API_PORT, each behind its own Service', () => {
    const served = readFileSync(join(ROOT, 'drivers', 'pool', 'server.ts'), 'utf8');
    const c = poolContainer('default-values.yaml');
    const env = envOf(c);
    const port = (name: string): string | undefined => c.ports?.find((p) => p.name === name)?.containerPort.toString();
    expect(port('metrics')).toBe(env.METRICS_PORT);
    expect(port('agent-api')).toBe(env.AGENT_API_PORT);
    for (const probe of [c.readinessProbe, c.livenessProbe]) {
      expect(probe?.httpGet?.port).toBe('metrics');
      expect(served).toContain(`path === '${probe?.httpGet?.path ?? '?'}'`);
    }
    const objects = rendered('default-values.yaml');
    const portsOf = (name: string): unknown => (named(objects, 'Service', name)?.spec as { ports?: unknown } | undefined)?.ports;
    expect(portsOf('ironhook-drivers-metrics')).toEqual([{ name: 'metrics', port: 9090, targetPort: 'metrics', protocol: 'TCP' }]);
    expect(portsOf('ironhook-drivers-agent')).toEqual([{ name: 'agent-api', port: 6385, targetPort: 'agent-api', protocol: 'TCP', appProtocol: 'http' }]);
    const nodePort = named(rendered('agent-api-values.yaml'), 'Service', 'ironhook-drivers-agent')!.spec as {
      type: string;
      externalTrafficPolicy?: string;
      ports: { nodePort?: number }[];
    };
    expect(nodePort).toMatchObject({ type: 'NodePort', externalTrafficPolicy: 'Local', ports: [{ nodePort: 30385 }] });
  });

  it('ship ServiceMonitors only when enabled, scraping the hooks over HTTPS with TLS', () => {
    expect(ofKind(rendered('default-values.yaml'), 'ServiceMonitor')).toEqual([]);
    const monitors = ofKind(rendered('tls-auth-values.yaml'), 'ServiceMonitor');
    expect(monitors.map((m) => m.metadata.name).sort()).toEqual(['ironhook-drivers', 'ironhook-hooks']);
    const hooks = monitors.find((m) => m.metadata.name === 'ironhook-hooks')!;
    expect((hooks.spec as { endpoints: unknown[] }).endpoints[0]).toMatchObject({ port: 'http', path: '/metrics', scheme: 'https' });
    const selector = (monitors.find((m) => m.metadata.name === 'ironhook-drivers')!.spec as { selector: { matchLabels: Record<string, string> } }).selector
      .matchLabels;
    const services = ofKind(rendered('tls-auth-values.yaml'), 'Service').filter((svc) =>
      Object.entries(selector).every(([k, v]) => svc.metadata.labels?.[k] === v),
    );
    expect(services.map((svc) => svc.metadata.name)).toEqual(['ironhook-drivers-metrics']);
  });
});

const roles = (objects: RenderedObject[]): RenderedObject[] => objects.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole');
const aggregatedRules = (objects: RenderedObject[]): Rule[] =>
  roles(objects)
    .filter((o) => o.metadata.labels?.['ironhook.dev/aggregate-to-metacontroller'] === 'true')
    .flatMap(rulesOf);
const READ = ['get', 'list', 'watch'];

/** Customize requests recorded in test/fixtures/<route>/<scenario>/ (route = the hook URL's controller part). */
function customizeFixtures(): { route: string; request: Record<string, unknown> }[] {
  const root = join(ROOT, 'test', 'fixtures');
  const out: { route: string; request: Record<string, unknown> }[] = [];
  for (const route of readdirSync(root).filter((d) => existsSync(join(root, d)) && !d.includes('.'))) {
    for (const scenario of readdirSync(join(root, route)).filter((d) => existsSync(join(root, route, d, 'request.json')))) {
      const hookFile = join(root, route, scenario, 'hook');
      const hook = existsSync(hookFile) ? readFileSync(hookFile, 'utf8').trim() : scenario.endsWith('-customize') ? 'customize' : '';
      if (hook === 'customize')
        out.push({ route, request: JSON.parse(readFileSync(join(root, route, scenario, 'request.json'), 'utf8')) as Record<string, unknown> });
    }
  }
  return out;
}

/** Related types the real customize hooks answer for the fixtures, asked with the rendered controller objects. */
function relatedTypes(controllers: RenderedObject[]): { controller: string; group: string; resource: string }[] {
  const out: { controller: string; group: string; resource: string }[] = [];
  for (const { route, request } of customizeFixtures()) {
    const controller = controllers.find((o) => specOf(o).hooks.customize?.webhook?.url?.endsWith(`/hooks/${route}/customize`) === true);
    const customize = hookRegistry[route]?.customize;
    if (controller === undefined || customize === undefined) continue;
    const answer = customize({ ...request, controller }, { config: DEFAULT_HOOK_CONFIG }) as { relatedResources?: { apiVersion: string; resource: string }[] };
    for (const r of answer.relatedResources ?? []) out.push({ controller: controller.metadata.name, group: groupOf(r.apiVersion), resource: r.resource });
  }
  return out;
}

/** What the controller objects need: parents and decorated types with status, children, and <parent>/finalizers for blockOwnerDeletion. */
function expectControllerNeeds(controllers: RenderedObject[], rules: Rule[]): void {
  for (const o of controllers) {
    for (const p of parentsOf(o)) {
      const group = groupOf(p.apiVersion);
      expect([...verbsOn(rules, group, p.resource)], `${o.metadata.name} ${p.resource}`).toEqual(expect.arrayContaining([...READ, 'update']));
      expect([...verbsOn(rules, group, `${p.resource}/status`)], `${o.metadata.name} ${p.resource}/status`).toContain('update');
      if (childrenOf(o).length > 0) expect([...verbsOn(rules, group, `${p.resource}/finalizers`)], `${p.resource}/finalizers`).toContain('update');
    }
    for (const c of childrenOf(o)) {
      const verbs = [...verbsOn(rules, groupOf(c.apiVersion), c.resource)];
      expect(verbs, `${o.metadata.name} child ${c.resource}`).toEqual(expect.arrayContaining([...READ, 'create', 'update', 'patch', 'delete']));
    }
  }
}

describe('RBAC', () => {
  it.each(CI_FILES)('has no wildcards in any Role or ClusterRole (ci/%s)', (file) => {
    const own = roles(rendered(file)).filter((o) => o.metadata.labels?.['app.kubernetes.io/part-of'] === 'ironhook');
    expect(own.length).toBeGreaterThan(2);
    for (const role of own) {
      for (const rule of rulesOf(role)) {
        const all = [...(rule.apiGroups ?? []), ...(rule.resources ?? []), ...(rule.verbs ?? []), ...(rule.nonResourceURLs ?? [])];
        expect(all, role.metadata.name).not.toContain('*');
        expect(
          all.some((x) => x.includes('*')),
          role.metadata.name,
        ).toBe(false);
      }
    }
  });

  it.each(['default-values.yaml', 'no-cluster-api-values.yaml'])(
    'gives Metacontroller, by aggregation, what the rendered controller objects need on parents, children and related types (ci/%s)',
    (file) => {
      const objects = rendered(file);
      const rules = aggregatedRules(objects);
      expectControllerNeeds(controllersOf(objects), rules);
      const related = relatedTypes(controllersOf(objects));
      expect(related.length, 'customize fixtures answered').toBeGreaterThan(0);
      for (const r of related)
        expect([...verbsOn(rules, r.group, r.resource)], `${r.controller} related ${r.resource}.${r.group}`).toEqual(expect.arrayContaining(READ));
      expect([...verbsOn(rules, 'metacontroller.k8s.io', 'compositecontrollers')]).toEqual(READ);
      expect([...verbsOn(rules, 'apiextensions.k8s.io', 'customresourcedefinitions')]).toEqual(READ);
    },
  );

  it('has a related-type table (hookAccess) for exactly the routes with a customize hook, and the recorded customize answers stay within it', () => {
    const withCustomize = Object.keys(hookRegistry)
      .filter((route) => hookRegistry[route]?.customize !== undefined)
      .sort();
    expect(Object.keys(hookAccess).sort()).toEqual(withCustomize);
    for (const { route, request } of customizeFixtures()) {
      const answer = hookRegistry[route]!.customize!(request, { config: DEFAULT_HOOK_CONFIG }) as {
        relatedResources: { apiVersion: string; resource: string }[];
      };
      const table = Object.values(hookAccess[route]!.related).map((t) => `${t.resource}.${t.group}`);
      for (const r of answer.relatedResources) expect(table, route).toContain(`${r.resource}.${groupOf(r.apiVersion)}`);
    }
  });

  it('lets Metacontroller read the Cluster API types the IPAM hooks relate to and set blockOwnerDeletion on IPAddressClaims, and the IPAM role nothing of Cluster API when switched off', () => {
    const on = aggregatedRules(rendered('default-values.yaml'));
    expect([...verbsOn(on, 'ipam.cluster.x-k8s.io', 'ipaddressclaims')]).toEqual(expect.arrayContaining([...READ, 'update']));
    expect([...verbsOn(on, 'ipam.cluster.x-k8s.io', 'ipaddressclaims/status')]).toContain('update');
    expect([...verbsOn(on, 'ipam.cluster.x-k8s.io', 'ipaddressclaims/finalizers')]).toEqual(['update']);
    expect([...verbsOn(on, 'ipam.cluster.x-k8s.io', 'ipaddresses')]).toEqual(expect.arrayContaining(READ));
    expect([...verbsOn(on, 'cluster.x-k8s.io', 'clusters')]).toEqual(READ);
    const off = rulesOf(named(rendered('no-cluster-api-values.yaml'), 'ClusterRole', 'ironhook-controllers-ipam')!);
    expect(off.length).toBeGreaterThan(0);
    expect(
      grants(off).filter((g) => {
        const [group = '', resource = ''] = g.split(' ');
        return isExternalClusterAPI(group, resource);
      }),
    ).toEqual([]);
  });

  it('lets the built-in view role read every CRD of the chart, and the edit role write only user-owned CRD types', () => {
    const objects = rendered('default-values.yaml');
    const view = rulesOf(named(objects, 'ClusterRole', 'ironhook-view')!);
    for (const crd of MANIFEST_CRDS) {
      const spec = crd.spec as { group: string; names: { plural: string } };
      expect([...verbsOn(view, spec.group, spec.names.plural)], crd.metadata.name).toEqual(READ);
    }
    const edit = rulesOf(named(objects, 'ClusterRole', 'ironhook-edit')!);
    for (const g of grants(edit)) {
      const [group = '', resource = ''] = g.split(' ');
      expect(CRD_TYPES, g).toContain(`${resource}.${group}`);
      expect(group, g).not.toBe('ironhook.dev');
    }
    expect(grants(edit).some((g) => g.startsWith('ipam.metal3.io ippools'))).toBe(true);
  });

  it("makes the bundled Metacontroller's ClusterRole aggregate exactly Ironhook's labels, not upstream's wildcard", () => {
    const values = parseDocument(readFileSync(join(CHART, 'values.yaml'), 'utf8')).toJS() as {
      rbac: { metacontroller: { aggregationLabels: Record<string, string> } };
      metacontroller: { clusterRole: { aggregationRule: { clusterRoleSelectors: { matchLabels: Record<string, string> }[] }; rules: unknown[] } };
    };
    expect(values.metacontroller.clusterRole.rules).toEqual([]);
    expect(values.metacontroller.clusterRole.aggregationRule.clusterRoleSelectors).toEqual([{ matchLabels: values.rbac.metacontroller.aggregationLabels }]);
  });

  it('lets an existing Metacontroller read the webhook Secrets in the release namespace only, and skips its base rules', () => {
    const objects = rendered('no-metacontroller-values.yaml');
    expect(named(objects, 'ClusterRole', 'ironhook-metacontroller-base')).toBeUndefined();
    const role = named(objects, 'Role', 'ironhook-metacontroller-webhook')!;
    expect(role.metadata.namespace).toBe(NAMESPACE);
    expect(rulesOf(role)).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] }]);
    const binding = named(objects, 'RoleBinding', 'ironhook-metacontroller-webhook')!;
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'metacontroller-metacontroller-helm', namespace: 'metacontroller' }]);
  });

  it('gives the driver pool exactly the API calls its code makes (drivers/kube/client.ts, drivers/agent/secret-store.ts)', () => {
    const objects = rendered('default-values.yaml');
    const cluster = rulesOf(named(objects, 'ClusterRole', 'ironhook-drivers')!);
    const lease = named(objects, 'Role', 'ironhook-drivers-leader-election')!;
    expect(lease.metadata.namespace).toBe(NAMESPACE);
    expect(grants([...cluster, ...rulesOf(lease)])).toEqual(poolApiCalls());
    expect(
      rulesOf(lease)
        .filter((r) => r.verbs?.includes('update') === true)
        .map((r) => r.resourceNames),
    ).toEqual([['ironhook-drivers']]);
    // list/watch for the hosts-per-state gauges; get/patch/update for the Cluster API requests.
    expect([...verbsOn(cluster, 'metal3.io', 'baremetalhosts')].sort()).toEqual(['get', 'list', 'patch', 'update', 'watch']);
    expect(named(objects, 'ClusterRoleBinding', 'ironhook-drivers')?.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'ironhook-drivers', namespace: NAMESPACE },
    ]);
    const memory = rulesOf(named(rendered('agent-api-values.yaml'), 'ClusterRole', 'ironhook-drivers')!);
    expect([...verbsOn(memory, '', 'secrets')].sort()).toEqual(['get', 'list', 'patch', 'watch']);
  });
});

describe('values', () => {
  it.each([
    ['hooks.replicas: "two"', { setString: ['hooks.replicas=two'] }, /hooks\/replicas.*want integer/],
    ['an unknown key', { set: ['hooks.replica=2'] }, /additional properties 'replica' not allowed|replica/],
    ['an unknown auth type', { set: ['webhook.auth.type=token'] }, /webhook\/auth\/type/],
    ['a hook base URL with a path', { set: ['controllers.hookBaseURL=http://x/hooks'] }, /hookBaseURL/],
    ['a bad hook timeout', { set: ['controllers.hookTimeout=10'] }, /hookTimeout/],
    ['an unknown agent state store', { set: ['drivers.agentAPI.stateStore=disk'] }, /stateStore/],
    ['an agent API URL with a path', { set: ['drivers.agentAPI.advertiseURL=http://x/v1'] }, /advertiseURL/],
    ['a non-boolean Cluster API switch', { setString: ['ipam.clusterAPI.enabled=yes'] }, /clusterAPI\/enabled/],
  ])('values.schema.json rejects %s', async (_name, options, message) => {
    const res = await helm(templateArgs(chart.dir, options));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(message);
  });

  it.each([
    ['TLS without a Secret', ['webhook.tls.enabled=true'], /webhook\.tls\.secretName is required/],
    ['client certificates without TLS', ['webhook.tls.clientCertificate.enabled=true'], /needs webhook\.tls\.enabled/],
    ['auth without a Secret', ['webhook.auth.type=bearer'], /webhook\.auth\.existingSecret is required/],
    ['no hook server and no hook URL', ['hooks.enabled=false'], /controllers\.hookBaseURL is required/],
    ['two Metacontrollers without leader election', ['metacontroller.replicas=2'], /--leader-election/],
    ['two driver pools without leader election', ['drivers.replicas=2', 'drivers.leaderElection.enabled=false'], /drivers\.leaderElection\.enabled/],
    ['an agent kernel without its ramdisk', ['drivers.deployImages.kernelURL=http://x/k'], /set together/],
    ['a pool shutdown longer than its grace period', ['drivers.shutdownTimeoutSeconds=60'], /terminationGracePeriodSeconds/],
    [
      'an existing Metacontroller that must read auth Secrets but is unnamed',
      ['metacontroller.enabled=false', 'webhook.auth.type=bearer', 'webhook.auth.existingSecret=s'],
      /rbac\.metacontroller\.serviceAccount/,
    ],
  ])('templates refuse %s with a clear message', async (_name, set, message) => {
    const res = await helm(templateArgs(chart.dir, { set }));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(message);
  });

  it('documents every key of values.yaml with a comment', () => {
    const doc = parseDocument(readFileSync(join(CHART, 'values.yaml'), 'utf8'));
    expect(undocumentedKeys(doc.contents, '')).toEqual([]);
  });
});

/** Keys without a comment; a `-- ` comment documents a whole value, any other comment a section. */
function undocumentedKeys(node: Node | null, path: string): string[] {
  if (!isMap(node)) return [];
  const missing: string[] = [];
  node.items.forEach((pair: Pair, i) => {
    const key = isScalar(pair.key) ? String(pair.key.value) : '?';
    const comment = ((isScalar(pair.key) ? pair.key.commentBefore : undefined) ?? (i === 0 ? node.commentBefore : undefined) ?? '').trim();
    const where = path === '' ? key : `${path}.${key}`;
    if (comment === '') missing.push(where);
    else if (!comment.split('\n').some((line) => line.trimStart().startsWith('--'))) missing.push(...undocumentedKeys(pair.value as Node | null, where));
  });
  return missing;
}

describe('NOTES.txt and helm tests', () => {
  it('says what was installed and how to check it', async () => {
    const notes = await renderNotes();
    expect(notes).toContain('kubectl get bmh -A');
    expect(notes).toContain(`kubectl -n ${NAMESPACE} get pods`);
    expect(notes).toContain(`${SERVICE_BASE}/hooks/`);
    expect(notes).toContain('helm test ironhook');
    expect(notes).toMatch(/metacontroller\.io\/\* finalizers/);
    expect(await renderNotes({ set: ['metacontroller.enabled=false'] })).toMatch(/no Metacontroller/);
  });

  it('ships helm test pods for readiness, and for auth when auth or client certificates are on', () => {
    const tests = (file: string): string[] =>
      ofKind(rendered(file), 'Pod')
        .filter((p) => p.metadata.annotations?.['helm.sh/hook'] === 'test')
        .map((p) => p.metadata.name);
    expect(tests('default-values.yaml')).toEqual(['ironhook-test-hooks-ready']);
    expect(tests('tls-auth-values.yaml')).toEqual(['ironhook-test-hooks-ready', 'ironhook-test-hooks-auth']);
  });
});
