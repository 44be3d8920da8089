// AgentService on the state and a scripted agent: arming, waiting for the agent (heartbeat,
// timeout, abort, forget), inventory, the prepare_image parameters, resuming after a restart,
// and persistence through a store.
import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../drivers/agent/client.js';
import type { CommandResult } from '../../drivers/agent/client.js';
import { TransportError } from '../../drivers/agent/http.js';
import type { JSONRequest, JSONResponse } from '../../drivers/agent/http.js';
import { buildImageInfo, imageID } from '../../drivers/agent/image-info.js';
import { IronhookAgentService } from '../../drivers/agent/service.js';
import type { Timers } from '../../drivers/agent/service.js';
import { AgentState } from '../../drivers/agent/state.js';
import { MemoryAgentStateStore } from '../../drivers/agent/store.js';
import { readConfigDrive } from '../../emulators/agent/configdrive.js';

const HOST = { namespace: 'metal3', name: 'server-01', uid: 'uid-1' };
const MACS = ['00:11:22:33:44:55'];
const CALLBACK = 'http://127.0.0.1:9999';
const SHA256 = 'a'.repeat(64);

class FakeTimers implements Timers {
  pending = new Map<number, () => void>();
  private next = 0;
  setTimeout(callback: () => void): unknown {
    this.next += 1;
    this.pending.set(this.next, callback);
    return this.next;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  fireAll(): void {
    for (const [id, callback] of [...this.pending]) {
      this.pending.delete(id);
      callback();
    }
  }
}

function cmd(name: string, status: CommandResult['command_status'], id = 'c1', result: unknown = null): CommandResult {
  return { id, command_name: name, command_status: status, command_error: null, command_result: result };
}

function setup(responses: (JSONResponse | TransportError)[] = [], store = new MemoryAgentStateStore()) {
  const state = new AgentState(() => 5);
  const timers = new FakeTimers();
  const requests: JSONRequest[] = [];
  const client = new AgentClient({
    transport: (req) => {
      requests.push(req);
      const next = responses.shift();
      if (next === undefined) return Promise.reject(new Error(`unexpected ${req.method}`));
      return next instanceof TransportError ? Promise.reject(next) : Promise.resolve(next);
    },
    sleep: () => Promise.resolve(),
    pollIntervalMs: 1,
  });
  const service = new IronhookAgentService({ state, apiURL: 'http://127.0.0.1:6385', client, store, timers });
  return { state, service, timers, requests, store };
}

async function armAndBeat(ctx: ReturnType<typeof setup>) {
  const { token } = await ctx.service.expect(HOST, MACS);
  ctx.state.heartbeat(HOST.uid, { callbackURL: CALLBACK, token });
  return token;
}

const list = (...commands: CommandResult[]): JSONResponse => ({ status: 200, body: { commands } });

describe('expect and waitForAgent', () => {
  it('expect arms the host and returns the API URL and a fresh token', async () => {
    const ctx = setup();
    const params = await ctx.service.expect(HOST, MACS);
    expect(params.apiURL).toBe('http://127.0.0.1:6385');
    expect(params.token).toBe(ctx.state.get(HOST)?.token);
    expect((await ctx.service.expect(HOST, MACS)).token).not.toBe(params.token);
  });

  it('resolves on the first heartbeat with the callback URL', async () => {
    const ctx = setup();
    const { token } = await ctx.service.expect(HOST, MACS);
    const waiting = ctx.service.waitForAgent(HOST, { signal: new AbortController().signal, timeoutMs: 1_000 });
    ctx.state.heartbeat(HOST.uid, { callbackURL: CALLBACK, token: 'wrong' });
    ctx.state.heartbeat(HOST.uid, { callbackURL: CALLBACK, token });
    await expect(waiting).resolves.toEqual({ namespace: 'metal3', name: 'server-01', callbackURL: CALLBACK });
    expect(ctx.timers.pending.size).toBe(0);
  });

  it('resolves at once when the agent already heartbeated', async () => {
    const ctx = setup();
    await armAndBeat(ctx);
    await expect(ctx.service.waitForAgent(HOST, { signal: new AbortController().signal, timeoutMs: 1 })).resolves.toMatchObject({ callbackURL: CALLBACK });
  });

  it.each([
    {
      name: 'timeout',
      act: (ctx: ReturnType<typeof setup>) => {
        ctx.timers.fireAll();
      },
      error: { reason: 'AgentTimeout' },
    },
    {
      name: 'forgotten',
      act: (ctx: ReturnType<typeof setup>) => {
        ctx.service.forget(HOST);
      },
      error: { reason: 'AgentNotArmed' },
    },
  ])('rejects on $name', async (row) => {
    const ctx = setup();
    await ctx.service.expect(HOST, MACS);
    const waiting = ctx.service.waitForAgent(HOST, { signal: new AbortController().signal, timeoutMs: 1_000 });
    row.act(ctx);
    await expect(waiting).rejects.toMatchObject(row.error);
  });

  it('rejects with the signal reason on abort, and cleans up its listeners', async () => {
    const ctx = setup();
    await ctx.service.expect(HOST, MACS);
    const controller = new AbortController();
    const waiting = ctx.service.waitForAgent(HOST, { signal: controller.signal, timeoutMs: 1_000 });
    controller.abort(new Error('superseded'));
    await expect(waiting).rejects.toThrow('superseded');
    expect(ctx.state.listenerCount('heartbeat')).toBe(0);
    expect(ctx.timers.pending.size).toBe(0);
  });

  it('an unarmed host is rejected at once', async () => {
    const ctx = setup();
    await expect(ctx.service.waitForAgent(HOST, { signal: new AbortController().signal, timeoutMs: 1 })).rejects.toMatchObject({ reason: 'AgentNotArmed' });
  });
});

describe('inventory', () => {
  it('waits for the inspection callback', async () => {
    const ctx = setup();
    const token = await armAndBeat(ctx);
    const handle = { namespace: HOST.namespace, name: HOST.name, callbackURL: CALLBACK };
    const pending = ctx.service.inventory(handle);
    ctx.state.inspection(MACS, token, { ramMebibytes: 1024 });
    await expect(pending).resolves.toEqual({ ramMebibytes: 1024 });
  });

  it('a re-arm drops the old inventory', async () => {
    const ctx = setup();
    await ctx.service.expect(HOST, MACS);
    ctx.state.inspection(MACS, undefined, { ramMebibytes: 1 });
    await ctx.service.expect(HOST, MACS);
    expect(ctx.state.get(HOST)?.inventory).toBeUndefined();
  });
});

describe('commands', () => {
  const handle = { namespace: HOST.namespace, name: HOST.name, callbackURL: CALLBACK };

  it('writeImage sends prepare_image with image_info and the config drive ISO, and waits', async () => {
    const ctx = setup([list(), list(), { status: 200, body: cmd('prepare_image', 'RUNNING') }, list(cmd('prepare_image', 'SUCCEEDED'))]);
    await armAndBeat(ctx);
    await ctx.service.writeImage(
      handle,
      { url: 'http://127.0.0.1:8080/images/disk.raw', checksum: SHA256, checksumType: 'sha256', format: 'raw' },
      { userData: '#cloud-config\n' },
    );
    const post = ctx.requests.find((req) => req.method === 'POST')!;
    const configdrive = (post.body as { params: { configdrive: unknown } }).params.configdrive;
    expect(readConfigDrive(configdrive)).toEqual({ volumeId: 'config-2', meta_data: {}, user_data: '#cloud-config\n' });
    expect(post.body).toEqual({
      name: 'standby.prepare_image',
      params: {
        image_info: {
          id: 'disk.raw',
          urls: ['http://127.0.0.1:8080/images/disk.raw'],
          disk_format: 'raw',
          container_format: 'bare',
          stream_raw_images: true,
          image_type: 'whole-disk',
          node_uuid: 'uid-1',
          os_hash_algo: 'sha256',
          os_hash_value: SHA256,
        },
        configdrive: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) as string,
      },
    });
  });

  it('writeImage without a config drive sends image_info only', async () => {
    const ctx = setup([list(), list(), { status: 200, body: cmd('prepare_image', 'RUNNING') }, list(cmd('prepare_image', 'SUCCEEDED'))]);
    await armAndBeat(ctx);
    await ctx.service.writeImage(handle, { url: 'http://127.0.0.1/disk.raw', checksum: SHA256, checksumType: 'sha256' }, { userData: '' });
    const post = ctx.requests.find((req) => req.method === 'POST')!;
    expect(Object.keys((post.body as { params: object }).params)).toEqual(['image_info']);
  });

  it('writeImage with an invalid config drive document sends nothing', async () => {
    const ctx = setup([list()]);
    await armAndBeat(ctx);
    const write = ctx.service.writeImage(handle, { url: 'http://127.0.0.1/disk.raw', checksum: SHA256 }, { networkData: '- a' });
    await expect(write).rejects.toMatchObject({ reason: 'ImageInvalid', kind: 'Permanent' });
    expect(ctx.requests.map((req) => req.method)).toEqual(['GET']);
  });

  it('writeImage resumes a RUNNING prepare_image instead of sending another', async () => {
    const ctx = setup([list(cmd('prepare_image', 'RUNNING')), list(cmd('prepare_image', 'SUCCEEDED'))]);
    await armAndBeat(ctx);
    await ctx.service.writeImage(handle, { url: 'http://127.0.0.1/disk.raw', checksum: SHA256, checksumType: 'sha256' });
    expect(ctx.requests.map((req) => req.method)).toEqual(['GET', 'GET']);
  });

  it('writeImage counts a SUCCEEDED prepare_image naming this image as done', async () => {
    const ctx = setup([list(cmd('prepare_image', 'SUCCEEDED', 'c1', { result: 'prepare_image: image (disk.raw) written to device /dev/sda' }))]);
    await armAndBeat(ctx);
    await ctx.service.writeImage(handle, { url: 'http://127.0.0.1/disk.raw', checksum: SHA256, checksumType: 'sha256' });
    expect(ctx.requests).toHaveLength(1);
  });

  it('eraseDevicesMetadata sends the deploy-interface clean step', async () => {
    const ctx = setup([list(), { status: 200, body: cmd('execute_clean_step', 'SUCCEEDED') }]);
    await armAndBeat(ctx);
    await ctx.service.eraseDevicesMetadata(handle);
    const post = ctx.requests.find((req) => req.method === 'POST')!;
    expect(post.body).toMatchObject({
      name: 'clean.execute_clean_step',
      params: { step: { step: 'erase_devices_metadata', interface: 'deploy' }, node: { uuid: 'uid-1', properties: {}, instance_info: {} }, ports: [] },
    });
  });

  it('powerOff: the agent going away counts as done', async () => {
    const ctx = setup([list(), { status: 200, body: cmd('power_off', 'RUNNING') }, new TransportError('gone', 'ECONNREFUSED')]);
    await armAndBeat(ctx);
    await expect(ctx.service.powerOff(handle)).resolves.toBeUndefined();
  });

  it('commands for a forgotten host fail with AgentNotArmed', async () => {
    const ctx = setup();
    await armAndBeat(ctx);
    ctx.service.forget(HOST);
    await expect(ctx.service.powerOff(handle)).rejects.toMatchObject({ reason: 'AgentNotArmed' });
  });
});

describe('image_info', () => {
  it.each([
    { name: 'sha256', image: { checksum: SHA256, checksumType: 'sha256' }, want: { os_hash_algo: 'sha256', os_hash_value: SHA256 } },
    {
      name: 'sha512 upper case',
      image: { checksum: 'B'.repeat(128), checksumType: 'SHA512' },
      want: { os_hash_algo: 'sha512', os_hash_value: 'b'.repeat(128) },
    },
    { name: 'auto', image: { checksum: SHA256, checksumType: 'auto' }, want: { checksum: SHA256 } },
    { name: 'no type', image: { checksum: SHA256 }, want: { checksum: SHA256 } },
    {
      name: 'checksum file URL',
      image: { checksum: 'http://127.0.0.1/disk.raw.sha256sum', checksumType: 'sha256' },
      want: { checksum: 'http://127.0.0.1/disk.raw.sha256sum' },
    },
  ])('checksum: $name', (row) => {
    const info = buildImageInfo({ url: 'http://127.0.0.1/d.qcow2', ...row.image }, 'u');
    expect({ checksum: info.checksum, os_hash_algo: info.os_hash_algo, os_hash_value: info.os_hash_value }).toEqual({
      checksum: undefined,
      os_hash_algo: undefined,
      os_hash_value: undefined,
      ...row.want,
    });
  });

  it.each([
    { name: 'no checksum', image: {} },
    { name: 'blank checksum', image: { checksum: '  ' } },
    { name: 'md5', image: { checksum: 'c'.repeat(32), checksumType: 'md5' } },
  ])('rejects $name as a permanent ImageInvalid', ({ image }) => {
    expect(() => buildImageInfo({ url: 'http://127.0.0.1/d', ...image }, 'u')).toThrow(
      expect.objectContaining({ reason: 'ImageInvalid', kind: 'Permanent' }) as Error,
    );
  });

  it.each([
    ['http://127.0.0.1/images/disk.raw', 'disk.raw'],
    ['http://127.0.0.1/images/disk.raw?sig=1', 'disk.raw'],
    ['http://127.0.0.1/', 'image'],
  ])('imageID(%s) = %s', (url, id) => {
    expect(imageID(url)).toBe(id);
  });

  it('root device hints go along in the form IPA matches', () => {
    expect(buildImageInfo({ url: 'http://h/d', checksum: SHA256, rootDeviceHints: { deviceName: '/dev/sda' } }, 'u').root_device).toEqual({
      name: 's== /dev/sda',
    });
  });
});

describe('persistence across a pool restart', () => {
  it('records are saved on arm, on the token hand-out and on the first callback URL; forget removes them', async () => {
    const ctx = setup();
    const token = await armAndBeat(ctx);
    ctx.state.lookup(MACS);
    await ctx.service.flush();
    expect(await ctx.store.list()).toEqual([{ ...HOST, macs: MACS, token, tokenIssued: true, callbackURL: CALLBACK }]);
    ctx.service.forget(HOST);
    await ctx.service.flush();
    expect(await ctx.store.list()).toEqual([]);
  });

  it('a new service on the same store accepts the old token and waits for a fresh heartbeat', async () => {
    const first = setup();
    const token = await armAndBeat(first);
    first.state.lookup(MACS);
    await first.service.flush();
    const second = setup([], first.store);
    expect(await second.service.restore()).toBe(1);
    expect(second.state.lookup(MACS)).toMatchObject({ kind: 'found', token: '******' });
    const waiting = second.service.waitForAgent(HOST, { signal: new AbortController().signal, timeoutMs: 1_000 });
    expect(second.state.heartbeat(HOST.uid, { callbackURL: 'http://127.0.0.1:1', token }).kind).toBe('callback-changed');
    expect(second.state.heartbeat(HOST.uid, { callbackURL: CALLBACK, token }).kind).toBe('accepted');
    await expect(waiting).resolves.toMatchObject({ callbackURL: CALLBACK });
  });

  it('inventory accepted before a restart is served by the next service without a new post; a re-arm drops it', async () => {
    const first = setup();
    await first.service.expect(HOST, MACS);
    expect(first.state.inspection(MACS, undefined, { ramMebibytes: 8192 }).kind).toBe('accepted');
    expect(await first.service.saved(HOST)).toBeUndefined();
    const second = setup([], first.store);
    expect(await second.service.restore()).toBe(1);
    const handle = { ...HOST, callbackURL: CALLBACK };
    await expect(second.service.inventory(handle, { timeoutMs: 1_000 })).resolves.toEqual({ ramMebibytes: 8192 });
    await second.service.expect(HOST, MACS);
    await second.service.flush();
    expect((await second.store.list())[0]?.inventory).toBeUndefined();
  });

  it('saved() reports a failed write of the inventory', async () => {
    const store = new MemoryAgentStateStore();
    const ctx = setup([], store);
    await ctx.service.expect(HOST, MACS);
    store.save = () => Promise.reject(new Error('apiserver down'));
    ctx.state.inspection(MACS, undefined, { ramMebibytes: 8192 });
    expect(await ctx.service.saved(HOST)).toEqual(new Error('apiserver down'));
  });

  it('expect() fails (transient) when the armed record cannot be stored, and leaves the host unarmed', async () => {
    const store = new MemoryAgentStateStore();
    store.save = () => Promise.reject(new Error('apiserver down'));
    const ctx = setup([], store);
    await expect(ctx.service.expect(HOST, MACS)).rejects.toMatchObject({ reason: 'AgentStateNotSaved', kind: 'Transient' });
    expect(ctx.state.get(HOST)).toBeUndefined();
  });

  it('a later failed write (token hand-out) is logged, not thrown at the agent', async () => {
    const store = new MemoryAgentStateStore();
    const ctx = setup([], store);
    await ctx.service.expect(HOST, MACS);
    store.save = () => Promise.reject(new Error('apiserver down'));
    expect(ctx.state.lookup(MACS).kind).toBe('found');
    await expect(ctx.service.flush()).resolves.toBeUndefined();
  });
});
