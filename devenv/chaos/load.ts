// The soak's load: each emulated host lives one life per round (created, inspected, provisioned
// with a disk image through the fake agent or a live ISO, powered off and on, rebooted by
// annotation, deprovisioned, deleted with its Secret), hosts starting in waves. Some hosts have
// their BMC password rotated mid-life (the emulator's account and the Secret together).
// Every wait is bounded; kubectl calls are retried while the apiserver is being restarted.
import { redfishMAC } from '../bmcs.js';
import type { BMCs } from '../bmcs.js';
import { kubectlApply, kubectlOrThrow } from '../environment.js';
import { waitFor } from '../processes.js';
import type { ClusterObserver, HostSnapshot } from './observer.js';

export interface LifeRecord {
  host: string;
  system: string;
  round: number;
  image: 'disk' | 'live-iso';
  rotated: boolean;
  startedAt: number;
  finishedAt?: number;
  /** The step that did not finish, with the host's last state. */
  failure?: string;
}

export interface LoadContext {
  kubeconfig: string;
  namespace: string;
  bmcs: BMCs;
  observer: ClusterObserver;
  stepTimeoutMs: number;
  /** The BMC password every host starts with (the canary). */
  password: string;
}

const sleep = async (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** kubectl, retried for up to two minutes (the apiserver may be restarting). */
async function kubectl(ctx: LoadContext, args: string[], input?: string): Promise<string> {
  let last: unknown;
  for (let attempt = 0; attempt < 40; attempt += 1) {
    try {
      if (input === undefined) return await kubectlOrThrow(ctx.kubeconfig, ['-n', ctx.namespace, ...args]);
      const result = await kubectlApply(ctx.kubeconfig, input, ['-n', ctx.namespace]);
      if (result.code === 0) return result.stdout;
      last = new Error(result.stderr);
    } catch (error) {
      last = error;
    }
    await sleep(3_000);
  }
  throw last instanceof Error ? last : new Error(String(last));
}

function describe(view: HostSnapshot | undefined): string {
  if (view === undefined) return 'not found';
  const error = view.errorType === '' ? '' : `, ${view.errorType}: ${view.errorMessage}`;
  return `state "${view.state}", poweredOn ${String(view.poweredOn)}${error}`;
}

interface HostWait {
  what: string;
  /** On the host as the observer last saw it. */
  check: (view: HostSnapshot) => boolean;
  /** On the emulator's own state. */
  bmc?: () => boolean;
}

async function waitHost(ctx: LoadContext, host: string, wait: HostWait): Promise<void> {
  const { what, check, bmc } = wait;
  try {
    await waitFor(
      `${host}: ${what}`,
      async () => {
        const view = ctx.observer.hosts.get(host);
        return Promise.resolve(view !== undefined && check(view) && (bmc?.() ?? true));
      },
      ctx.stepTimeoutMs,
      500,
    );
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}; last seen ${describe(ctx.observer.hosts.get(host))}`, { cause: error });
  }
}

async function waitGone(ctx: LoadContext, host: string, since: number): Promise<void> {
  await waitFor(`${host} deleted`, async () => Promise.resolve(ctx.observer.freshAt > since && !ctx.observer.hosts.has(host)), ctx.stepTimeoutMs, 500);
}

function hostYAML(ctx: LoadContext, life: LifeRecord): string {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${life.host}-bmc` },
    type: 'Opaque',
    stringData: { username: 'admin', password: ctx.password },
  };
  const spec = { online: false, bootMACAddress: redfishMAC(life.system), bmc: { address: ctx.bmcs.address(life.system), credentialsName: `${life.host}-bmc` } };
  const bmh = { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: life.host }, spec };
  return `${JSON.stringify(secret)}\n---\n${JSON.stringify(bmh)}\n`;
}

async function patchHost(ctx: LoadContext, host: string, spec: Record<string, unknown>): Promise<void> {
  await kubectl(ctx, ['patch', 'bmh', host, '--type=merge', '-p', JSON.stringify({ spec })]);
}

function power(ctx: LoadContext, system: string): string {
  return ctx.bmcs.redfish.system(system).powerState;
}

function resets(ctx: LoadContext, system: string): number {
  return ctx.bmcs.redfish.system(system).actions.filter((action) => action.action === 'Reset').length;
}

/** The emulator's account and the Secret get a new password together. */
async function rotate(ctx: LoadContext, life: LifeRecord): Promise<void> {
  const password = `${ctx.password}-rotated-${life.host}`;
  ctx.bmcs.redfish.system(life.system).setPassword(password);
  await kubectl(ctx, ['patch', 'secret', `${life.host}-bmc`, '--type=merge', '-p', JSON.stringify({ stringData: { password } })]);
}

async function provision(ctx: LoadContext, life: LifeRecord): Promise<void> {
  const files = ctx.bmcs.files;
  const image =
    life.image === 'disk'
      ? { url: files.diskURL, checksum: files.diskChecksumURL, checksumType: 'sha256', format: 'raw' }
      : { url: files.liveISOURL, format: 'live-iso' };
  await patchHost(ctx, life.host, { online: true, image });
  await waitHost(ctx, life.host, {
    what: 'provisioned and on',
    check: (view) => view.state === 'provisioned' && view.poweredOn === true,
    bmc: () => power(ctx, life.system) === 'On',
  });
}

async function powerCycle(ctx: LoadContext, life: LifeRecord): Promise<void> {
  await patchHost(ctx, life.host, { online: false });
  await waitHost(ctx, life.host, { what: 'powered off', check: (view) => view.poweredOn === false, bmc: () => power(ctx, life.system) === 'Off' });
  await patchHost(ctx, life.host, { online: true });
  await waitHost(ctx, life.host, { what: 'powered on again', check: (view) => view.poweredOn === true, bmc: () => power(ctx, life.system) === 'On' });
}

async function reboot(ctx: LoadContext, life: LifeRecord): Promise<void> {
  const before = resets(ctx, life.system);
  await kubectl(ctx, ['annotate', 'bmh', life.host, 'reboot.metal3.io=']);
  await waitHost(ctx, life.host, {
    what: 'rebooted (annotation consumed, on)',
    check: (view) => view.annotations['reboot.metal3.io'] === undefined && view.poweredOn === true,
    bmc: () => resets(ctx, life.system) >= before + 2 && power(ctx, life.system) === 'On',
  });
}

async function retire(ctx: LoadContext, life: LifeRecord): Promise<void> {
  await patchHost(ctx, life.host, { online: false, image: null });
  await waitHost(ctx, life.host, { what: 'deprovisioned to available', check: (view) => view.state === 'available' && view.poweredOn === false });
  const since = Date.now();
  await kubectl(ctx, ['delete', 'bmh', life.host, '--wait=false']);
  await waitGone(ctx, life.host, since);
  await kubectl(ctx, ['delete', 'secret', `${life.host}-bmc`, '--wait=false', '--ignore-not-found']);
}

/** One host's life; resolves with its record (failure set when a step did not finish). */
async function live(ctx: LoadContext, life: LifeRecord): Promise<LifeRecord> {
  try {
    // A rotated password from an earlier round goes back to the one the new Secret carries.
    ctx.bmcs.redfish.system(life.system).setPassword(ctx.password);
    await kubectl(ctx, ['apply', '-f', '-'], hostYAML(ctx, life));
    await waitHost(ctx, life.host, { what: 'available', check: (view) => view.state === 'available' });
    await provision(ctx, life);
    if (life.rotated) await rotate(ctx, life);
    await powerCycle(ctx, life);
    await reboot(ctx, life);
    await retire(ctx, life);
    return { ...life, finishedAt: Date.now() };
  } catch (error) {
    return { ...life, finishedAt: Date.now(), failure: error instanceof Error ? error.message : String(error) };
  }
}

export interface RoundPlan {
  round: number;
  hosts: number;
  waveSize: number;
  waveGapMs: number;
  rotateEvery: number;
}

/** Every rotateEvery-th host has its password rotated; with fewer hosts than that, the last one. */
function rotates(plan: RoundPlan, index: number): boolean {
  if (plan.rotateEvery <= 0) return false;
  return index % plan.rotateEvery === plan.rotateEvery - 1 || (plan.hosts < plan.rotateEvery && index === plan.hosts - 1);
}

/** Every host's life for one round, `waveSize` hosts starting every `waveGapMs`. */
export async function runRound(ctx: LoadContext, plan: RoundPlan): Promise<LifeRecord[]> {
  const lives: Promise<LifeRecord>[] = [];
  for (let index = 0; index < plan.hosts; index += 1) {
    if (index > 0 && index % plan.waveSize === 0) await sleep(plan.waveGapMs);
    const life: LifeRecord = {
      host: `soak-${String(index)}-r${String(plan.round)}`,
      system: `rf-${String(index)}`,
      round: plan.round,
      image: (index + plan.round) % 2 === 0 ? 'disk' : 'live-iso',
      rotated: rotates(plan, index),
      startedAt: Date.now(),
    };
    lives.push(live(ctx, life));
  }
  return Promise.all(lives);
}
