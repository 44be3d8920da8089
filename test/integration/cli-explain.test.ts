// `ironhook explain` against a real kube-apiserver with Ironhook's CRDs: a BareMetalHost whose
// status the real hook computed, its failed Register request, its BMCMonitor and an Event. Run
// as the kubectl plugin (real kubectl, bin/ on PATH), with -o json, and with --watch seeing the
// host change.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProvisioningState as S } from '../../domain/baremetalhost.js';
import { objectsOf } from '../../domain/metacontroller.js';
import { runExplain } from '../../drivers/cli/explain.js';
import { kubernetesExplainSource } from '../../drivers/cli/explain-source.js';
import { startControlPlane } from '../../devenv/controlplane.js';
import type { ControlPlane } from '../../devenv/controlplane.js';
import { kubectlApply, REPO_ROOT } from '../../devenv/environment.js';
import { binary } from '../../devenv/processes.js';
import { failed, host } from '../../devenv/builders/host.js';
import { syncBareMetalHost } from '../../hooks/baremetalhost/sync.js';
import { DEFAULT_HOOK_CONFIG } from '../../hooks/types.js';

const run = promisify(execFile);
const NS = 'metal3';
const T1 = '2026-11-29T10:05:00Z';
const CRDS = ['metal3.io_baremetalhosts.yaml', 'ironhook.dev_hostoperations.yaml', 'ironhook.dev_bmcmonitors.yaml'];

let plane: ControlPlane;
let dir = '';

async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await run(binary('kubectl'), ['--kubeconfig', plane.kubeconfig, ...args]);
  return stdout;
}

async function apply(object: unknown, subresource?: 'status'): Promise<void> {
  const extra = subresource === undefined ? ['--server-side'] : ['--server-side', '--subresource=status'];
  const result = await kubectlApply(plane.kubeconfig, JSON.stringify(object), extra);
  if (result.code !== 0) throw new Error(`apply failed: ${result.stderr}`);
}

/** The host, its request and monitor, written as the hook and the pool would have left them. */
async function seed(): Promise<void> {
  const given = host()
    .spec({ online: true })
    .inState(S.Registering, { goodCredentials: undefined, triedCredentials: undefined })
    .operation('Register', 1, { spec: { register: {} }, status: failed(T1, 'Transient', 'BMC at 127.0.0.1:6230 did not answer: connection refused') })
    .monitor({ observedTime: T1, changedTime: T1, poweredOn: false, reachable: false });
  const request = given.request();
  const response = syncBareMetalHost(request, { config: DEFAULT_HOOK_CONFIG });
  const parent = request.parent;
  const metadata = { name: parent.metadata.name, namespace: NS };
  await apply({ apiVersion: parent.apiVersion, kind: parent.kind, metadata, spec: parent.spec });
  await apply({ apiVersion: parent.apiVersion, kind: parent.kind, metadata, status: response.status }, 'status');
  for (const child of [
    ...objectsOf(request.children, 'HostOperation', 'ironhook.dev/v1alpha1'),
    ...objectsOf(request.children, 'BMCMonitor', 'ironhook.dev/v1alpha1'),
  ]) {
    const { status, metadata: childMeta, ...rest } = child;
    const labels = { 'ironhook.dev/host': 'server-01' };
    const childMetadata = { name: childMeta.name, namespace: NS, labels };
    await apply({ ...rest, metadata: childMetadata });
    await apply({ apiVersion: child.apiVersion, kind: child.kind, metadata: childMetadata, status }, 'status');
  }
}

async function recordEvent(): Promise<void> {
  const uid = await kubectl('get', 'bmh', 'server-01', '-n', NS, '-o', 'jsonpath={.metadata.uid}');
  await apply({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'server-01.registration', namespace: NS },
    involvedObject: { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: 'server-01', namespace: NS, uid },
    reason: 'RegistrationError',
    message: 'BMC at 127.0.0.1:6230 did not answer: connection refused',
    type: 'Normal',
    count: 3,
    firstTimestamp: T1,
    lastTimestamp: T1,
    source: { component: 'ironhook-driver-pool' },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ironhook-explain-'));
  plane = await startControlPlane({ dir, controllerManager: false });
  for (const crd of CRDS) {
    await kubectl('apply', '--server-side', '-f', join(REPO_ROOT, 'manifests', 'crds', crd));
  }
  await kubectl(
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd',
    'baremetalhosts.metal3.io',
    'hostoperations.ironhook.dev',
    'bmcmonitors.ironhook.dev',
  );
  await kubectl('create', 'namespace', NS);
  await seed();
  await recordEvent();
}, 120_000);

afterAll(async () => {
  await plane.stop();
  rmSync(dir, { recursive: true, force: true });
});

function pluginEnv(): NodeJS.ProcessEnv {
  return { ...process.env, KUBECONFIG: plane.kubeconfig, PATH: `${join(REPO_ROOT, 'bin')}:${process.env.PATH ?? ''}` };
}

describe('ironhook explain against a real apiserver', () => {
  it('runs as the kubectl plugin and explains a host stuck in registering', async () => {
    const { stdout } = await run(binary('kubectl'), ['ironhook', 'explain', 'server-01', '-n', NS], { env: pluginEnv() });
    expect(stdout).toMatch(/^server-01 \(metal3\)\n {2}state: registering {3}operationalStatus: error/u);
    expect(stdout).toContain('request: server-01-register-1  Register  Failed (Transient BMCUnreachable)');
    expect(stdout).toContain('BMC: unreachable, power off (observed 2026-11-29T10:05:00Z)');
    expect(stdout).toContain('2026-11-29T10:05:00Z Normal RegistrationError ×3: BMC at 127.0.0.1:6230 did not answer: connection refused');
    expect(stdout).toContain(
      "→ Check the BMC from where you are (it says which step fails: DNS, connection, TLS, credentials, capability): ironhook bmc check 'ipmi://127.0.0.1:6230' --credentials-secret metal3/server-01-bmc-secret",
    );
  });

  it('-o json gives the same facts as one document', async () => {
    const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'bin', 'ironhook.js'), 'explain', 'bmh/server-01', '-n', NS, '-o', 'json'], {
      env: pluginEnv(),
    });
    const doc = JSON.parse(stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({
      name: 'server-01',
      namespace: NS,
      state: 'registering',
      request: { name: 'server-01-register-1', error: { reason: 'BMCUnreachable' } },
      bmc: { reachable: false },
    });
    expect(doc.events).toEqual([expect.objectContaining({ reason: 'RegistrationError', count: 3 })]);
  });

  it('a host that does not exist: exit 3', async () => {
    const result = await run(process.execPath, [join(REPO_ROOT, 'bin', 'ironhook.js'), 'explain', 'server-99', '-n', NS], { env: pluginEnv() }).catch(
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(result).toMatchObject({ code: 3, stderr: 'BareMetalHost metal3/server-99 not found: kubectl get bmh -A lists the hosts\n' });
  });

  it('--watch prints again when the host changes', async () => {
    const previous = process.env.KUBECONFIG;
    process.env.KUBECONFIG = plane.kubeconfig;
    const out: string[] = [];
    const stop = new AbortController();
    let rounds = 0;
    try {
      const code = await runExplain(['server-01', '-n', NS, '--watch', '--interval', '1'], {
        out: (text) => out.push(text),
        err: (text) => out.push(text),
        source: kubernetesExplainSource,
        now: () => Date.parse(T1),
        signal: stop.signal,
        sleep: async () => {
          rounds += 1;
          if (rounds === 1) await kubectl('annotate', 'bmh', 'server-01', '-n', NS, 'baremetalhost.metal3.io/paused=');
          if (rounds === 2) stop.abort();
        },
      });
      expect(code).toBe(0);
    } finally {
      process.env.KUBECONFIG = previous;
    }
    expect(out).toHaveLength(3);
    expect(out[0]).not.toContain('PAUSED');
    expect(out[1]).toBe('── 2026-11-29T10:05:00.000Z changed ──');
    expect(out[2]).toMatch(/^server-01 \(metal3\) {2}PAUSED/u);
    expect(out[2]).toContain('→ The host is paused');
  });
});
