// The chart's RBAC in a real kube-apiserver that authorizes with RBAC (devenv/controlplane.ts,
// default mode: --authorization-mode=RBAC, the admin is system:masters), with
// kube-controller-manager's ClusterRole aggregation: scripts/rbac-table.ts installs the rendered
// ServiceAccounts, roles and bindings (defaults, and ci/tls-auth-values.yaml) and asks
// `kubectl auth can-i` as each ServiceAccount. docs/rbac.md must be exactly that collection.
// Least privilege, as the API server answers it: no wildcard for anyone; the hook server's
// account has nothing an unbound account lacks; the driver pool has exactly the calls its code
// makes (poolApiCalls, the same table the unit tests hold the rendered roles to); the bundled
// Metacontroller's aggregated ClusterRole is exactly Ironhook's labelled roles; Secrets are
// reachable only by the pool and by Metacontroller (the latter because ironhook-metal3data
// renders Secrets as children), and by nobody else.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../devenv/controlplane.js';
import {
  BASELINE_ACCOUNT,
  collectAccess,
  CONFIGURATIONS,
  QUESTIONS,
  RBAC_CONTROLLERS,
  RBAC_DOC,
  rbacMarkdown,
  type AccountAccess,
  type ConfigurationAccess,
} from '../../scripts/rbac-table.js';
import { grants, poolApiCalls, prepareChart, render, rulesOf, type RenderedObject } from '../support/helm.js';

let plane: ControlPlane | undefined;
let dir = '';
let collected: ConfigurationAccess[] = [];
const renders = new Map<string, RenderedObject[]>();

beforeAll(async () => {
  const chart = prepareChart();
  for (const c of CONFIGURATIONS) renders.set(c.name, await render(chart.dir, { values: c.values }));
  dir = mkdtempSync(join(tmpdir(), 'ironhook-chart-rbac-'));
  plane = await startControlPlane({ dir, controllers: RBAC_CONTROLLERS });
  collected = await collectAccess(plane.kubeconfig, dir);
}, 600_000);

afterAll(async () => {
  await plane?.stop();
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

/** One row of `kubectl auth can-i --list` (tabwriter columns, cut at the header's offsets). */
interface ListRow {
  resource: string;
  nonResourceURLs: string[];
  resourceNames: string[];
  verbs: string[];
}

const bracketed = (cell: string): string[] =>
  cell
    .trim()
    .replace(/^\[|\]$/g, '')
    .split(' ')
    .filter((x) => x !== '');

function parseList(text: string): ListRow[] {
  const [header = '', ...lines] = text.trimEnd().split('\n');
  const cuts = ['Non-Resource URLs', 'Resource Names', 'Verbs'].map((h) => header.indexOf(h));
  if (cuts.some((c) => c < 0)) throw new Error(`not a can-i --list table: ${header}`);
  const [urls = 0, names = 0, verbs = 0] = cuts;
  return lines.map((line) => ({
    resource: line.slice(0, urls).trim(),
    nonResourceURLs: bracketed(line.slice(urls, names)),
    resourceNames: bracketed(line.slice(names, verbs)),
    verbs: bracketed(line.slice(verbs)),
  }));
}

/** `resources.group/sub` as `group resources/sub` (core for no group), as grants() and poolApiCalls() spell them. */
function typeOf(resource: string): string {
  const [base = '', sub] = resource.split('/');
  const dot = base.indexOf('.');
  const [plural, group] = dot < 0 ? [base, 'core'] : [base.slice(0, dot), base.slice(dot + 1)];
  return `${group} ${plural}${sub === undefined ? '' : `/${sub}`}`;
}

/** The rows of an account's list that an unbound account does not have. */
function ownRows(config: ConfigurationAccess, account: AccountAccess): ListRow[] {
  const baseline = new Set(parseList(accountIn(config, BASELINE_ACCOUNT).list).map((r) => JSON.stringify(r)));
  return parseList(account.list).filter((r) => !baseline.has(JSON.stringify(r)));
}

const grantsOf = (rows: ListRow[]): string[] => [...new Set(rows.flatMap((r) => r.verbs.map((v) => `${typeOf(r.resource)} ${v}`)))].sort();

function configNamed(name: string): ConfigurationAccess {
  const config = collected.find((c) => c.configuration.name === name);
  if (config === undefined) throw new Error(`no collection for ${name}`);
  return config;
}

function accountIn(config: ConfigurationAccess, account: string): AccountAccess {
  const found = config.accounts.find((a) => a.account === account);
  if (found === undefined) throw new Error(`${config.configuration.name}: no ServiceAccount ${account}`);
  return found;
}

const answer = (account: AccountAccess, what: string): boolean => account.answers[QUESTIONS.findIndex((q) => q.what === what)] === true;
const NAMES = CONFIGURATIONS.map((c) => c.name);

describe('the chart RBAC in a kube-apiserver that authorizes with RBAC', () => {
  it('is what docs/rbac.md says (regenerate with npm run docs:rbac)', () => {
    expect(readFileSync(RBAC_DOC, 'utf8')).toBe(rbacMarkdown(collected));
  });

  it.each(NAMES)('has exactly the chart ServiceAccounts, and an unbound account may do none of the questions (RBAC is enforced): %s', (name) => {
    const config = configNamed(name);
    expect(config.accounts.map((a) => a.account)).toEqual([BASELINE_ACCOUNT, 'ironhook-drivers', 'ironhook-hooks', 'ironhook-metacontroller']);
    expect(accountIn(config, BASELINE_ACCOUNT).answers).toEqual(QUESTIONS.map(() => false));
  });

  it.each(NAMES)('gives the hook server nothing an unbound account lacks: %s', (name) => {
    const config = configNamed(name);
    const hooks = accountIn(config, 'ironhook-hooks');
    expect(ownRows(config, hooks)).toEqual([]);
    expect(hooks.answers).toEqual(QUESTIONS.map(() => false));
  });

  it.each(NAMES)('grants no wildcard verb or resource, no escalation and no Pods to anyone: %s', (name) => {
    for (const account of configNamed(name).accounts) {
      for (const row of parseList(account.list)) {
        expect(row.verbs, `${account.account} ${row.resource}`).not.toContain('*');
        expect(row.resource.includes('*'), `${account.account} ${row.resource}`).toBe(false);
      }
      for (const what of ['anything on anything (wildcard)', 'create ClusterRoleBindings (escalation)', 'impersonate users', 'create Pods'])
        expect(answer(account, what), `${account.account}: ${what}`).toBe(false);
    }
  });

  it.each(NAMES)('gives the driver pool exactly the calls its code makes, its Lease by name: %s', (name) => {
    const config = configNamed(name);
    const rows = ownRows(config, accountIn(config, 'ironhook-drivers'));
    expect(grantsOf(rows)).toEqual(poolApiCalls());
    const named = rows.filter((r) => r.resourceNames.length > 0);
    expect(named).toEqual([
      { resource: 'leases.coordination.k8s.io', nonResourceURLs: [], resourceNames: ['ironhook-drivers'], verbs: ['get', 'update', 'delete'] },
    ]);
  });

  it.each(NAMES)("gives the bundled Metacontroller exactly Ironhook's aggregated roles (and the webhook Role), not upstream's wildcard: %s", (name) => {
    const config = configNamed(name);
    const objects = renders.get(name) ?? [];
    const labelled = objects.filter((o) => o.kind === 'ClusterRole' && o.metadata.labels?.['ironhook.dev/aggregate-to-metacontroller'] === 'true');
    const webhookRole = objects.filter((o) => o.kind === 'Role' && o.metadata.name === 'ironhook-metacontroller-webhook');
    expect(labelled.length).toBeGreaterThan(1);
    const expected = grants([...labelled, ...webhookRole].flatMap(rulesOf));
    expect(grantsOf(ownRows(config, accountIn(config, 'ironhook-metacontroller')))).toEqual(expected);
  });

  it.each(NAMES)('lets only the pool and Metacontroller (Metal3Data renders Secrets) reach Secrets: %s', (name) => {
    const config = configNamed(name);
    const secretQuestions = QUESTIONS.filter((q) => q.args[1]?.startsWith('secrets') === true).map((q) => q.what);
    for (const account of config.accounts) {
      const reaches = secretQuestions.map((what) => answer(account, what));
      const expected = ['ironhook-drivers', 'ironhook-metacontroller'].includes(account.account);
      expect(reaches, account.account).toEqual(secretQuestions.map(() => expected));
      const secretRows = ownRows(config, account).filter((r) => r.resource === 'secrets');
      expect(secretRows.length > 0, account.account).toBe(expected);
    }
  });
});
