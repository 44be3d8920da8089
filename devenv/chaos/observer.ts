// The soak's eyes on the cluster, one poll a second: the BareMetalHosts of the soak namespace
// (the load waits on this cache), every HostOperation ever seen with its start and completion
// times (kept after Metacontroller deletes it, to attribute BMC actions to requests), and the
// driver pool's Lease holder (leadership changes). Errors while the apiserver is down are skipped.
import type { ApiGet } from './api.js';

export interface HostSnapshot {
  name: string;
  state: string;
  poweredOn: boolean | undefined;
  errorType: string;
  errorMessage: string;
  annotations: Record<string, string>;
}

export interface RequestRecord {
  name: string;
  uid: string;
  host: string;
  action: string;
  sequence: number;
  phase: string;
  /** RFC 3339, second precision, as the pool writes them. */
  startTime?: string;
  completionTime?: string;
  steps: string[];
  /** BMC calls repeated inside this request's steps after a transient failure (from the step messages). */
  bmcRepeats: number;
}

interface OperationItem {
  metadata: { name: string; uid: string };
  spec: { action: string; sequence: number; host: { name: string } };
  status?: { phase?: string; startTime?: string; completionTime?: string; steps?: { name: string; message?: string }[] };
}

interface HostItem {
  metadata: { name: string; annotations?: Record<string, string> };
  status?: { poweredOn?: boolean; errorType?: string; errorMessage?: string; provisioning?: { state?: string } };
}

const LEASE_PATH = '/apis/coordination.k8s.io/v1/namespaces/default/leases/ironhook-driver-pool';

export class ClusterObserver {
  readonly hosts = new Map<string, HostSnapshot>();
  readonly requests = new Map<string, RequestRecord>();
  readonly leaders: { holder: string; at: number }[] = [];
  polls = 0;
  failedPolls = 0;
  /** When the last successful poll started (Date.now()). */
  freshAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly get: ApiGet,
    private readonly namespace: string,
  ) {}

  start(intervalMs = 1_000): void {
    const tick = (): void => {
      this.running = this.poll().finally(() => {
        if (this.timer !== undefined) this.timer = setTimeout(tick, intervalMs);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Leadership changes seen (the first holder is not a change). */
  get leaderChanges(): number {
    return Math.max(0, this.leaders.length - 1);
  }

  async poll(): Promise<void> {
    this.polls += 1;
    const started = Date.now();
    try {
      const [hosts, operations] = await Promise.all([
        this.get<{ items: HostItem[] }>(`/apis/metal3.io/v1alpha1/namespaces/${this.namespace}/baremetalhosts`),
        this.get<{ items: OperationItem[] }>(`/apis/ironhook.dev/v1alpha1/namespaces/${this.namespace}/hostoperations`),
      ]);
      this.hosts.clear();
      for (const item of hosts.items) this.hosts.set(item.metadata.name, snapshot(item));
      for (const item of operations.items) this.requests.set(item.metadata.uid, { ...this.requests.get(item.metadata.uid), ...record(item) });
      this.freshAt = started;
      await this.pollLease();
    } catch {
      this.failedPolls += 1;
    }
  }

  private async pollLease(): Promise<void> {
    const lease = await this.get<{ spec?: { holderIdentity?: string } }>(LEASE_PATH).catch(() => undefined);
    const holder = lease?.spec?.holderIdentity ?? '';
    if (holder !== '' && this.leaders.at(-1)?.holder !== holder) this.leaders.push({ holder, at: Date.now() });
  }
}

function snapshot(item: HostItem): HostSnapshot {
  return {
    name: item.metadata.name,
    state: item.status?.provisioning?.state ?? '',
    poweredOn: item.status?.poweredOn,
    errorType: item.status?.errorType ?? '',
    errorMessage: item.status?.errorMessage ?? '',
    annotations: item.metadata.annotations ?? {},
  };
}

function record(item: OperationItem): RequestRecord {
  const status = item.status ?? {};
  return {
    name: item.metadata.name,
    uid: item.metadata.uid,
    host: item.spec.host.name,
    action: item.spec.action,
    sequence: item.spec.sequence,
    phase: status.phase ?? 'Pending',
    ...(status.startTime === undefined ? {} : { startTime: status.startTime }),
    ...(status.completionTime === undefined ? {} : { completionTime: status.completionTime }),
    steps: (status.steps ?? []).map((step) => step.name),
    bmcRepeats: (status.steps ?? []).reduce((sum, step) => sum + repeatsOf(step.message), 0),
  };
}

/** "… (after 2 transient BMC failures)": the count a BMC step appends when it ran again. */
function repeatsOf(message: string | undefined): number {
  const match = /after (\d+) transient BMC failures?\)?$/u.exec(message ?? '');
  return match === null ? 0 : Number(match[1]);
}
