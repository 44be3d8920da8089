// The bench's view of the hosts: a watch (an informer) on the namespace's BareMetalHosts, each
// host's current provisioning state, when it first entered each state, and how many hosts sat in
// each state every few seconds (the plot's samples). A watch costs the apiserver one stream,
// where polling 1000 hosts would cost a multi-megabyte list a second.
import { CustomObjectsApi, KubeConfig, makeInformer, type Informer, type KubernetesObject } from '@kubernetes/client-node';

interface HostObject extends KubernetesObject {
  status?: { provisioning?: { state?: string }; errorMessage?: string; errorType?: string };
}

export interface StateSample {
  /** Seconds since the timeline started. */
  t: number;
  hostsByState: Record<string, number>;
}

/** What the bench reports of a state: when the first and the last host reached it. */
export interface Reached {
  hosts: number;
  firstSeconds: number;
  lastSeconds: number;
}

function stateOf(host: HostObject): string {
  const state = host.status?.provisioning?.state ?? '';
  return state === '' ? 'none' : state;
}

function errorOf(host: HostObject): string | undefined {
  const message = host.status?.errorMessage ?? '';
  return message === '' ? undefined : `${host.status?.errorType ?? ''} ${message}`.trim();
}

export class HostTimeline {
  readonly samples: StateSample[] = [];
  private readonly state = new Map<string, string>();
  private readonly errors = new Map<string, string>();
  private readonly entered = new Map<string, Map<string, number>>();
  private informer: Informer<HostObject> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly started: number;

  constructor(
    private readonly kubeconfig: string,
    private readonly namespace: string,
    private readonly now: () => number = Date.now,
  ) {
    this.started = now();
  }

  /** Seconds since the timeline started. */
  seconds(): number {
    return (this.now() - this.started) / 1000;
  }

  async start(sampleEveryMs = 5_000): Promise<void> {
    const config = new KubeConfig();
    config.loadFromFile(this.kubeconfig);
    const api = config.makeApiClient(CustomObjectsApi);
    const [group, version, plural] = ['metal3.io', 'v1alpha1', 'baremetalhosts'];
    type HostList = { items: HostObject[]; metadata: { resourceVersion?: string } };
    const list = async (): Promise<HostList> => api.listNamespacedCustomObject({ group, version, namespace: this.namespace, plural }) as Promise<HostList>;
    this.informer = makeInformer<HostObject>(config, `/apis/${group}/${version}/namespaces/${this.namespace}/${plural}`, list);
    this.informer.on('add', (host) => {
      this.seen(host);
    });
    this.informer.on('update', (host) => {
      this.seen(host);
    });
    this.informer.on('delete', (host) => {
      this.gone(host);
    });
    this.informer.on('error', () => {
      // The informer stops on an error; start it again (the apiserver is not restarted in a bench).
      setTimeout(() => void this.informer?.start(), 1_000);
    });
    await this.informer.start();
    this.timer = setInterval(() => {
      this.sample();
    }, sampleEveryMs);
    this.sample();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.sample();
    await this.informer?.stop();
  }

  /** Hosts now in each state. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const state of this.state.values()) out[state] = (out[state] ?? 0) + 1;
    return out;
  }

  hostCount(): number {
    return this.state.size;
  }

  /** The hosts in `state` now. */
  inState(state: string): number {
    return this.counts()[state] ?? 0;
  }

  /** Up to `limit` hosts with an error message, for a failure report. */
  errorsNow(limit = 5): string[] {
    return [...this.errors.entries()].slice(0, limit).map(([name, message]) => `${name}: ${message}`);
  }

  /** When hosts reached `state`, counted from `since` (seconds on this timeline). */
  reached(state: string, since: number): Reached | undefined {
    const times = this.entries(state, since);
    if (times.length === 0) return undefined;
    return { hosts: times.length, firstSeconds: Math.min(...times), lastSeconds: Math.max(...times) };
  }

  /** Hosts that reached `state` in each minute after `since`. */
  perMinute(state: string, since: number): number[] {
    const out: number[] = [];
    for (const t of this.entries(state, since)) {
      const minute = Math.floor(t / 60);
      while (out.length <= minute) out.push(0);
      out[minute] = (out[minute] ?? 0) + 1;
    }
    return out;
  }

  /** Seconds after `since` at which each host (still known) last entered `state`. */
  private entries(state: string, since: number): number[] {
    return [...this.entered.values()].map((states) => states.get(state)).flatMap((t) => (t === undefined || t < since ? [] : [t - since]));
  }

  private seen(host: HostObject): void {
    const name = host.metadata?.name ?? '';
    const label = stateOf(host);
    const entered = this.entered.get(name) ?? new Map<string, number>();
    // A state entered again (available after deprovisioning) counts from its latest entry.
    if (this.state.get(name) !== label) entered.set(label, this.seconds());
    this.entered.set(name, entered);
    this.state.set(name, label);
    const error = errorOf(host);
    if (error === undefined) this.errors.delete(name);
    else this.errors.set(name, error);
  }

  private gone(host: HostObject): void {
    const name = host.metadata?.name ?? '';
    this.state.delete(name);
    this.errors.delete(name);
  }

  private sample(): void {
    this.samples.push({ t: Math.round(this.seconds()), hostsByState: this.counts() });
  }
}
