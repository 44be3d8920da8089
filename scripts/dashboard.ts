// The Grafana dashboard the chart ships (metrics.dashboard in values.yaml): hosts per state and how
// long the longest wait is, errors by type, operation durations, the pool's queue, BMC latency and
// the hook server. Written in TypeScript against Grafana's own schema types (@grafana/schema, generated
// from Grafana's CUE schema), so `npm run typecheck` validates the dashboard; this script writes the
// JSON the chart's ConfigMap embeds.
//
//   npx tsx scripts/dashboard.ts          rewrite charts/ironhook/files/grafana-dashboard.json
//   npx tsx scripts/dashboard.ts --check  exit 1 when the file differs (test/unit/observability.test.ts)
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DashboardCursorSync, LegendDisplayMode, SortOrder, StackingMode, TooltipDisplayMode, VariableRefresh } from '@grafana/schema';
import type { Dashboard, DataQuery, Panel, RowPanel } from '@grafana/schema';
import type {
  FieldConfig as TimeSeriesFieldConfig,
  Options as TimeSeriesOptions,
} from '@grafana/schema/dist/esm/raw/composable/timeseries/panelcfg/x/TimeSeriesPanelCfg_types.gen';

export const DASHBOARD_FILE = join(resolve(import.meta.dirname, '..'), 'charts', 'ironhook', 'files', 'grafana-dashboard.json');

const DATASOURCE = { type: 'prometheus', uid: '${datasource}' } as const;
const RATE = '$__rate_interval';

// A type alias, not an interface: Panel.targets wants records.
type PromQuery = Pick<DataQuery, 'refId' | 'datasource'> & { expr: string; legendFormat: string };
type SeriesConfig = TimeSeriesFieldConfig & Record<string, unknown>;

interface PanelSpec {
  title: string;
  description: string;
  unit: string;
  targets: [expr: string, legend: string][];
  stacked?: boolean;
}

function query(expr: string, legendFormat: string, index: number): PromQuery {
  return { refId: String.fromCharCode(65 + index), datasource: DATASOURCE, expr, legendFormat };
}

function timeseries(spec: PanelSpec, id: number, gridPos: { x: number; y: number }): Panel<TimeSeriesOptions, SeriesConfig> {
  const custom: SeriesConfig = spec.stacked === true ? { stacking: { mode: StackingMode.Normal, group: 'A' }, fillOpacity: 60 } : { fillOpacity: 10 };
  return {
    id,
    type: 'timeseries',
    title: spec.title,
    description: spec.description,
    datasource: DATASOURCE,
    gridPos: { ...gridPos, w: 12, h: 8 },
    fieldConfig: { defaults: { unit: spec.unit, custom }, overrides: [] },
    options: {
      legend: { showLegend: true, displayMode: LegendDisplayMode.List, placement: 'bottom', calcs: [] },
      tooltip: { mode: TooltipDisplayMode.Multi, sort: SortOrder.Descending },
    },
    targets: spec.targets.map(([expr, legend], index) => query(expr, legend, index)),
  };
}

const p95 = (metric: string, by = ''): string => `histogram_quantile(0.95, sum by (le${by}) (rate(${metric}_bucket[${RATE}])))`;
const p99 = (metric: string, by = ''): string => `histogram_quantile(0.99, sum by (le${by}) (rate(${metric}_bucket[${RATE}])))`;

const ROWS: { title: string; panels: PanelSpec[] }[] = [
  {
    title: 'Hosts',
    panels: [
      {
        title: 'Hosts by provisioning state',
        description: 'BareMetalHosts per status.provisioning.state, as the leading driver pool sees them (ironhook_hosts).',
        unit: 'short',
        stacked: true,
        targets: [['sum by (state) (ironhook_hosts)', '{{state}}']],
      },
      {
        title: 'Longest wait per state',
        description:
          'How long the longest-waiting host has been in each state. A steady rise in registering, inspecting, provisioning or deprovisioning is a stuck host: run `ironhook explain` on it.',
        unit: 's',
        targets: [['max by (state) (ironhook_hosts_oldest_in_state_seconds)', '{{state}}']],
      },
      {
        title: 'Hosts in error',
        description: 'Hosts whose status.errorType is set, by type (ironhook_hosts_errors).',
        unit: 'short',
        stacked: true,
        targets: [['sum by (error_type) (ironhook_hosts_errors)', '{{error_type}}']],
      },
      {
        title: 'Host errors per second',
        description: 'Failed operations by error type (upstream metal3_host_error_total).',
        unit: 'ops',
        targets: [[`sum by (error_type) (rate(metal3_host_error_total[${RATE}]))`, '{{error_type}}']],
      },
    ],
  },
  {
    title: 'Operations',
    panels: [
      {
        title: 'Operation duration (p95)',
        description: "Upstream's metal3_operation_*_duration_seconds histograms: register, inspect, provision, deprovision.",
        unit: 's',
        targets: (['register', 'inspect', 'provision', 'deprovision'] as const).map((op) => [p95(`metal3_operation_${op}_duration_seconds`), op]),
      },
      {
        title: 'Pool requests finished',
        description: 'HostOperations the pool finished, by action and result (ironhook_pool_operations_total).',
        unit: 'ops',
        targets: [[`sum by (action, result) (rate(ironhook_pool_operations_total[${RATE}]))`, '{{action}} {{result}}']],
      },
      {
        title: 'Power changes',
        description: 'Power commands actually sent to BMCs (metal3_operation_power_change_total).',
        unit: 'ops',
        targets: [[`sum by (on_off) (rate(metal3_operation_power_change_total[${RATE}]))`, '{{on_off}}']],
      },
      {
        title: 'Credential problems',
        description: 'Credentials Secrets missing, invalid or rejected by the BMC (metal3_credentials_*_total).',
        unit: 'ops',
        targets: (['missing', 'invalid', 'no_management_access', 'unhandled_error'] as const).map((what) => [
          `sum(rate(metal3_credentials_${what}_total[${RATE}]))`,
          what,
        ]),
      },
    ],
  },
  {
    title: 'Driver pool and BMCs',
    panels: [
      {
        title: 'Pool queue',
        description: 'Requests waiting for a worker, running, and delayed by the provisioning limit.',
        unit: 'short',
        targets: [
          ['sum(ironhook_pool_queue_depth)', 'queued'],
          ['sum(ironhook_pool_in_flight)', 'in flight'],
          ['sum(ironhook_pool_delayed)', 'delayed'],
        ],
      },
      {
        title: 'BMC call latency (p99)',
        description: 'BMC calls by driver family (ironhook_bmc_request_duration_seconds).',
        unit: 's',
        targets: [[p99('ironhook_bmc_request_duration_seconds', ', driver'), '{{driver}}']],
      },
      {
        title: 'BMC calls failing',
        description: 'BMC calls that timed out or failed, by driver and operation.',
        unit: 'ops',
        targets: [
          [
            `sum by (driver, op, result) (rate(ironhook_bmc_request_duration_seconds_count{result!~"success|cancelled"}[${RATE}]))`,
            '{{driver}} {{op}} {{result}}',
          ],
        ],
      },
      {
        title: 'Leadership and watches',
        description: 'Replicas holding the lease (should be 1) and watch restarts by resource.',
        unit: 'short',
        targets: [
          ['sum(ironhook_pool_is_leader)', 'leaders'],
          [`sum by (resource, reason) (rate(ironhook_pool_watch_restarts_total[${RATE}]))`, 'restart {{resource}} {{reason}}'],
        ],
      },
    ],
  },
  {
    title: 'Hook server',
    panels: [
      {
        title: 'Hook latency (p99)',
        description: 'Sync, finalize and customize hooks by controller (ironhook_hook_duration_seconds). Metacontroller gives up after the hook timeout.',
        unit: 's',
        targets: [[p99('ironhook_hook_duration_seconds', ', controller'), '{{controller}}']],
      },
      {
        title: 'Hook responses',
        description: 'Hook requests by HTTP status code; 4xx/5xx are retried by Metacontroller.',
        unit: 'reqps',
        targets: [[`sum by (code) (rate(ironhook_hook_requests_total[${RATE}]))`, '{{code}}']],
      },
    ],
  },
];

function rowPanel(title: string, id: number, y: number): RowPanel {
  return { id, type: 'row', title, collapsed: false, gridPos: { x: 0, y, w: 24, h: 1 }, panels: [] };
}

function panels(): (Panel | RowPanel)[] {
  const out: (Panel | RowPanel)[] = [];
  let y = 0;
  for (const row of ROWS) {
    out.push(rowPanel(row.title, out.length + 1, y));
    y += 1;
    row.panels.forEach((spec, index) => {
      out.push(timeseries(spec, out.length + 1, { x: (index % 2) * 12, y: y + Math.floor(index / 2) * 8 }));
    });
    y += Math.ceil(row.panels.length / 2) * 8;
  }
  return out;
}

export function dashboard(): Dashboard {
  return {
    uid: 'ironhook-hosts',
    title: 'Ironhook: bare-metal hosts',
    description: "BareMetalHosts, the driver pool and the hook server. Upstream's metal3_* series plus Ironhook's own.",
    tags: ['ironhook', 'metal3', 'bare-metal'],
    editable: true,
    graphTooltip: DashboardCursorSync.Crosshair,
    schemaVersion: 41,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    timezone: 'browser',
    annotations: { list: [] },
    links: [],
    templating: {
      list: [
        {
          name: 'datasource',
          label: 'Prometheus',
          type: 'datasource',
          query: 'prometheus',
          refresh: VariableRefresh.onDashboardLoad,
        },
      ],
    },
    panels: panels(),
  };
}

export function dashboardJSON(): string {
  return `${JSON.stringify(dashboard(), null, 2)}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--check')) {
    if (readFileSync(DASHBOARD_FILE, 'utf8') !== dashboardJSON()) {
      console.error(`${DASHBOARD_FILE} is out of date: npx tsx scripts/dashboard.ts`);
      process.exit(1);
    }
  } else {
    writeFileSync(DASHBOARD_FILE, dashboardJSON());
  }
}
