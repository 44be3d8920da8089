// The loopback profile of a provider's components, for the test node (docs/dev/real-node.md):
// every pod runs on the host network at 127.0.0.1 and no Service routes anywhere, so
//   - the API server calls each admission and conversion webhook by URL, https://127.0.0.1:<the
//     container port its Service targets><path>, instead of through the Service;
//   - each serving Certificate for a Service name also names IP 127.0.0.1, which the API server
//     then checks;
//   - a Cluster API manager gets its own webhook, health and diagnostics ports on 127.0.0.1 (all
//     three managers default to 9443, 9440 and 8443, and host ports are exclusive).
// Only the copy in the tests' local repository changes; the providers' files stay as released.
import type { KubeObject } from '../scripts/clusterctl-repo.js';

export interface ManagerPorts {
  webhook: number;
  health: number;
  diagnostics: number;
}

interface ServiceReference {
  name: string;
  namespace: string;
  path?: string;
  port?: number;
}

interface ClientConfig {
  service?: ServiceReference;
  url?: string;
  caBundle?: string;
}

interface ContainerPort {
  name?: string;
  containerPort: number;
}

interface Container {
  name: string;
  args?: string[];
  ports?: ContainerPort[];
}

interface PodOwnerSpec {
  template: { metadata?: { labels?: Record<string, string> }; spec: { containers: Container[] } };
}

interface ServiceSpec {
  selector?: Record<string, string>;
  ports: { port: number; targetPort?: number | string }[];
}

/** The flags a Cluster API manager is told its ports with, and the container port each names. */
const MANAGER_FLAGS = ['--webhook-port=', '--health-addr=', '--diagnostics-address='];
const MANAGER_PORT_NAMES: Record<string, keyof ManagerPorts> = { 'webhook-server': 'webhook', healthz: 'health', metrics: 'diagnostics' };

function managerOnPorts(obj: KubeObject, ports: ManagerPorts): KubeObject {
  if (obj.kind !== 'Deployment') return obj;
  const spec = obj.spec as PodOwnerSpec;
  const containers = spec.template.spec.containers.map((container) => {
    if (container.name !== 'manager') return container;
    const args = (container.args ?? []).filter((arg) => !MANAGER_FLAGS.some((flag) => arg.startsWith(flag)));
    args.push(
      `--webhook-port=${String(ports.webhook)}`,
      `--health-addr=127.0.0.1:${String(ports.health)}`,
      `--diagnostics-address=127.0.0.1:${String(ports.diagnostics)}`,
    );
    const containerPorts = (container.ports ?? []).map((port) => {
      const key = MANAGER_PORT_NAMES[port.name ?? ''];
      return key === undefined ? port : { ...port, containerPort: ports[key] };
    });
    return { ...container, args, ports: containerPorts };
  });
  return { ...obj, spec: { ...spec, template: { ...spec.template, spec: { ...spec.template.spec, containers } } } };
}

const matches = (labels: Record<string, string>, selector: Record<string, string>): boolean =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

/** The port of a Service that a reference names (443 when it names none), or a throw. */
function servicePort(objects: readonly KubeObject[], ref: ServiceReference): { spec: ServiceSpec; target: number | string } {
  const service = objects.find((obj) => obj.kind === 'Service' && obj.metadata.name === ref.name && obj.metadata.namespace === ref.namespace);
  const spec = service?.spec as ServiceSpec | undefined;
  const wanted = ref.port ?? 443;
  const port = spec?.ports.find((candidate) => candidate.port === wanted);
  if (spec === undefined || port === undefined) throw new Error(`no Service ${ref.namespace}/${ref.name} with port ${String(wanted)}`);
  return { spec, target: port.targetPort ?? port.port };
}

/** The number of the container port named `name` in a Deployment of `namespace` whose pods `selector` selects. */
function namedContainerPort(objects: readonly KubeObject[], namespace: string | undefined, selector: Record<string, string>, name: string): number | undefined {
  const templates = objects
    .filter((obj) => obj.kind === 'Deployment' && obj.metadata.namespace === namespace)
    .map((owner) => (owner.spec as PodOwnerSpec).template)
    .filter((template) => matches(template.metadata?.labels ?? {}, selector));
  const named = templates.flatMap((template) => template.spec.containers.flatMap((container) => container.ports ?? [])).find((port) => port.name === name);
  return named?.containerPort;
}

/** The container port a Service's port leads to, through its selector to a Deployment's pods. */
function servicePortResolver(objects: readonly KubeObject[]): (ref: ServiceReference) => number {
  return (ref) => {
    const { spec, target } = servicePort(objects, ref);
    if (typeof target === 'number') return target;
    const port = namedContainerPort(objects, ref.namespace, spec.selector ?? {}, target);
    if (port === undefined) throw new Error(`Service ${ref.namespace}/${ref.name} targets port ${target}, which no Deployment it selects names`);
    return port;
  };
}

function byURL(config: ClientConfig, resolve: (ref: ServiceReference) => number): ClientConfig {
  if (config.service === undefined) return config;
  const { service, ...rest } = config;
  return { ...rest, url: `https://127.0.0.1:${String(resolve(service))}${service.path ?? ''}` };
}

interface WebhookSpecs {
  webhooks?: { clientConfig: ClientConfig }[];
  spec?: { conversion?: { webhook?: { clientConfig?: ClientConfig } } };
}

function webhooksByURL(obj: KubeObject, resolve: (ref: ServiceReference) => number): KubeObject {
  const specs = obj as KubeObject & WebhookSpecs;
  if (obj.kind === 'MutatingWebhookConfiguration' || obj.kind === 'ValidatingWebhookConfiguration') {
    return { ...obj, webhooks: (specs.webhooks ?? []).map((webhook) => ({ ...webhook, clientConfig: byURL(webhook.clientConfig, resolve) })) };
  }
  const conversion = specs.spec?.conversion;
  const clientConfig = conversion?.webhook?.clientConfig;
  if (obj.kind !== 'CustomResourceDefinition' || conversion === undefined || clientConfig === undefined) return obj;
  return { ...obj, spec: { ...specs.spec, conversion: { ...conversion, webhook: { ...conversion.webhook, clientConfig: byURL(clientConfig, resolve) } } } };
}

function certificateForLoopback(obj: KubeObject): KubeObject {
  const spec = obj.spec as { dnsNames?: string[]; ipAddresses?: string[] } | undefined;
  if (obj.kind !== 'Certificate' || !(spec?.dnsNames ?? []).some((name) => name.includes('.svc'))) return obj;
  return { ...obj, spec: { ...spec, ipAddresses: [...new Set([...(spec?.ipAddresses ?? []), '127.0.0.1'])] } };
}

/** The components in the loopback profile; `manager` gives a Cluster API manager its ports. */
export function loopbackComponents(objects: readonly KubeObject[], manager?: ManagerPorts): KubeObject[] {
  const placed = manager === undefined ? [...objects] : objects.map((obj) => managerOnPorts(obj, manager));
  const resolve = servicePortResolver(placed);
  return placed.map((obj) => certificateForLoopback(webhooksByURL(obj, resolve)));
}
