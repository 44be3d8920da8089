// The CRDs against a real kube-apiserver: they are accepted (CEL compiles and fits the cost
// budget), the examples and full fixtures are accepted unchanged, every invalid example is
// rejected with its expected message, and the update rules (transition rules) hold.
//
// The control plane comes from devenv/controlplane.ts (etcd and kube-apiserver on
// 127.0.0.1); set IRONHOOK_E2E_KUBECONFIG to run against an API server that is already up
// instead (nothing is started or stopped then).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KObject } from '../../domain/k8s.js';
import {
  CRD_DIR,
  EXAMPLES_DIR,
  FIXTURE_NAMESPACE,
  exampleFiles,
  fullFirmwareSettings,
  fullHardwareData,
  fullHost,
  fullMonitor,
  fullOperations,
  invalidCases,
  POLICY_DIR,
  softwareRaidHost,
} from '../support/crds.js';
import { startControlPlane } from '../../devenv/controlplane.js';
import { binary } from '../../devenv/processes.js';

interface ControlPlane {
  kubeconfig: string;
  stop(): Promise<void>;
}

const NAMESPACE = 'ironhook-validation';
const KUBECTL = binary('kubectl');

async function controlPlane(dir: string): Promise<ControlPlane> {
  const existing = process.env.IRONHOOK_E2E_KUBECONFIG;
  if (existing !== undefined && existing !== '') {
    return { kubeconfig: existing, stop: () => Promise.resolve() };
  }
  // Validation needs no controllers: without kube-controller-manager the plane starts faster.
  return startControlPlane({ dir, controllerManager: false });
}

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

let plane: ControlPlane | undefined;
let workDir = '';
let cacheDir = '';

/** Runs kubectl against the test API server; `input` goes to stdin. */
function kubectl(args: string[], input?: string): Promise<Result> {
  const base = ['--kubeconfig', plane!.kubeconfig, '--cache-dir', cacheDir, '--request-timeout', '30s'];
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL, [...base, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

async function mustKubectl(args: string[], input?: string): Promise<string> {
  const result = await kubectl(args, input);
  if (result.code !== 0) {
    throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  }
  return result.stdout;
}

const asJSON = (object: unknown) => JSON.stringify(object);
const namespaced = (object: KObject, name?: string): KObject => ({
  ...object,
  metadata: { ...object.metadata, ...(name && { name }), namespace: NAMESPACE },
});

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'ironhook-validation-'));
  cacheDir = join(workDir, 'kubectl-cache');
  plane = await controlPlane(join(workDir, 'plane'));
  await mustKubectl(['apply', '--server-side', '--force-conflicts', '--field-manager', 'ironhook-e2e', '-f', CRD_DIR]);
  await mustKubectl(['wait', '--for', 'condition=Established', '--timeout', '60s', '-f', CRD_DIR]);
  for (const name of [NAMESPACE, FIXTURE_NAMESPACE]) {
    await mustKubectl(['apply', '-f', '-'], asJSON({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  }
  // Leftovers of an earlier run against the same API server (nothing puts finalizers on them here).
  await mustKubectl(['delete', '-n', NAMESPACE, 'baremetalhosts.metal3.io,hostoperations.ironhook.dev', '--all']);
  await applyAdmissionPolicy();
});

/**
 * Applies the optional admission policies (every file in manifests/policies, as the chart and the
 * local environment install them) and waits until the API server enforces each one (policies are
 * picked up asynchronously): polls with every policy case until a ValidatingAdmissionPolicy
 * refuses it, bounded by a deadline.
 */
async function applyAdmissionPolicy(): Promise<void> {
  await mustKubectl(['apply', '-f', POLICY_DIR]);
  const deadline = Date.now() + 60_000;
  for (const { file } of invalidCases().filter((c) => c.layer === 'policy')) {
    const probe = join(EXAMPLES_DIR, 'invalid', file);
    while (!(await kubectl(['create', '--dry-run=server', '-n', NAMESPACE, '-f', probe])).stderr.includes('ValidatingAdmissionPolicy')) {
      if (Date.now() > deadline) throw new Error(`the admission policy for ${file} was not enforced within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

afterAll(async () => {
  await plane?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('the CRDs', () => {
  it('are all accepted by the API server and served', async () => {
    const files = readdirSync(CRD_DIR).filter((f) => f.endsWith('.yaml'));
    const names = await mustKubectl(['get', 'crd', '-o', 'name']);
    for (const file of files) {
      const [group, plural] = file.replace(/\.yaml$/u, '').split('_');
      expect(names).toContain(`customresourcedefinition.apiextensions.k8s.io/${plural!}.${group!}`);
    }
    expect(await mustKubectl(['api-resources', '--categories', 'ironhook', '-o', 'name'])).toMatch(
      /hostoperations.*\n.*bmcmonitors|bmcmonitors.*\n.*hostoperations/su,
    );
  });
});

describe('valid manifests are accepted unchanged', () => {
  const files = [...exampleFiles('seed'), ...exampleFiles('upstream')].map((path) => [path.slice(EXAMPLES_DIR.length + 1), path] as const);

  it.each(files)('%s', async (_name, path) => {
    const result = await kubectl(['apply', '--dry-run=server', '-n', NAMESPACE, '-f', path]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  const fixtures: [string, KObject][] = [
    ['fullHost (spec)', fullHost],
    ['softwareRaidHost (spec)', softwareRaidHost],
    ...fullOperations.map((op, i) => [`HostOperation #${i} (${op.spec.action})`, op] as [string, KObject]),
    ['fullMonitor', fullMonitor],
    ['fullHardwareData', fullHardwareData],
    ['fullFirmwareSettings', fullFirmwareSettings],
  ];

  it.each(fixtures)('fixture %s', async (_name, object) => {
    const result = await kubectl(['create', '--dry-run=server', '-f', '-'], asJSON(object));
    expect(result.stderr).toBe('');
  });
});

describe('invalid manifests are rejected with their message', () => {
  it.each(invalidCases().map((c) => [c.file, c.expect] as const))('%s', async (file, expected) => {
    const result = await kubectl(['apply', '--dry-run=server', '-n', NAMESPACE, '-f', join(EXAMPLES_DIR, 'invalid', file)]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(expected);
  });
});

// Each cross-namespace example is refused for its reference alone: the same manifest naming the
// object's own namespace is accepted.
describe('cross-namespace examples pointed at their own namespace are accepted', () => {
  const foreign = invalidCases().filter(
    (c) => c.layer === 'policy' && readFileSync(join(EXAMPLES_DIR, 'invalid', c.file), 'utf8').includes('namespace: kube-system'),
  );

  it('covers every policy example that names another namespace', () => {
    expect(foreign.length).toBeGreaterThanOrEqual(20);
  });

  it.each(foreign.map((c) => c.file))('%s', async (file) => {
    const manifest = readFileSync(join(EXAMPLES_DIR, 'invalid', file), 'utf8').replaceAll('kube-system', NAMESPACE);
    const result = await kubectl(['create', '--dry-run=server', '-n', NAMESPACE, '-f', '-'], manifest);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

const REQUIRED_STATUS = { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioningFailCount: 0 };

function hostStatus(state: string, operationalStatus = 'OK'): Record<string, unknown> {
  return { ...REQUIRED_STATUS, operationalStatus, provisioning: { state, ID: 'node-1' } };
}

interface Transition {
  name: string;
  /** spec of the stored host (merged over a plain IPMI host with a boot MAC). */
  spec?: Record<string, unknown>;
  /** status written through /status before the update; absent = the host has no status yet. */
  status?: Record<string, unknown>;
  /** The update under test: a merge patch, or a JSON patch when it is an array. */
  patch: Record<string, unknown> | unknown[];
  /** Expected rejection substring; null = accepted. */
  reject: string | null;
}

const MAC = '00:1a:2b:3c:4d:5e';
const MAC_RULE = 'bootMACAddress can not be changed once it is set';
const BMC_RULE = 'BMC address can not be changed unless the host is registering or detached';
const EXT_RULE = 'externallyProvisioned can only be enabled when in Available state';

// prettier-ignore
const TRANSITIONS: Transition[] = [
  { name: 'bootMACAddress changed', status: hostStatus('available'), patch: { spec: { bootMACAddress: '00:1a:2b:3c:4d:5f' } }, reject: MAC_RULE },
  { name: 'bootMACAddress only changes case', status: hostStatus('available'), patch: { spec: { bootMACAddress: MAC.toUpperCase() } }, reject: null },
  { name: 'bootMACAddress removed', status: hostStatus('available'), patch: [{ op: 'remove', path: '/spec/bootMACAddress' }], reject: MAC_RULE },
  { name: 'bootMACAddress set for the first time', spec: { bootMACAddress: null }, patch: { spec: { bootMACAddress: MAC } }, reject: null },
  { name: 'bmc.address changed while inspecting', status: hostStatus('inspecting'), patch: { spec: { bmc: { address: 'ipmi://192.168.1.14' } } }, reject: `${BMC_RULE} (provisioning state 'inspecting'` },
  { name: 'bmc.address changed before any status', patch: { spec: { bmc: { address: 'ipmi://192.168.1.14' } } }, reject: BMC_RULE },
  { name: 'bmc.address removed while provisioned', status: hostStatus('provisioned'), patch: [{ op: 'remove', path: '/spec/bmc' }], reject: BMC_RULE },
  { name: 'bmc.address changed while registering', status: hostStatus('registering'), patch: { spec: { bmc: { address: 'ipmi://192.168.1.14' } } }, reject: null },
  { name: 'bmc.address changed while detached', status: hostStatus('provisioned', 'detached'), patch: { spec: { bmc: { address: 'redfish://192.168.1.14/redfish/v1/Systems/1' } } }, reject: null },
  { name: 'bmc.address set when it was empty', spec: { bmc: { address: '', credentialsName: 'server-01-bmc-secret' } }, status: hostStatus('unmanaged', 'discovered'), patch: { spec: { bmc: { address: 'ipmi://192.168.1.14' } } }, reject: null },
  { name: 'externallyProvisioned enabled while inspecting', status: hostStatus('inspecting'), patch: { spec: { externallyProvisioned: true } }, reject: `${EXT_RULE}, currently in 'inspecting'` },
  { name: 'externallyProvisioned enabled before any status', patch: { spec: { externallyProvisioned: true } }, reject: `${EXT_RULE}, currently in ''` },
  { name: 'externallyProvisioned enabled while available', status: hostStatus('available'), patch: { spec: { externallyProvisioned: true } }, reject: null },
  { name: 'externallyProvisioned enabled while ready (the legacy name of available), as upstream', status: hostStatus('ready'), patch: { spec: { externallyProvisioned: true } }, reject: `${EXT_RULE}, currently in 'ready'` },
  { name: 'other edits of a host created externally provisioned', spec: { externallyProvisioned: true }, status: hostStatus('externally provisioned'), patch: { spec: { online: true, description: 'adopted' } }, reject: null },
  { name: 'externallyProvisioned disabled while provisioned', spec: { externallyProvisioned: true }, status: hostStatus('externally provisioned'), patch: { spec: { externallyProvisioned: false } }, reject: null },
];

async function createHost(name: string, t: Transition): Promise<void> {
  const spec: Record<string, unknown> = {
    online: false,
    bootMACAddress: MAC,
    bmc: { address: 'ipmi://192.168.1.13', credentialsName: 'server-01-bmc-secret' },
    ...t.spec,
  };
  // A null in Transition.spec removes the default field.
  const clean = Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== null));
  await mustKubectl(
    ['create', '-f', '-'],
    asJSON({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name, namespace: NAMESPACE }, spec: clean }),
  );
  if (t.status !== undefined) {
    await mustKubectl(['patch', '-n', NAMESPACE, 'bmh', name, '--subresource=status', '--type=merge', '-p', asJSON({ status: t.status })]);
  }
}

function patchArgs(kind: string, name: string, patch: Transition['patch'], extra: string[] = []): string[] {
  const type = Array.isArray(patch) ? 'json' : 'merge';
  return ['patch', '-n', NAMESPACE, kind, name, '--dry-run=server', `--type=${type}`, '-p', asJSON(patch), ...extra];
}

describe('update rules on BareMetalHost', () => {
  it.each(TRANSITIONS.map((t, i) => [t.name, t, `transition-${i}`] as const))('%s', async (_name, t, hostName) => {
    await createHost(hostName, t);
    const result = await kubectl(patchArgs('bmh', hostName, t.patch));
    if (t.reject === null) {
      expect(result.stderr).toBe('');
    } else {
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(t.reject);
    }
  });

  it("status writes carry every upstream key plus Ironhook's (detach error included)", async () => {
    await createHost('status-full', { name: 'status', patch: {}, reject: null });
    const status = { ...fullHost.status, errorType: 'detach error' };
    const result = await kubectl(patchArgs('bmh', 'status-full', { status }, ['--subresource=status']));
    expect(result.stderr).toBe('');
  });

  it('a status write without an upstream-required key is rejected', async () => {
    await createHost('status-missing', { name: 'status', status: hostStatus('available'), patch: {}, reject: null });
    const result = await kubectl(patchArgs('bmh', 'status-missing', [{ op: 'remove', path: '/status/errorMessage' }], ['--subresource=status']));
    expect(result.stderr).toContain('status.errorMessage: Required value');
  });
});

describe('HostOperation is immutable', () => {
  const register = namespaced(fullOperations[0]!, 'immutable-register-1');

  beforeAll(async () => {
    await mustKubectl(['create', '-f', '-'], asJSON({ ...register, status: undefined }));
  });

  it.each([
    ['spec.sequence changed', { spec: { sequence: 10 } }, 'HostOperation spec is immutable'],
    ['spec.bmc changed', { spec: { bmc: { address: 'ipmi://192.168.1.99' } } }, 'HostOperation spec is immutable'],
    ['a label added', { metadata: { labels: { 'ironhook.dev/note': 'x' } } }, null],
  ] as const)('%s', async (_name, patch, reject) => {
    const result = await kubectl(patchArgs('hostoperation', 'immutable-register-1', patch));
    if (reject === null) {
      expect(result.stderr).toBe('');
    } else {
      expect(result.stderr).toContain(reject);
    }
  });

  it.each([
    ['the driver pool writes status', { status: { phase: 'Running', startTime: '2026-11-29T10:00:00Z' } }, null],
    ['an unknown phase', { status: { phase: 'Exploded' } }, 'Unsupported value: "Exploded"'],
  ] as const)('%s', async (_name, patch, reject) => {
    const result = await kubectl(patchArgs('hostoperation', 'immutable-register-1', patch, ['--subresource=status']));
    if (reject === null) {
      expect(result.stderr).toBe('');
    } else {
      expect(result.stderr).toContain(reject);
    }
  });
});
