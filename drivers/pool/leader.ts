// Lease-based leader election (ADR 0022): one replica holds the coordination.k8s.io/v1 Lease
// "ironhook-driver-pool" and executes requests; the others wait. Like client-go: a lease is
// expired when its record has not changed for leaseDuration on *this* replica's clock (no clock
// skew between replicas matters), the holder renews every retryPeriod and gives up leadership
// when it could not renew for renewDeadline, and a graceful stop releases the lease so another
// replica takes over at once. Releasing deletes the Lease (only the version this replica holds):
// a standby creates it anew at once. The holder's pod owns the Lease, so it also goes with the last
// leader's pod when that could not release it (killed, or its RBAC already gone in an uninstall).
import { formatTime } from '../../domain/backoff.js';
import type { Clock, Timer } from './clock.js';
import type { LeaderElectionConfig } from './config.js';
import { isConflict } from '../kube/errors.js';
import type { KubePort, Lease } from '../kube/port.js';
import type { Logger } from './logging.js';
import { errorFields } from './logging.js';

export interface LeaderCallbacks {
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

function microTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

export class LeaderElector {
  private timer: Timer | undefined;
  private leading = false;
  private stopped = false;
  private lastRenew = 0;
  private observed: { record: string; at: number } | undefined;
  private lease: Lease | undefined;

  private readonly kube: KubePort;
  private readonly clock: Clock;
  private readonly config: LeaderElectionConfig;
  private readonly callbacks: LeaderCallbacks;
  private readonly logger: Logger;

  constructor(options: { kube: KubePort; clock: Clock; config: LeaderElectionConfig; callbacks: LeaderCallbacks; logger: Logger }) {
    ({ kube: this.kube, clock: this.clock, config: this.config, callbacks: this.callbacks, logger: this.logger } = options);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    this.tick();
  }

  private tick(): void {
    if (this.stopped) {
      return;
    }
    void this.attempt().finally(() => {
      if (!this.stopped) {
        this.timer = this.clock.setTimer(this.config.retryPeriodMs, () => {
          this.tick();
        });
      }
    });
  }

  /** One acquire-or-renew round. Exposed for tests. */
  async attempt(): Promise<void> {
    let acquired = false;
    try {
      acquired = await this.tryAcquireOrRenew();
    } catch (error) {
      this.logger.warn({ lease: this.config.name, err: errorFields(error) }, 'leader election round failed');
    }
    const now = this.clock.now();
    if (acquired) {
      this.lastRenew = now;
      if (!this.leading) {
        this.leading = true;
        this.logger.info({ lease: this.config.name, identity: this.config.identity }, 'became the leader');
        this.callbacks.onStartedLeading();
      }
    } else if (this.leading && now - this.lastRenew > this.config.renewDeadlineMs) {
      this.leading = false;
      this.logger.error({ lease: this.config.name }, 'could not renew the lease in time; stopping work');
      this.callbacks.onStoppedLeading();
    }
  }

  private expired(lease: Lease, now: number): boolean {
    const record = `${lease.spec.holderIdentity ?? ''}|${lease.spec.renewTime ?? ''}|${lease.metadata.resourceVersion ?? ''}`;
    if (this.observed?.record !== record) {
      this.observed = { record, at: now };
    }
    const duration = (lease.spec.leaseDurationSeconds ?? this.config.leaseDurationMs / 1000) * 1000;
    return this.observed.at + duration <= now;
  }

  private desired(existing: Lease | undefined, now: number): Lease {
    const mine = existing?.spec.holderIdentity === this.config.identity;
    const transitions = existing?.spec.leaseTransitions ?? 0;
    const { pod } = this.config;
    return {
      metadata: {
        name: this.config.name,
        namespace: this.config.namespace,
        resourceVersion: existing?.metadata.resourceVersion,
        ...(pod === undefined ? {} : { ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: pod.name, uid: pod.uid }] }),
      },
      spec: {
        holderIdentity: this.config.identity,
        leaseDurationSeconds: Math.ceil(this.config.leaseDurationMs / 1000),
        acquireTime: mine ? existing.spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: mine || existing === undefined ? transitions : transitions + 1,
      },
    };
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.clock.now();
    const existing = await this.kube.getLease(this.config.namespace, this.config.name);
    if (existing === undefined) {
      this.lease = await this.kube.createLease(this.desired(undefined, now));
      return true;
    }
    const holder = existing.spec.holderIdentity ?? '';
    if (holder !== '' && holder !== this.config.identity && !this.expired(existing, now)) {
      return false;
    }
    try {
      this.lease = await this.kube.replaceLease(this.desired(existing, now));
      return true;
    } catch (error) {
      if (isConflict(error)) {
        return false;
      }
      throw error;
    }
  }

  /** Stop electing; when leading, release the lease (deleted) so a standby takes over. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    if (!this.leading || this.lease === undefined) {
      return;
    }
    this.leading = false;
    const now = this.clock.now();
    try {
      const current = (await this.kube.getLease(this.config.namespace, this.config.name)) ?? this.lease;
      if (current.spec.holderIdentity === this.config.identity) {
        await this.kube.deleteLease(current);
      }
      this.logger.info({ lease: this.config.name, at: formatTime(now) }, 'released the lease');
    } catch (error) {
      this.logger.warn({ lease: this.config.name, err: errorFields(error) }, 'could not release the lease; it expires on its own');
    }
  }
}
