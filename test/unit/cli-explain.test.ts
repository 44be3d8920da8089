// `ironhook explain`: facts, next steps and rendering from hosts whose status the real hook
// computed (syncBareMetalHost), and the command's arguments, exit codes and --watch loop.
import { describe, expect, it } from 'vitest';
import { ProvisioningState as S } from '../../domain/baremetalhost.js';
import type { BareMetalHost } from '../../domain/baremetalhost.js';
import { objectsOf } from '../../domain/metacontroller.js';
import type { BMCMonitor, HostOperation } from '../../domain/operations.js';
import { EXPLAIN_USAGE, parseExplainArgs, runExplain } from '../../drivers/cli/explain.js';
import type { ExplainDeps } from '../../drivers/cli/explain.js';
import { gatherFacts } from '../../drivers/cli/explain-facts.js';
import type { EventView, ExplainObjects } from '../../drivers/cli/explain-facts.js';
import { nextSteps } from '../../drivers/cli/explain-next.js';
import { renderJSON, renderText } from '../../drivers/cli/explain-render.js';
import { HostNotFoundError } from '../../drivers/cli/explain-source.js';
import type { ExplainSource } from '../../drivers/cli/explain-source.js';
import { syncBareMetalHost } from '../../hooks/baremetalhost/sync.js';
import { DEFAULT_HOOK_CONFIG } from '../../hooks/types.js';
import { delayed, failed, host, running, succeeded } from '../../devenv/builders/host.js';
import type { HostBuilder } from '../../devenv/builders/host.js';

const T1 = '2026-11-29T10:05:00Z';
const CREDS = { name: 'server-01-bmc-secret', namespace: 'metal3', credentialsVersion: '1' };
const MONITOR = { observedTime: T1, changedTime: T1, poweredOn: true, reachable: true, credentials: CREDS };
const IMAGE = {
  url: 'http://127.0.0.1:8081/images/ubuntu.qcow2',
  checksum: 'http://127.0.0.1:8081/images/ubuntu.qcow2.sha256sum',
  checksumType: 'sha256' as const,
};
const HARDWARE = { nics: [{ name: 'eth0', mac: '00:11:22:33:44:55', pxe: true }], storage: [{ name: '/dev/sda' }] };

/** The objects explain would read: the host with the status the hook answers, its requests and monitor. */
function objects(given: HostBuilder, events: EventView[] = []): ExplainObjects {
  const request = given.request();
  const response = syncBareMetalHost(request, { config: DEFAULT_HOOK_CONFIG });
  const parent = { ...request.parent, status: response.status } as BareMetalHost;
  return {
    host: parent,
    operations: objectsOf(request.children, 'HostOperation', 'ironhook.dev/v1alpha1') as HostOperation[],
    monitor: objectsOf(request.children, 'BMCMonitor', 'ironhook.dev/v1alpha1')[0] as BMCMonitor | undefined,
    events,
  };
}

function registering(): HostBuilder {
  return host().inState(S.Registering, { goodCredentials: undefined, triedCredentials: undefined });
}

const credentialFailure = {
  ...failed(T1, 'Permanent', 'the BMC rejected the credentials'),
  error: { kind: 'Permanent' as const, reason: 'CredentialsInvalid', message: 'the BMC rejected the credentials' },
};

interface Scenario {
  name: string;
  given: ExplainObjects;
  /** Every pattern must match one of the next steps. */
  next: RegExp[];
  /** Every pattern must match the text rendering. */
  text?: RegExp[];
}

const scenarios: Scenario[] = [
  {
    name: 'credentials rejected while registering: the Secret, then bmc check',
    given: objects(registering().operation('Register', 1, { status: credentialFailure }).monitor(undefined)),
    next: [
      /kubectl get secret server-01-bmc-secret -n metal3 -o jsonpath='\{\.data\}'; then ironhook bmc check 'ipmi:\/\/127\.0\.0\.1:6230' --credentials-secret metal3\/server-01-bmc-secret/u,
      /permanent: it is not retried until/u,
    ],
    text: [
      /request: server-01-register-1 {2}Register {2}Failed \(Permanent CredentialsInvalid\)/u,
      /last errors:\n {2}server-01-register-1 {2}Permanent CredentialsInvalid/u,
    ],
  },
  {
    name: 'BMC unreachable according to the monitor',
    given: objects(
      host()
        .spec({ online: true })
        .inState(S.Available, { hardware: HARDWARE })
        .monitor({ ...MONITOR, reachable: false }),
    ),
    next: [/^Check the BMC from where you are \(it says which step fails: DNS, connection, TLS, credentials, capability\): ironhook bmc check/u],
    text: [/BMC: unreachable, power on \(observed 2026-11-29T10:05:00Z\)/u],
  },
  {
    name: 'paused: the annotation to remove',
    given: objects(host().spec({ online: true }).inState(S.Available, { hardware: HARDWARE }).annotate('baremetalhost.metal3.io/paused').monitor(MONITOR)),
    next: [/^The host is paused: .*kubectl annotate bmh server-01 -n metal3 baremetalhost\.metal3\.io\/paused-$/u],
    text: [/^server-01 \(metal3\) {2}PAUSED/u],
  },
  {
    name: 'provisioning waits for a slot',
    given: objects(
      host()
        .spec({ online: true, image: IMAGE })
        .inState(S.Available, { hardware: HARDWARE })
        .operation('Provision', 4, { status: delayed('2 of 2 provisioning slots are taken') })
        .monitor(MONITOR),
    ),
    next: [/server-01-provision-4 waits for a provisioning slot \(2 of 2 provisioning slots are taken\).*PROVISIONING_LIMIT/u],
  },
  {
    name: 'provisioning running: its steps, and nothing to do',
    given: objects(
      host()
        .spec({ online: true, image: IMAGE })
        .inState(S.Provisioning, { hardware: HARDWARE })
        .operation('Provision', 4, {
          status: {
            ...running(T1, 'writing the image'),
            steps: [
              { name: 'SetBootDevice', state: 'Succeeded' },
              { name: 'WriteImage', state: 'Running', message: 'writing the image to /dev/sda' },
            ],
          },
        })
        .monitor(MONITOR),
    ),
    next: [/^Nothing to do yet: Provision is running \(writing the image\); follow it: ironhook explain server-01 -n metal3 --watch$/u],
    text: [/ {2}✓ SetBootDevice\n {2}… WriteImage: writing the image to \/dev\/sda/u],
  },
  {
    name: 'a retry waits for back-off',
    given: objects(
      registering()
        .operation('Register', 2, { spec: { notBefore: '2026-11-29T10:09:00Z' } })
        .monitor(undefined),
    ),
    next: [/^server-01-register-2 waits for back-off until 2026-11-29T10:09:00Z/u],
  },
  {
    name: 'provisioned and healthy: nothing is wrong',
    given: objects(
      host()
        .spec({ online: true, image: IMAGE, automatedCleaningMode: 'disabled' })
        .inState(S.Provisioned, { hardware: HARDWARE, poweredOn: true, provisioning: { state: S.Provisioned, ID: 'x', image: IMAGE } })
        .operation('PowerOn', 5, { status: succeeded(T1, { poweredOn: true }) })
        .monitor(MONITOR),
    ),
    next: [/^Nothing is wrong: the host is provisioned, online$/u],
  },
  {
    name: 'a warning condition is pointed at',
    given: objects(
      host()
        .inState(S.Available, { hardware: HARDWARE })
        .monitor({ ...MONITOR, poweredOn: false }),
    ),
    next: [/^Read the warning conditions above \(.*OnlineFalseNotPaused.*\): each one ends with its fix$/u],
    text: [/conditions:\n {2}(CleaningWillEraseDisks|OnlineFalseNotPaused)=True/u],
  },
  {
    name: 'deletion blocked by a failed cleaning: the detach command',
    given: objects(
      host()
        .spec({ online: true })
        .inState(S.Deprovisioning, { hardware: HARDWARE, provisioning: { state: S.Deprovisioning, ID: 'x', image: IMAGE } })
        .operation('Deprovision', 7, { status: failed(T1, 'Transient', 'agent did not answer') })
        .monitor(MONITOR)
        .deleting(),
    ),
    next: [/^Deletion is blocked by a failing step; to delete without it: kubectl annotate bmh server-01 -n metal3 baremetalhost\.metal3\.io\/detached=$/u],
    text: [/DELETING/u, /DeletionBlocked=True DeletionStepFailed/u],
  },
];

describe('explain: facts and next steps', () => {
  it.each(scenarios.map((s) => [s.name, s] as const))('%s', (_name, scenario) => {
    const facts = gatherFacts(scenario.given);
    const next = nextSteps(facts);
    for (const pattern of scenario.next) {
      expect(
        next.some((step) => pattern.test(step)),
        `${pattern} in\n${next.join('\n')}`,
      ).toBe(true);
    }
    const text = renderText(facts, next);
    for (const pattern of scenario.text ?? []) {
      expect(text).toMatch(pattern);
    }
  });

  it('shows the newest Events first, at most eight, with their counts', () => {
    const events = Array.from({ length: 10 }, (_, i) => ({
      type: 'Normal',
      reason: `R${i}`,
      message: `m${i}`,
      count: i,
      lastTimestamp: `2026-11-29T10:0${i}:00Z`,
    }));
    const text = renderText(gatherFacts(objects(registering(), events)), ['x']);
    expect(text).toMatch(/events \(newest first\):\n {2}2026-11-29T10:09:00Z Normal R9 ×9: m9\n/u);
    expect(text).not.toMatch(/R1\b/u);
  });

  it('-o json is one sorted, stable document with the next steps', () => {
    const facts = gatherFacts(objects(registering().operation('Register', 1, { status: credentialFailure })));
    const json = renderJSON(facts, nextSteps(facts));
    const parsed = JSON.parse(json) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([...Object.keys(parsed)].sort());
    expect(parsed).toMatchObject({ name: 'server-01', state: 'registering', request: { phase: 'Failed', error: { reason: 'CredentialsInvalid' } } });
    expect(renderJSON(facts, nextSteps(facts))).toBe(json);
  });
});

describe('explain: arguments', () => {
  it.each([
    ['a host and a namespace', ['server-01', '-n', 'metal3'], { name: 'server-01', namespace: 'metal3', json: false, watch: false }],
    [
      'kubectl-style bmh/name, json, watch',
      ['bmh/server-01', '-o', 'json', '--watch', '--interval', '5'],
      { name: 'server-01', json: true, watch: true, intervalSeconds: 5 },
    ],
  ] as const)('%s', (_name, argv, want) => {
    expect(parseExplainArgs(argv)).toMatchObject(want);
  });

  it.each([
    ['no host', [], /which host\?/u],
    ['two hosts', ['a', 'b'], /one host only/u],
    ['a bad output', ['a', '-o', 'yaml'], /-o must be json or text/u],
    ['an unknown flag', ['a', '--all'], /Unknown option '--all'/u],
    ['a zero interval', ['a', '--watch', '--interval', '0'], /--interval must be a positive number/u],
  ] as const)('%s: exit 2 with the usage', async (_name, argv, message) => {
    const { deps, err } = harness([]);
    expect(await runExplain(argv, deps)).toBe(2);
    expect(err.join('\n')).toMatch(message);
    expect(err.join('\n')).toContain(EXPLAIN_USAGE);
  });
});

function harness(reads: (ExplainObjects | Error)[], stopAfter = 1): { deps: ExplainDeps; out: string[]; err: string[]; sleeps: number[] } {
  const out: string[] = [];
  const err: string[] = [];
  const sleeps: number[] = [];
  const stop = new AbortController();
  let index = 0;
  const source: ExplainSource = {
    defaultNamespace: () => 'metal3',
    read: (namespace, name) => {
      const next = reads[Math.min(index, reads.length - 1)];
      index += 1;
      if (next instanceof Error) return Promise.reject(next);
      return next === undefined ? Promise.reject(new HostNotFoundError(`BareMetalHost ${namespace}/${name} not found`)) : Promise.resolve(next);
    },
  };
  const deps: ExplainDeps = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    source: () => Promise.resolve(source),
    sleep: (ms) => {
      sleeps.push(ms);
      if (sleeps.length >= stopAfter) stop.abort();
      return Promise.resolve();
    },
    now: () => Date.parse(T1),
    signal: stop.signal,
  };
  return { deps, out, err, sleeps };
}

describe('explain: the command', () => {
  it('a missing host: exit 3 with how to list hosts', async () => {
    const { deps, err } = harness([]);
    expect(await runExplain(['server-09'], deps)).toBe(3);
    expect(err.join('\n')).toBe('BareMetalHost metal3/server-09 not found: kubectl get bmh -A lists the hosts');
  });

  it('an apiserver error: exit 1 with the message', async () => {
    const { deps, err } = harness([new Error('connect ECONNREFUSED 127.0.0.1:6443')]);
    expect(await runExplain(['server-01'], deps)).toBe(1);
    expect(err.join('\n')).toBe('could not read the host: connect ECONNREFUSED 127.0.0.1:6443');
  });

  it('--watch prints again only when the answer changes, until stopped', async () => {
    const first = objects(registering().operation('Register', 1, { status: running(T1, 'connecting to the BMC') }));
    const second = objects(registering().operation('Register', 1, { status: credentialFailure }));
    const { deps, out, sleeps } = harness([first, first, second], 3);
    expect(await runExplain(['server-01', '--watch', '--interval', '1'], deps)).toBe(0);
    expect(sleeps).toEqual([1000, 1000, 1000]);
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(/Register {2}Running/u);
    expect(out[1]).toBe('── 2026-11-29T10:05:00.000Z changed ──');
    expect(out[2]).toMatch(/Register {2}Failed \(Permanent CredentialsInvalid\)/u);
  });
});
