// Prometheus metrics of the driver pool: upstream's metal3_* names and labels
// where the pool does what BMO did, plus the pool's own ironhook_* gauges and BMC call latency.
// One Registry per pool, never prom-client's global one.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { FleetSnapshot } from './fleet.js';

const HOST_LABELS = ['namespace', 'host'] as const;
// BMC calls: tens of milliseconds on a LAN, seconds for slow BMCs, up to the call timeout.
const BMC_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
// Operations: seconds (power) to an hour (disk image deployment).
const OPERATION_BUCKETS = [1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600];

type HostLabel = (typeof HOST_LABELS)[number];

export interface PoolMetrics {
  readonly registry: Registry;
  readonly powerChanges: Counter<HostLabel | 'on_off'>;
  readonly credentialsMissing: Counter;
  readonly credentialsInvalid: Counter;
  readonly credentialsUnhandledError: Counter;
  readonly credentialsUpdated: Counter;
  readonly credentialsNoManagementAccess: Counter;
  readonly operationDuration: Record<'register' | 'inspect' | 'provision' | 'deprovision', Histogram<HostLabel>>;
  readonly delayedProvisioning: Counter<HostLabel>;
  readonly delayedDeprovisioning: Counter<HostLabel>;
  readonly hostErrors: Counter<'error_type'>;
  readonly queueDepth: Gauge;
  readonly inFlight: Gauge;
  readonly delayed: Gauge;
  readonly operations: Counter<'action' | 'result'>;
  readonly bmcRequestDuration: Histogram<'driver' | 'op' | 'result'>;
  readonly watchRestarts: Counter<'resource' | 'reason'>;
  readonly monitorRefreshes: Counter<'result'>;
  readonly leader: Gauge;
  /** Where the ironhook_hosts* gauges read from: the leader's pool attaches its fleet, none on a standby. */
  readonly fleet: { source?: () => FleetSnapshot };
  /** The host labels, or empty values when per-host labels are turned off (METRICS_HOST_LABELS). */
  hostLabels(namespace: string, host: string): Record<HostLabel, string>;
}

function histogram(registry: Registry, action: string): Histogram<HostLabel> {
  return new Histogram({
    name: `metal3_operation_${action}_duration_seconds`,
    help: `Length of time per ${action} operation.`,
    labelNames: HOST_LABELS,
    buckets: OPERATION_BUCKETS,
    registers: [registry],
  });
}

function counter(registry: Registry, name: string, help: string): Counter {
  return new Counter({ name, help, registers: [registry] });
}

function credentialCounters(
  registry: Registry,
): Pick<PoolMetrics, 'credentialsMissing' | 'credentialsInvalid' | 'credentialsUnhandledError' | 'credentialsUpdated' | 'credentialsNoManagementAccess'> {
  return {
    credentialsMissing: counter(registry, 'metal3_credentials_missing_total', 'Number of times a host management credential secret was missing.'),
    credentialsInvalid: counter(registry, 'metal3_credentials_invalid_total', 'Number of times a host management credential secret was invalid.'),
    credentialsUnhandledError: counter(
      registry,
      'metal3_credentials_unhandled_error_total',
      'Number of times getting a host management credential secret failed in an unhandled way.',
    ),
    credentialsUpdated: counter(registry, 'metal3_credentials_updated_total', 'Number of times a host management credential secret was updated.'),
    credentialsNoManagementAccess: counter(
      registry,
      'metal3_credentials_no_management_access_total',
      'Number of times a host management credential secret was rejected by the BMC.',
    ),
  };
}

function poolGauges(registry: Registry): Pick<PoolMetrics, 'queueDepth' | 'inFlight' | 'delayed' | 'leader'> {
  const registers = [registry];
  return {
    queueDepth: new Gauge({ name: 'ironhook_pool_queue_depth', help: 'Requests admitted and waiting for a worker.', registers }),
    inFlight: new Gauge({ name: 'ironhook_pool_in_flight', help: 'Requests being executed.', registers }),
    delayed: new Gauge({ name: 'ironhook_pool_delayed', help: 'Requests waiting for a provisioning slot (phase Delayed).', registers }),
    leader: new Gauge({ name: 'ironhook_pool_is_leader', help: 'Whether this replica holds the lease and executes requests (1) or stands by (0).', registers }),
  };
}

/** A gauge whose series are set from the fleet on every scrape (none while no fleet is attached). */
function fleetGauge(
  registry: Registry,
  fleet: PoolMetrics['fleet'],
  config: { name: string; help: string; label: string; pick: (s: FleetSnapshot) => Map<string, number> },
): void {
  new Gauge({
    name: config.name,
    help: config.help,
    labelNames: [config.label],
    registers: [registry],
    collect() {
      this.reset();
      const snapshot = fleet.source?.();
      for (const [value, count] of snapshot === undefined ? [] : config.pick(snapshot)) {
        this.set({ [config.label]: value }, count);
      }
    },
  });
}

function fleetGauges(registry: Registry): PoolMetrics['fleet'] {
  const fleet: PoolMetrics['fleet'] = {};
  fleetGauge(registry, fleet, {
    name: 'ironhook_hosts',
    help: 'BareMetalHosts by provisioning state (none: not reconciled yet), as the leading pool replica sees them.',
    label: 'state',
    pick: (s) => s.hostsByState,
  });
  fleetGauge(registry, fleet, {
    name: 'ironhook_hosts_oldest_in_state_seconds',
    help: 'How long the longest-waiting BareMetalHost has been in each provisioning state.',
    label: 'state',
    pick: (s) => s.oldestSecondsByState,
  });
  fleetGauge(registry, fleet, {
    name: 'ironhook_hosts_errors',
    help: 'BareMetalHosts whose status.errorType is set, by error type.',
    label: 'error_type',
    pick: (s) => s.errorsByType,
  });
  return fleet;
}

export function createPoolMetrics(options: { registry?: Registry; defaultMetrics?: boolean; hostLabels?: boolean } = {}): PoolMetrics {
  const registry = options.registry ?? new Registry();
  if (options.defaultMetrics ?? true) {
    collectDefaultMetrics({ register: registry, prefix: 'ironhook_pool_' });
  }
  const registers = [registry];
  const perHost = options.hostLabels ?? true;
  return {
    registry,
    powerChanges: new Counter({
      name: 'metal3_operation_power_change_total',
      help: 'Number of times a host has been powered on or off.',
      labelNames: [...HOST_LABELS, 'on_off'],
      registers,
    }),
    ...credentialCounters(registry),
    operationDuration: {
      register: histogram(registry, 'register'),
      inspect: histogram(registry, 'inspect'),
      provision: histogram(registry, 'provision'),
      deprovision: histogram(registry, 'deprovision'),
    },
    delayedProvisioning: new Counter({
      name: 'metal3_delayed__provisioning_total',
      help: 'Number of times provisioning or inspection was delayed by the provisioning limit.',
      labelNames: HOST_LABELS,
      registers,
    }),
    delayedDeprovisioning: new Counter({
      name: 'metal3_delayed__deprovisioning_total',
      help: 'Number of times deprovisioning was delayed by the provisioning limit.',
      labelNames: HOST_LABELS,
      registers,
    }),
    hostErrors: new Counter({
      name: 'metal3_host_error_total',
      help: 'Number of times a host failed an operation, by event reason.',
      labelNames: ['error_type'],
      registers,
    }),
    ...poolGauges(registry),
    operations: new Counter({
      name: 'ironhook_pool_operations_total',
      help: 'Requests finished by the pool, by action and result (succeeded, failed, cancelled).',
      labelNames: ['action', 'result'],
      registers,
    }),
    bmcRequestDuration: new Histogram({
      name: 'ironhook_bmc_request_duration_seconds',
      help: 'BMC calls by driver family, operation and result.',
      labelNames: ['driver', 'op', 'result'],
      buckets: BMC_BUCKETS,
      registers,
    }),
    watchRestarts: new Counter({
      name: 'ironhook_pool_watch_restarts_total',
      help: 'Watches restarted, by resource and reason (closed, error, stale).',
      labelNames: ['resource', 'reason'],
      registers,
    }),
    monitorRefreshes: new Counter({
      name: 'ironhook_pool_monitor_refreshes_total',
      help: 'BMCMonitor refreshes, by result: ok or error (status written), unchanged (nothing changed, nothing written).',
      labelNames: ['result'],
      registers,
    }),
    fleet: fleetGauges(registry),
    hostLabels: (namespace, host) => (perHost ? { namespace, host } : { namespace: '', host: '' }),
  };
}
