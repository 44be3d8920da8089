// The chart's CRD conversion webhook wiring, through the real helm binary: the hook server's
// HTTPS conversion listener (hooks.conversion) behind a Service port the CRDs call, with a CA and
// serving certificate the chart generates (checked with node:crypto) or cert-manager issues (CA
// injected into the CRDs), and the old path (the hook port) when the listener is switched off.
// Which CRDs have conversion webhooks comes from manifests/crds, never from this file.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  helm,
  manifestObjects,
  NAMESPACE,
  prepareChart,
  removeScratchCharts,
  render,
  renderNotes,
  templateArgs,
  type PreparedChart,
  type RenderedObject,
} from '../support/helm.js';

interface ClientConfig {
  service?: { name?: string; namespace?: string; path?: string; port?: number };
  caBundle?: string;
  url?: string;
}
interface Container {
  name: string;
  ports?: { name: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  volumes?: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
}

const clientConfigOf = (crd: RenderedObject): ClientConfig | undefined =>
  (crd.spec as { conversion?: { strategy?: string; webhook?: { clientConfig?: ClientConfig } } }).conversion?.webhook?.clientConfig;
const isWebhook = (crd: RenderedObject): boolean => (crd.spec as { conversion?: { strategy?: string } }).conversion?.strategy === 'Webhook';
const WEBHOOK_CRDS = manifestObjects('crds').filter(isWebhook);
const pathOf = (name: string): string | undefined => clientConfigOf(WEBHOOK_CRDS.find((c) => c.metadata.name === name)!)?.service?.path;

const ofKind = (objects: RenderedObject[], kind: string): RenderedObject[] => objects.filter((o) => o.kind === kind);
const named = (objects: RenderedObject[], kind: string, name: string): RenderedObject | undefined =>
  objects.find((o) => o.kind === kind && o.metadata.name === name);
const webhookCRDs = (objects: RenderedObject[]): RenderedObject[] => ofKind(objects, 'CustomResourceDefinition').filter(isWebhook);
const hooksPod = (objects: RenderedObject[]): PodSpec =>
  (named(objects, 'Deployment', 'ironhook-hooks')!.spec as { template: { spec: PodSpec } }).template.spec;
const envOf = (c: Container): Record<string, string | undefined> => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
const servicePorts = (objects: RenderedObject[]): Record<string, unknown>[] =>
  (named(objects, 'Service', 'ironhook-hooks')!.spec as { ports: Record<string, unknown>[] }).ports;
const secretData = (o: RenderedObject): Record<string, string> =>
  Object.fromEntries(Object.entries(o.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

const SECRET = 'ironhook-hooks-conversion-tls';
const CERTIFICATE = 'ironhook-hooks-conversion';
const SERVICE_NAMES = ['ironhook-hooks', `ironhook-hooks.${NAMESPACE}`, `ironhook-hooks.${NAMESPACE}.svc`, `ironhook-hooks.${NAMESPACE}.svc.cluster.local`];
const CONVERSION_ENV = ['CONVERSION_TLS_CERT_FILE', 'CONVERSION_TLS_KEY_FILE', 'CONVERSION_TLS_PORT'];

let chart: PreparedChart;
let defaults: RenderedObject[];

beforeAll(async () => {
  chart = prepareChart();
  defaults = await render(chart.dir);
}, 1_200_000);

afterAll(() => {
  removeScratchCharts();
});

describe('the conversion listener with the chart-generated certificate (default)', () => {
  it('has CRDs with conversion webhooks to check', () => {
    expect(WEBHOOK_CRDS.length).toBeGreaterThan(0);
    expect(
      webhookCRDs(defaults)
        .map((c) => c.metadata.name)
        .sort(),
    ).toEqual(WEBHOOK_CRDS.map((c) => c.metadata.name).sort());
  });

  it('keeps a CA and a serving certificate for every name of the hook Service in a kubernetes.io/tls Secret', () => {
    const secret = named(defaults, 'Secret', SECRET)!;
    expect(secret.type).toBe('kubernetes.io/tls');
    const data = secretData(secret);
    expect(Object.keys(data).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
    const [ca, leaf] = [new X509Certificate(data['ca.crt']!), new X509Certificate(data['tls.crt']!)];
    expect(ca.ca).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.verify(ca.publicKey), 'signed by the CA').toBe(true);
    expect(leaf.checkPrivateKey(createPrivateKey(data['tls.key']!)), 'the key of the certificate').toBe(true);
    for (const name of SERVICE_NAMES) expect(leaf.checkHost(name), name).toBe(name);
    const days = (Date.parse(leaf.validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(3640);
  });

  it('points every conversion webhook at the conversion Service port with that CA, kept on uninstall', () => {
    const ca = secretData(named(defaults, 'Secret', SECRET)!)['ca.crt']!;
    for (const crd of webhookCRDs(defaults)) {
      expect(clientConfigOf(crd), crd.metadata.name).toEqual({
        service: { name: 'ironhook-hooks', namespace: NAMESPACE, port: 443, path: pathOf(crd.metadata.name) },
        caBundle: Buffer.from(ca).toString('base64'),
      });
      expect(crd.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    }
  });

  it('runs the listener on its own container port with the Secret mounted as a directory, next to a plain HTTP hook port', () => {
    const pod = hooksPod(defaults);
    const [c] = pod.containers;
    expect(c?.ports).toEqual([
      { name: 'http', containerPort: 8080, protocol: 'TCP' },
      { name: 'conversion', containerPort: 9443, protocol: 'TCP' },
    ]);
    const env = envOf(c!);
    expect(env).toMatchObject({
      CONVERSION_TLS_PORT: '9443',
      CONVERSION_TLS_CERT_FILE: '/etc/ironhook/conversion-tls/tls.crt',
      CONVERSION_TLS_KEY_FILE: '/etc/ironhook/conversion-tls/tls.key',
    });
    expect(env.TLS_CERT_FILE).toBeUndefined();
    expect(c?.volumeMounts).toContainEqual({ name: 'conversion-tls', mountPath: '/etc/ironhook/conversion-tls', readOnly: true });
    expect(pod.volumes?.find((v) => v.name === 'conversion-tls')?.secret).toMatchObject({
      secretName: SECRET,
      items: [
        { key: 'tls.crt', path: 'tls.crt' },
        { key: 'tls.key', path: 'tls.key' },
      ],
    });
  });

  it('exposes the listener on the hook Service as HTTPS and admits any source to it in the NetworkPolicy (the API server is not a pod)', () => {
    expect(servicePorts(defaults)).toContainEqual({ name: 'conversion', port: 443, targetPort: 'conversion', protocol: 'TCP', appProtocol: 'https' });
    const ingress = (named(defaults, 'NetworkPolicy', 'ironhook-hooks')!.spec as { ingress: { from?: unknown[]; ports: unknown[] }[] }).ingress;
    expect(ingress).toContainEqual({ ports: [{ protocol: 'TCP', port: 'conversion' }] });
    expect(ingress.filter((rule) => rule.from === undefined)).toHaveLength(1);
  });

  it('follows hooks.conversion ports and certificateValidityDays', async () => {
    const objects = await render(chart.dir, {
      set: ['hooks.conversion.port=10443', 'hooks.conversion.service.port=8443', 'hooks.conversion.certificateValidityDays=30'],
    });
    expect(envOf(hooksPod(objects).containers[0]!).CONVERSION_TLS_PORT).toBe('10443');
    expect(servicePorts(objects)).toContainEqual(expect.objectContaining({ name: 'conversion', port: 8443 }));
    for (const crd of webhookCRDs(objects)) expect(clientConfigOf(crd)?.service?.port).toBe(8443);
    const leaf = new X509Certificate(secretData(named(objects, 'Secret', SECRET)!)['tls.crt']!);
    expect((Date.parse(leaf.validTo) - Date.now()) / 86_400_000).toBeLessThanOrEqual(30);
  });
});

describe('the conversion listener with cert-manager', () => {
  it("issues the certificate from the chart's self-signed CA chain and lets the CA injector fill the CRDs", async () => {
    const objects = await render(chart.dir, { values: ['charts/ironhook/ci/cert-manager-values.yaml'] });
    expect(named(objects, 'Secret', SECRET)).toBeUndefined();
    const certificate = named(objects, 'Certificate', CERTIFICATE)!;
    expect(certificate.spec).toMatchObject({
      secretName: SECRET,
      dnsNames: SERVICE_NAMES,
      issuerRef: { name: 'ironhook-hooks-conversion-ca', kind: 'Issuer', group: 'cert-manager.io' },
    });
    expect(named(objects, 'Certificate', 'ironhook-hooks-conversion-ca')?.spec).toMatchObject({
      isCA: true,
      secretName: 'ironhook-hooks-conversion-ca',
      issuerRef: { name: 'ironhook-hooks-conversion-selfsigned' },
    });
    expect(named(objects, 'Issuer', 'ironhook-hooks-conversion-selfsigned')?.spec).toEqual({ selfSigned: {} });
    expect(named(objects, 'Issuer', 'ironhook-hooks-conversion-ca')?.spec).toEqual({ ca: { secretName: 'ironhook-hooks-conversion-ca' } });
    expect(hooksPod(objects).volumes?.find((v) => v.name === 'conversion-tls')?.secret?.secretName).toBe(SECRET);
    for (const crd of webhookCRDs(objects)) {
      expect(crd.metadata.annotations, crd.metadata.name).toEqual({
        'helm.sh/resource-policy': 'keep',
        'cert-manager.io/inject-ca-from': `${NAMESPACE}/${CERTIFICATE}`,
      });
      expect(clientConfigOf(crd)?.caBundle, crd.metadata.name).toBeUndefined();
    }
  });

  it('uses a given issuer without creating any, and an explicit crds.conversion.caBundle instead of injection', async () => {
    const set = ['certManager.enabled=true', 'certManager.issuerRef.name=corp-ca', 'certManager.issuerRef.kind=ClusterIssuer', 'crds.conversion.caBundle=Q0E='];
    const objects = await render(chart.dir, { set });
    expect(ofKind(objects, 'Issuer')).toEqual([]);
    expect(ofKind(objects, 'Certificate').map((c) => c.metadata.name)).toEqual([CERTIFICATE]);
    expect(named(objects, 'Certificate', CERTIFICATE)?.spec).toMatchObject({ issuerRef: { name: 'corp-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' } });
    for (const crd of webhookCRDs(objects)) {
      expect(crd.metadata.annotations?.['cert-manager.io/inject-ca-from']).toBeUndefined();
      expect(clientConfigOf(crd)?.caBundle).toBe('Q0E=');
    }
  });
});

describe('without the conversion listener', () => {
  it('renders no certificate, port or settings for it, and points the webhooks at the hook port as before', async () => {
    const objects = await render(chart.dir, { set: ['hooks.conversion.enabled=false'] });
    expect(named(objects, 'Secret', SECRET)).toBeUndefined();
    expect(ofKind(objects, 'Certificate')).toEqual([]);
    expect(servicePorts(objects).map((p) => p.name)).toEqual(['http']);
    const env = envOf(hooksPod(objects).containers[0]!);
    for (const name of CONVERSION_ENV) expect(env[name], name).toBeUndefined();
    for (const crd of webhookCRDs(objects))
      expect(clientConfigOf(crd)).toEqual({ service: { name: 'ironhook-hooks', namespace: NAMESPACE, port: 8080, path: pathOf(crd.metadata.name) } });
  });

  it('renders no certificate when the hook server runs elsewhere (hooks.enabled=false)', async () => {
    const objects = await render(chart.dir, { set: ['hooks.enabled=false', 'controllers.hookBaseURL=http://127.0.0.1:8080'] });
    expect(named(objects, 'Secret', SECRET)).toBeUndefined();
    for (const crd of webhookCRDs(objects)) expect(clientConfigOf(crd)?.caBundle).toBeUndefined();
  });
});

describe('values', () => {
  it.each([
    ['a conversion port of 0', ['hooks.conversion.port=0'], /conversion\/port/],
    ['an issuer kind cert-manager does not have', ['certManager.issuerRef.kind=Vault'], /issuerRef\/kind/],
    ['a certificate duration that is not a Go duration', ['certManager.duration=1y'], /certManager\/duration/],
  ])('values.schema.json rejects %s', async (_name, set, message) => {
    const res = await helm(templateArgs(chart.dir, { set }));
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(message);
  });
});

describe('NOTES.txt', () => {
  it.each([
    { name: 'the listener (default)', set: [], says: /call the hook server's HTTPS conversion listener through the Service ironhook-hooks:443/u },
    { name: 'no listener, plain HTTP hooks', set: ['hooks.conversion.enabled=false'], says: /need webhook\.tls\.enabled/u },
  ])('says how the conversion webhooks are served: $name', async ({ set, says }) => {
    expect(await renderNotes({ set })).toMatch(says);
  });
});
