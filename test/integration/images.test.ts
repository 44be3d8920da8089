// The images of `npm run image` (scripts/image.sh), run with podman as the chart runs them
// (test/support/images.ts: read-only root, only /tmp writable, no capabilities, host network,
// everything on 127.0.0.1): the Ironhook image as the hook server and as the driver pool, the
// pool and Metacontroller's image against a real kube-apiserver (kubeconfig mounted read-only),
// and the pause image. Each starts and answers its probes, runs as its non-root user, and exits
// by itself on SIGTERM (podman stop) long before podman would SIGKILL it. The Ironhook image
// holds dist/, production node_modules and package.json only, with ipmitool, genisoimage and
// xorriso (it builds a config drive ISO as its user) and Node 22. Without built images this
// fails (it never skips): scripts/test.sh runs `npm run image` first.
import { chmodSync, chownSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane } from '../../devenv/controlplane.js';
import type { ControlPlane } from '../../devenv/controlplane.js';
import { kubectlApply, REPO_ROOT } from '../../devenv/environment.js';
import { METACONTROLLER_CRDS } from '../../devenv/metacontroller.js';
import { freePort, waitFor } from '../../devenv/processes.js';
import { builtImages, type BuiltImage } from '../../devenv/images.js';
import { podman, processIds, RESTRICTED } from '../support/images.js';

const NS = 'images-test';
const KUBECONFIG_IN_CONTAINER = '/etc/ironhook/kubeconfig';
const PACKAGE = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
/** podman stop's grace period: a process still running after it would get SIGKILL (exit code 137). */
const STOP_GRACE_SECONDS = 20;

let images: Map<string, BuiltImage>;
let plane: ControlPlane | undefined;
let dir = '';
let kubeconfig = '';
const ports = { hooks: 0, poolMetrics: 0, poolAgent: 0, mcMetrics: 0, mcHealth: 0 };
const containers: string[] = [];

const url = (port: number, path: string): string => `http://127.0.0.1:${String(port)}${path}`;

function image(name: string): string {
  const built = images.get(name);
  if (built === undefined) {
    throw new Error(`images.json lists no ${name} image: run \`npm run image\``);
  }
  return built.reference;
}

interface Component {
  name: string;
  image: string;
  /** The command the chart (or the upstream chart, or containerd) gives the container. */
  command: () => string[];
  env: () => Record<string, string>;
  kubeconfig: boolean;
  probes: () => string[];
  /** What must be in a probe's body (the first probe's), beyond a 2xx status. */
  expectBody?: RegExp;
  user: { uid: string; gid: string };
  /** The image has a shell, so podman exec can look inside. */
  shell: boolean;
}

const COMPONENTS: Component[] = [
  {
    name: 'hooks',
    image: 'ironhook',
    command: () => ['node', 'dist/hooks/main.js'],
    env: () => ({ PORT: String(ports.hooks), HOST: '127.0.0.1', SHUTDOWN_DELAY_SECONDS: '0', LOG_LEVEL: 'info' }),
    kubeconfig: false,
    probes: () => [url(ports.hooks, '/healthz'), url(ports.hooks, '/readyz')],
    user: { uid: '65532', gid: '65532' },
    shell: true,
  },
  {
    name: 'drivers',
    image: 'ironhook',
    command: () => ['node', 'dist/drivers/main.js'],
    env: () => ({
      KUBECONFIG: KUBECONFIG_IN_CONTAINER,
      WATCH_NAMESPACE: NS,
      ALLOWED_BMC_NETWORKS: '127.0.0.0/8',
      METRICS_BIND_ADDRESS: '127.0.0.1',
      METRICS_PORT: String(ports.poolMetrics),
      AGENT_API_HOST: '127.0.0.1',
      AGENT_API_PORT: String(ports.poolAgent),
      AGENT_STATE_STORE: 'memory',
      LEADER_ELECT: 'true',
      LEADER_ELECTION_NAMESPACE: NS,
      LEADER_ELECTION_ID: 'images-test-pool',
      POD_NAME: 'images-test-pool-0',
      SHUTDOWN_TIMEOUT_SECONDS: '2',
    }),
    kubeconfig: true,
    probes: () => [url(ports.poolMetrics, '/metrics'), url(ports.poolMetrics, '/healthz'), url(ports.poolMetrics, '/readyz')],
    expectBody: /^ironhook_pool_is_leader 1$/m,
    user: { uid: '65532', gid: '65532' },
    shell: true,
  },
  {
    name: 'metacontroller',
    image: 'metacontroller',
    command: () => [
      '/usr/bin/metacontroller',
      `--kubeconfig=${KUBECONFIG_IN_CONTAINER}`,
      `--metrics-address=127.0.0.1:${String(ports.mcMetrics)}`,
      `--health-probe-bind-address=127.0.0.1:${String(ports.mcHealth)}`,
    ],
    env: () => ({}),
    kubeconfig: true,
    probes: () => [url(ports.mcHealth, '/readyz'), url(ports.mcHealth, '/healthz'), url(ports.mcMetrics, '/metrics')],
    user: { uid: '65532', gid: '65532' },
    shell: false,
  },
  {
    name: 'pause',
    image: 'pause',
    command: () => ['/pause'],
    env: () => ({}),
    kubeconfig: false,
    probes: () => [],
    user: { uid: '65535', gid: '65535' },
    shell: false,
  },
];

const containerName = (component: Component): string => `ironhook-images-test-${component.name}-${String(process.pid)}`;

async function startContainer(component: Component): Promise<string> {
  const name = containerName(component);
  const env = Object.entries(component.env()).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
  const mounts = component.kubeconfig ? ['--volume', `${kubeconfig}:${KUBECONFIG_IN_CONTAINER}:ro`] : [];
  containers.push(name);
  // --entrypoint '' so that the command replaces the image's entrypoint too (the pause image has one).
  await podman(
    'run',
    '--detach',
    '--name',
    name,
    ...RESTRICTED,
    ...env,
    ...mounts,
    '--entrypoint',
    component.command()[0]!,
    image(component.image),
    ...component.command().slice(1),
  );
  return name;
}

async function running(name: string): Promise<boolean> {
  return (await podman('inspect', '--format', '{{.State.Running}}', name)) === 'true';
}

async function logsOf(name: string): Promise<string> {
  return podman('logs', name).catch((error: unknown) => String(error));
}

async function kubectl(kubeconfigPath: string, yaml: string): Promise<void> {
  const result = await kubectlApply(kubeconfigPath, yaml, ['--server-side']);
  if (result.code !== 0) {
    throw new Error(`kubectl apply failed: ${result.stderr}`);
  }
}

beforeAll(async () => {
  images = builtImages();
  for (const name of ['ironhook', 'metacontroller', 'pause']) {
    await podman('image', 'exists', image(name)).catch(() => {
      throw new Error(`${image(name)} is listed in images.json but not in podman's storage: run \`npm run image\``);
    });
  }
  dir = mkdtempSync(join(tmpdir(), 'ironhook-images-'));
  plane = await startControlPlane({ dir, controllerManager: false });
  for (const crd of ['hostoperations', 'bmcmonitors', 'objectpatches', 'nodeoperations']) {
    await kubectl(plane.kubeconfig, readFileSync(join(REPO_ROOT, 'manifests', 'crds', `ironhook.dev_${crd}.yaml`), 'utf8'));
  }
  await kubectl(plane.kubeconfig, readFileSync(METACONTROLLER_CRDS, 'utf8'));
  await kubectl(plane.kubeconfig, JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }));
  // The containers' user reads the kubeconfig; the control plane's copy is root's, 0600.
  kubeconfig = join(dir, 'container-kubeconfig');
  copyFileSync(plane.kubeconfig, kubeconfig);
  chownSync(kubeconfig, 65532, 65532);
  chmodSync(kubeconfig, 0o600);
  for (const key of Object.keys(ports) as (keyof typeof ports)[]) {
    ports[key] = await freePort();
  }
});

afterAll(async () => {
  for (const name of containers) {
    await podman('rm', '--force', '--time', '0', name).catch(() => undefined);
  }
  await plane?.stop();
  if (process.env.KEEP_TEST_DIR === undefined && dir !== '') {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe.each(COMPONENTS)('the $name container ($image image)', (component) => {
  let name = '';

  it('starts and answers its probes on 127.0.0.1', async () => {
    name = await startContainer(component);
    await waitFor(`${name} running`, () => running(name), 30_000);
    for (const probe of component.probes()) {
      await waitFor(`${name} ${probe}`, async () => (await fetch(probe)).ok, 60_000).catch(async (error: unknown) => {
        throw new Error(`${String(error)}\n${await logsOf(name)}`);
      });
    }
    if (component.expectBody !== undefined) {
      const pattern = component.expectBody;
      await waitFor(`${name} body ${String(pattern)}`, async () => pattern.test(await (await fetch(component.probes()[0]!)).text()), 30_000);
    }
    expect(await running(name)).toBe(true);
  });

  it(`runs as ${component.user.uid}:${component.user.gid}, not root, on a read-only root filesystem`, async () => {
    expect(await processIds(name)).toEqual(component.user);
    expect(await podman('inspect', '--format', '{{.HostConfig.ReadonlyRootfs}}', name)).toBe('true');
    if (component.shell) {
      expect(await podman('exec', name, 'id', '-u')).toBe(component.user.uid);
      const writes = await podman('exec', name, 'sh', '-c', 'touch /app/x 2>/dev/null && echo app; touch /tmp/x && echo tmp');
      expect(writes).toBe('tmp');
    }
  });

  it('exits by itself on SIGTERM (podman stop), with exit code 0, in a few seconds', async () => {
    const started = Date.now();
    await podman('stop', '--time', String(STOP_GRACE_SECONDS), name);
    const seconds = (Date.now() - started) / 1000;
    expect(await podman('inspect', '--format', '{{.State.ExitCode}}', name), await logsOf(name)).toBe('0');
    expect(seconds).toBeLessThan(5);
  });
});

describe('the Ironhook image', () => {
  async function inImage(script: string): Promise<string> {
    return podman('run', '--rm', ...RESTRICTED, image('ironhook'), 'sh', '-c', script);
  }

  it('holds package.json, dist/ and production node_modules only, no tests, emulators or dev tools', async () => {
    const [app, dist, devEntries, tools] = (
      await inImage(
        [
          'ls -A /app',
          'ls -A /app/dist',
          'grep -c \'"dev": true\' /app/node_modules/.package-lock.json || true',
          'for p in typescript tsx vitest vite esbuild eslint prettier knip supertest dependency-cruiser fast-check; do [ -e /app/node_modules/$p ] && echo $p; done; true',
          'find /app/dist -name "*.test.js" -o -name "*.map" -o -name "*.ts"',
        ].join('; echo ==; '),
      )
    )
      .split('==')
      .map((section) => section.trim().split('\n').filter(Boolean));
    expect(app).toEqual(['dist', 'node_modules', 'package.json']);
    expect(dist).toEqual(['domain', 'drivers', 'hooks', 'platform']);
    expect(devEntries).toEqual(['0']);
    expect(tools).toEqual([]);
  });

  it('has ipmitool, genisoimage, xorriso and Node 22 on PATH for its user', async () => {
    const script = 'ipmitool -V; genisoimage --version; xorriso -version 2>/dev/null | head -n 1; node --version; id -u';
    const [ipmitool, genisoimage, xorriso, node, uid] = (await inImage(script)).split('\n');
    expect(ipmitool).toMatch(/^ipmitool version 1\.8\./);
    expect(genisoimage).toMatch(/^genisoimage 1\.1\./);
    expect(xorriso).toMatch(/^xorriso 1\.5\./);
    expect(node).toMatch(/^v22\./);
    expect(uid).toBe('65532');
  });

  it('builds a config drive ISO as its user with only /tmp writable, and leaves nothing there', async () => {
    const build = `import { buildConfigDriveISO } from "/app/dist/drivers/agent/configdrive.js"; process.stdout.write(await buildConfigDriveISO({ userData: "#cloud-config\\n" }));`;
    const script = [
      `node --input-type=module -e '${build}' | base64 -d | gunzip > /tmp/drive.iso`,
      "isoinfo -d -i /tmp/drive.iso | grep '^Volume id'",
      'isoinfo -i /tmp/drive.iso -R -x /openstack/latest/user_data',
      'rm /tmp/drive.iso',
      'echo "left in /tmp: [$(ls -A /tmp)]"',
    ].join('; ');
    expect((await inImage(script)).split('\n')).toEqual(['Volume id: config-2', '#cloud-config', 'left in /tmp: []']);
  });
});

describe.each([
  { name: 'ironhook', user: '65532:65532', version: () => PACKAGE.version },
  { name: 'metacontroller', user: '65532:65532', version: () => 'v4.17.2' },
  { name: 'pause', user: '65535:65535', version: () => PACKAGE.version },
])('the $name image', (row) => {
  it('has its user, OCI labels and archives as images.json lists them', async () => {
    const built = images.get(row.name)!;
    const config = JSON.parse(await podman('image', 'inspect', '--format', '{{json .Config}}', built.reference)) as {
      User: string;
      Labels: Record<string, string>;
    };
    expect(config.User).toBe(row.user);
    const label = (key: string): string | undefined => config.Labels[`org.opencontainers.image.${key}`];
    expect(label('title')).toBe(row.name);
    expect(label('version')).toBe(row.version());
    expect(label('created')).toBe(built.created);
    expect(label('licenses')).toBe('Apache-2.0');
    expect(label('revision')).toMatch(/^[0-9a-f]{40}(-dirty)?$/);
    expect(label('source')).toMatch(/^https:\/\//);
    expect(label('description')).toBeTruthy();
    expect(await podman('image', 'inspect', '--format', '{{.Id}}', built.reference)).toBe(built.imageId.replace(/^sha256:/, ''));
    for (const archive of [built.archives.oci, built.archives.docker]) {
      expect(archive.bytes).toBeGreaterThan(0);
      expect(statSync(archive.path).size).toBe(archive.bytes);
    }
  });
});
