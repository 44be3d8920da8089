// The agent command client against a scripted transport and a virtual clock: how commands
// are sent (token in the query, wait=false), polled to completion, classified when they fail,
// and — after a connection error on POST — checked before anything is sent again.
import { describe, expect, it } from 'vitest';
import { AgentClient, bareName, commandFailure, sanitizeMessage } from '../../drivers/agent/client.js';
import type { AgentEndpoint, AgentGuard, CommandResult } from '../../drivers/agent/client.js';
import { AgentError } from '../../drivers/agent/errors.js';
import { TransportError } from '../../drivers/agent/http.js';
import type { JSONRequest, JSONResponse } from '../../drivers/agent/http.js';

const TOKEN = 'canary-token-0123456789-abcdefghijklmnop';
const AGENT: AgentEndpoint = { callbackURL: 'http://127.0.0.1:9999', token: TOKEN };

type Step = JSONResponse | TransportError;

function cmd(name: string, status: CommandResult['command_status'], id = `id-${name}`, extra: Partial<CommandResult> = {}): CommandResult {
  return { id, command_name: name, command_status: status, command_error: null, command_result: null, ...extra };
}
const list = (...commands: CommandResult[]): JSONResponse => ({ status: 200, body: { commands } });
const ok = (command: CommandResult): JSONResponse => ({ status: 200, body: command });
const refused = (): TransportError => new TransportError('POST http://127.0.0.1:9999/v1/commands/: ECONNRESET', 'ECONNRESET');

function harness(steps: Step[], options: { pollIntervalMs?: number; guard?: AgentGuard } = {}) {
  const requests: JSONRequest[] = [];
  const sleeps: number[] = [];
  let now = 0;
  const client = new AgentClient({
    transport: (req) => {
      requests.push(req);
      const step = steps.shift();
      if (step === undefined) throw new Error(`unexpected ${req.method} ${req.url.pathname}`);
      return step instanceof TransportError ? Promise.reject(step) : Promise.resolve(step);
    },
    pollIntervalMs: options.pollIntervalMs ?? 1_000,
    commandTimeoutMs: 5_000,
    sleep: (ms) => {
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
    now: () => now,
    ...(options.guard === undefined ? {} : { guard: options.guard }),
  });
  return { client, requests, sleeps, steps, methods: () => requests.map((req) => req.method).join(' ') };
}

describe('send: POST after a snapshot; after a connection error, check before re-sending', () => {
  interface Row {
    name: string;
    steps: Step[];
    methods: string;
    result: string | { reason: string };
  }
  const mine = cmd('prepare_image', 'RUNNING', 'new');
  const rows: Row[] = [
    { name: 'accepted at once', steps: [list(), ok(mine)], methods: 'GET POST', result: 'new' },
    {
      name: 'POST lost, the agent started it: adopted, not re-sent',
      steps: [list(cmd('get_clean_steps', 'SUCCEEDED')), refused(), list(cmd('get_clean_steps', 'SUCCEEDED'), mine)],
      methods: 'GET POST GET',
      result: 'new',
    },
    {
      name: 'POST lost, nothing started: re-sent',
      steps: [list(), refused(), list(), list(), ok(mine)],
      methods: 'GET POST GET GET POST',
      result: 'new',
    },
    {
      name: 'POST lost, an older command of the same name is last: re-sent',
      steps: [
        list(cmd('prepare_image', 'FAILED', 'old')),
        refused(),
        list(cmd('prepare_image', 'FAILED', 'old')),
        list(cmd('prepare_image', 'FAILED', 'old')),
        ok(mine),
      ],
      methods: 'GET POST GET GET POST',
      result: 'new',
    },
    {
      name: 'POST lost, another command started meanwhile: re-sent',
      steps: [list(), refused(), list(cmd('power_off', 'RUNNING', 'x')), list(cmd('power_off', 'RUNNING', 'x')), ok(mine)],
      methods: 'GET POST GET GET POST',
      result: 'new',
    },
    {
      name: 'POST lost and the check fails too: re-sent',
      steps: [list(), refused(), refused(), list(), ok(mine)],
      methods: 'GET POST GET GET POST',
      result: 'new',
    },
    {
      name: 'unreachable on every attempt',
      steps: [refused(), refused(), refused()],
      methods: 'GET GET GET',
      result: { reason: 'AgentUnreachable' },
    },
    {
      name: 'token rejected',
      steps: [list(), { status: 401, body: { faultstring: 'Token invalid' } }],
      methods: 'GET POST',
      result: { reason: 'AgentTokenRejected' },
    },
    { name: 'agent busy', steps: [list(), { status: 409, body: {} }], methods: 'GET POST', result: { reason: 'AgentBusy' } },
    { name: 'server error', steps: [list(), { status: 500, body: {} }], methods: 'GET POST', result: { reason: 'AgentBusy' } },
    { name: 'not a command result', steps: [list(), { status: 200, body: { hello: 1 } }], methods: 'GET POST', result: { reason: 'AgentProtocolError' } },
    { name: 'snapshot is not a list', steps: [{ status: 200, body: { commands: 'x' } }], methods: 'GET', result: { reason: 'AgentProtocolError' } },
    { name: 'unexpected status', steps: [list(), { status: 404, body: {} }], methods: 'GET POST', result: { reason: 'AgentProtocolError' } },
  ];

  it.each(rows)('$name', async (row) => {
    const h = harness([...row.steps]);
    const outcome = await h.client.send(AGENT, 'standby.prepare_image', { image_info: { id: 'x' } }).then(
      (command) => command.id,
      (err: unknown) => ({ reason: err instanceof AgentError ? err.reason : String(err) }),
    );
    expect(outcome).toEqual(row.result);
    expect(h.methods()).toBe(row.methods);
  });

  it('the POST carries the token and wait=false in the query and {name, params} as body', async () => {
    const h = harness([list(), ok(cmd('prepare_image', 'RUNNING'))]);
    await h.client.send({ ...AGENT, callbackURL: 'http://127.0.0.1:9999/' }, 'standby.prepare_image', { a: 1 });
    const post = h.requests[1]!;
    expect(post.url.pathname).toBe('/v1/commands/');
    expect(post.url.searchParams.get('agent_token')).toBe(TOKEN);
    expect(post.url.searchParams.get('wait')).toBe('false');
    expect(post.body).toEqual({ name: 'standby.prepare_image', params: { a: 1 } });
    expect(post.timeoutMs).toBe(5_000);
    expect(h.requests[0]!.url.searchParams.get('agent_token')).toBe(TOKEN);
  });

  it('the network guard refuses before anything is sent', async () => {
    const h = harness([], { guard: () => Promise.resolve({ refused: 'outside the allowed networks' }) });
    await expect(h.client.send(AGENT, 'standby.power_off', {})).rejects.toMatchObject({ reason: 'AgentAddressNotAllowed', kind: 'Permanent' });
    expect(h.requests).toHaveLength(0);
  });

  it('every request is checked again and carries the addresses the guard checked (DNS rebinding)', async () => {
    const checked: string[] = [];
    const answers = [['127.0.0.1'], ['127.0.0.3']];
    const guard: AgentGuard = (url) => {
      checked.push(url.hostname);
      return Promise.resolve({ addresses: answers.shift() ?? [] });
    };
    const h = harness([list(), ok(cmd('power_off', 'RUNNING'))], { guard });
    await h.client.send({ ...AGENT, callbackURL: 'http://agent.example.test:9999' }, 'standby.power_off', {});
    expect(checked).toEqual(['agent.example.test', 'agent.example.test']);
    expect(h.requests.map((req) => [req.method, req.addresses])).toEqual([
      ['GET', ['127.0.0.1']],
      ['POST', ['127.0.0.3']],
    ]);
  });
});

describe('wait: poll GET /v1/commands until the command is done', () => {
  const running = cmd('prepare_image', 'RUNNING', 'c1');

  it.each([
    { name: 'finishes after two polls', steps: [list(running), list(cmd('prepare_image', 'SUCCEEDED', 'c1'))], want: 'SUCCEEDED', sleeps: 2 },
    { name: 'fails', steps: [list(cmd('prepare_image', 'FAILED', 'c1'))], want: 'FAILED', sleeps: 1 },
    { name: 'a dropped poll is retried', steps: [refused(), list(cmd('prepare_image', 'SUCCEEDED', 'c1'))], want: 'SUCCEEDED', sleeps: 2 },
    { name: 'a busy agent is polled again', steps: [{ status: 409, body: {} }, list(cmd('prepare_image', 'SUCCEEDED', 'c1'))], want: 'SUCCEEDED', sleeps: 2 },
  ])('$name', async (row) => {
    const h = harness([...row.steps]);
    const done = await h.client.wait(AGENT, running, { deadline: 60_000 });
    expect(done === 'gone' ? 'gone' : done.command_status).toBe(row.want);
    expect(h.sleeps).toEqual(Array<number>(row.sleeps).fill(1_000));
  });

  it('a finished command returns at once', async () => {
    const h = harness([]);
    const done = await h.client.wait(AGENT, cmd('power_off', 'SUCCEEDED'), { deadline: 0 });
    expect(done).toMatchObject({ command_status: 'SUCCEEDED' });
    expect(h.requests).toHaveLength(0);
  });

  it('still running at the deadline → AgentTimeout', async () => {
    const h = harness([list(running), list(running), list(running)]);
    await expect(h.client.wait(AGENT, running, { deadline: 3_000 })).rejects.toMatchObject({ reason: 'AgentTimeout', kind: 'Transient' });
    expect(h.sleeps).toEqual([1_000, 1_000, 1_000]);
  });

  it('a command that disappears (agent rebooted) → AgentProtocolError', async () => {
    const h = harness([list()]);
    await expect(h.client.wait(AGENT, running, { deadline: 60_000 })).rejects.toMatchObject({ reason: 'AgentProtocolError' });
  });

  it('goneIsDone: an agent that stops answering has done its power_off', async () => {
    const h = harness([list(cmd('power_off', 'RUNNING', 'p')), refused()]);
    expect(await h.client.wait(AGENT, cmd('power_off', 'RUNNING', 'p'), { deadline: 60_000, goneIsDone: true })).toBe('gone');
  });

  it('an aborted signal stops the wait', async () => {
    const h = harness([]);
    const controller = new AbortController();
    controller.abort(new Error('superseded'));
    await expect(h.client.wait(AGENT, running, { deadline: 60_000, signal: controller.signal })).rejects.toThrow('superseded');
  });
});

describe('run and failure classification', () => {
  it('send + wait, SUCCEEDED resolves with the result', async () => {
    const h = harness([
      list(),
      ok(cmd('execute_clean_step', 'RUNNING', 'e')),
      list(cmd('execute_clean_step', 'SUCCEEDED', 'e', { command_result: { clean_result: null } })),
    ]);
    const done = await h.client.run(AGENT, 'clean.execute_clean_step', {}, { timeoutMs: 10_000 });
    expect(done.command_result).toEqual({ clean_result: null });
  });

  it.each([
    {
      name: 'checksum mismatch is permanent',
      error: { type: 'ImageChecksumError', message: 'bad checksum', code: 500 },
      reason: 'ImageChecksumMismatch',
      kind: 'Permanent',
    },
    {
      name: 'download error is transient',
      error: { type: 'ImageDownloadError', message: 'connection refused' },
      reason: 'AgentCommandFailed',
      kind: 'Transient',
    },
    { name: 'string error', error: 'boom', reason: 'AgentCommandFailed', kind: 'Transient' },
    { name: 'no error details', error: null, reason: 'AgentCommandFailed', kind: 'Transient' },
  ])('FAILED: $name', async (row) => {
    const h = harness([list(), ok(cmd('prepare_image', 'RUNNING', 'f')), list(cmd('prepare_image', 'FAILED', 'f', { command_error: row.error }))]);
    await expect(h.client.run(AGENT, 'standby.prepare_image', {}, { timeoutMs: 10_000 })).rejects.toMatchObject({ reason: row.reason, kind: row.kind });
  });

  it('CLEAN_VERSION_MISMATCH is a failure', () => {
    expect(commandFailure(cmd('execute_clean_step', 'CLEAN_VERSION_MISMATCH')).reason).toBe('AgentCommandFailed');
  });

  it('error messages never carry URL queries (presigned image URLs) and are capped', () => {
    const error = commandFailure(
      cmd('prepare_image', 'FAILED', 'x', {
        command_error: { type: 'ImageDownloadError', message: 'GET https://img.example/disk.raw?X-Amz-Signature=s3cr3t failed' },
      }),
    );
    expect(error.message).toContain('https://img.example/disk.raw?…');
    expect(error.message).not.toContain('s3cr3t');
    expect(sanitizeMessage('x'.repeat(2_000)).length).toBeLessThanOrEqual(501);
  });

  it.each([
    ['standby.prepare_image', 'prepare_image'],
    ['clean.execute_clean_step', 'execute_clean_step'],
    ['power_off', 'power_off'],
  ])('bareName(%s) = %s', (name, bare) => {
    expect(bareName(name)).toBe(bare);
  });

  it('the token never appears in error messages', async () => {
    const h = harness([refused(), refused(), refused()]);
    const err = await h.client.send(AGENT, 'standby.power_off', {}).catch((caught: unknown) => caught);
    expect(String(err)).not.toContain(TOKEN);
    expect(String((err as Error).cause)).not.toContain(TOKEN);
  });
});
