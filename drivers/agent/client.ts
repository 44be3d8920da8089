// Commands to an IPA-compatible agent: POST
// /v1/commands/?wait=false, then poll GET /v1/commands/ until the command is no longer RUNNING,
// with Ironic's timeouts. After a connection error on a POST, the last command is checked
// before anything is sent again, so a command that did start is never started twice. Before
// every request the network guard checks the callback URL's host, and the request connects only
// to the addresses it checked (a callback named by a host name that rebinds reaches nothing new).
import { setTimeout as delay } from 'node:timers/promises';
import { AgentError, abortError } from './errors.js';
import { TransportError, redactedURL, undiciTransport, type JSONRequest, type JSONResponse, type JSONTransport } from './http.js';
import { PinnedDispatchers } from './tls.js';

type CommandStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CLEAN_VERSION_MISMATCH';

export interface CommandResult {
  id: string;
  /** The bare name ("prepare_image"), as IPA reports it. */
  command_name: string;
  command_status: CommandStatus;
  command_error: unknown;
  command_result: unknown;
}

export interface AgentEndpoint {
  callbackURL: string;
  /** Secret: only ever put into the query string of requests to the agent. */
  token: string;
  /** The agent's agent_verify_ca: an https callback trusts only this certificate. */
  verifyCA?: string;
}

/** Ironic's [agent] defaults. */
export const AGENT_TIMEOUTS = {
  /** HTTP timeout of one call to the agent (command_timeout). */
  commandTimeoutMs: 60_000,
  /** Between two polls of GET /v1/commands (command_wait_interval). */
  pollIntervalMs: 6_000,
  /** Waiting for a short command (command_wait_attempts × command_wait_interval). */
  commandWaitMs: 600_000,
  /** Waiting for the image to be written (deploy_callback_timeout). */
  deployCallbackMs: 1_800_000,
} as const;

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface AgentClientOptions {
  transport?: JSONTransport;
  /** The pinned-certificate dispatchers the default transport uses (one per agent_verify_ca). */
  dispatchers?: PinnedDispatchers;
  commandTimeoutMs?: number;
  pollIntervalMs?: number;
  /** POST attempts when the agent cannot be reached (each after a check of the last command). */
  postAttempts?: number;
  sleep?: Sleep;
  now?: () => number;
  /** The network guard, asked before every request (none: every URL, resolved by the system). */
  guard?: AgentGuard;
}

/** The network guard's answer for a URL: the addresses its host may be contacted at, or why not. */
type AgentGuardAnswer = { addresses: readonly string[] } | { refused: string };
export type AgentGuard = (url: URL) => Promise<AgentGuardAnswer>;

interface Target {
  url: URL;
  addresses?: readonly string[];
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Total time for the command, from the first POST. */
  timeoutMs: number;
}

const STATUSES: readonly string[] = ['RUNNING', 'SUCCEEDED', 'FAILED', 'CLEAN_VERSION_MISMATCH'];
const MESSAGE_LIMIT = 500;

/** "standby.prepare_image" → "prepare_image": IPA reports the bare name. */
export function bareName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function isCommand(value: unknown): value is CommandResult {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const item = value as Record<string, unknown>;
  return typeof item.id === 'string' && typeof item.command_name === 'string' && STATUSES.includes(String(item.command_status));
}

/** Query strings of URLs inside agent messages may carry credentials: they are cut. */
export function sanitizeMessage(text: string): string {
  const cut = text.replace(/(https?:\/\/[^\s?#"']+)[?#][^\s"']*/g, '$1?…');
  return cut.length > MESSAGE_LIMIT ? `${cut.slice(0, MESSAGE_LIMIT)}…` : cut;
}

function errorText(error: unknown): string {
  if (typeof error === 'string') {
    return error;
  }
  if (typeof error === 'object' && error !== null) {
    const item = error as Record<string, unknown>;
    return [item.type, item.message, item.details].filter((part) => typeof part === 'string' && part !== '').join(': ');
  }
  return 'no error details';
}

/** The AgentError for a command that ended in anything but SUCCEEDED. */
export function commandFailure(command: CommandResult): AgentError {
  const error = command.command_error;
  const type = typeof error === 'object' && error !== null ? (error as Record<string, unknown>).type : undefined;
  const message = `agent command ${command.command_name} ${command.command_status}: ${sanitizeMessage(errorText(error))}`;
  return new AgentError(type === 'ImageChecksumError' ? 'ImageChecksumMismatch' : 'AgentCommandFailed', message);
}

function statusError(response: JSONResponse, what: string): AgentError | undefined {
  const { status } = response;
  if (status >= 200 && status < 300) {
    return undefined;
  }
  if (status === 401 || status === 403) {
    return new AgentError('AgentTokenRejected', `${what}: the agent rejected the token (HTTP ${status})`);
  }
  if (status === 409 || status >= 500) {
    return new AgentError('AgentBusy', `${what}: the agent answered HTTP ${status}`);
  }
  return new AgentError('AgentProtocolError', `${what}: unexpected HTTP ${status}`);
}

const defaultSleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, signal === undefined ? {} : { signal });
};

export class AgentClient {
  private readonly transport: JSONTransport;
  private readonly commandTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly postAttempts: number;
  private readonly sleep: Sleep;
  private readonly now: () => number;
  private readonly guard: AgentGuard | undefined;
  private readonly dispatchers: PinnedDispatchers;

  constructor(options: AgentClientOptions = {}) {
    this.dispatchers = options.dispatchers ?? new PinnedDispatchers();
    this.transport = options.transport ?? undiciTransport(this.dispatchers);
    this.commandTimeoutMs = options.commandTimeoutMs ?? AGENT_TIMEOUTS.commandTimeoutMs;
    this.pollIntervalMs = options.pollIntervalMs ?? AGENT_TIMEOUTS.pollIntervalMs;
    this.postAttempts = options.postAttempts ?? 3;
    this.sleep = options.sleep ?? defaultSleep;
    this.now = options.now ?? Date.now;
    this.guard = options.guard;
  }

  /** The command URL, checked by the network guard, with the addresses it may be reached at. */
  private async target(agent: AgentEndpoint, query: Record<string, string>): Promise<Target> {
    const url = new URL('v1/commands/', agent.callbackURL.endsWith('/') ? agent.callbackURL : `${agent.callbackURL}/`);
    for (const [key, value] of Object.entries({ ...query, agent_token: agent.token })) {
      url.searchParams.set(key, value);
    }
    if (this.guard === undefined) {
      return { url };
    }
    const answer = await this.guard(url);
    if ('refused' in answer) {
      throw new AgentError('AgentAddressNotAllowed', `agent ${redactedURL(url)}: ${answer.refused}`);
    }
    return { url, addresses: answer.addresses };
  }

  private call(agent: AgentEndpoint, target: Target, req: Omit<JSONRequest, 'timeoutMs' | 'ca' | 'url' | 'addresses'>): Promise<JSONResponse> {
    return this.transport({
      ...req,
      url: target.url,
      ...(target.addresses === undefined ? {} : { addresses: target.addresses }),
      timeoutMs: this.commandTimeoutMs,
      ...(agent.verifyCA === undefined ? {} : { ca: agent.verifyCA }),
    });
  }

  /** Closes the pinned dispatchers of certificates that are not in `keep` (no host records them). */
  async retainCertificates(keep: ReadonlySet<string>): Promise<void> {
    await this.dispatchers.retain(keep);
  }

  async close(): Promise<void> {
    await this.dispatchers.close();
  }

  /** GET /v1/commands/: every command the agent ran since it booted, oldest first. */
  async list(agent: AgentEndpoint, signal?: AbortSignal): Promise<CommandResult[]> {
    const target = await this.target(agent, {});
    const response = await this.call(agent, target, { method: 'GET', ...(signal === undefined ? {} : { signal }) });
    const failure = statusError(response, 'listing agent commands');
    if (failure !== undefined) {
      throw failure;
    }
    const commands = (response.body as { commands?: unknown } | undefined)?.commands;
    if (!Array.isArray(commands) || !commands.every(isCommand)) {
      throw new AgentError('AgentProtocolError', 'listing agent commands: the answer is not a command list');
    }
    return commands;
  }

  private async post(agent: AgentEndpoint, name: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<CommandResult> {
    const target = await this.target(agent, { wait: 'false' });
    const body = { name, params };
    const response = await this.call(agent, target, { method: 'POST', body, ...(signal === undefined ? {} : { signal }) });
    const failure = statusError(response, `sending ${name}`);
    if (failure !== undefined) {
      throw failure;
    }
    if (!isCommand(response.body)) {
      throw new AgentError('AgentProtocolError', `sending ${name}: the answer is not a command result`);
    }
    return response.body;
  }

  /** The command the agent accepted after `before` commands, when it is `name`. */
  private async started(agent: AgentEndpoint, name: string, before: number, signal?: AbortSignal): Promise<CommandResult | undefined> {
    const commands = await this.list(agent, signal).catch((err: unknown) => {
      if (err instanceof TransportError) return [];
      throw err;
    });
    const last = commands.at(-1);
    return commands.length > before && last !== undefined && last.command_name === bareName(name) ? last : undefined;
  }

  private async attempt(agent: AgentEndpoint, name: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<CommandResult | undefined> {
    const before = (await this.list(agent, signal)).length;
    try {
      return await this.post(agent, name, params, signal);
    } catch (err) {
      if (!(err instanceof TransportError)) throw err;
      return this.started(agent, name, before, signal);
    }
  }

  /**
   * POST the command. When the POST gets no answer, the command list tells whether the agent
   * started it anyway; only when it did not is the POST repeated (after a pause).
   */
  async send(agent: AgentEndpoint, name: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<CommandResult> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.postAttempts; attempt += 1) {
      try {
        const command = await this.attempt(agent, name, params, signal);
        if (command !== undefined) return command;
      } catch (err) {
        if (!(err instanceof TransportError)) throw err;
        lastError = err;
      }
      if (attempt < this.postAttempts) await this.sleep(this.pollIntervalMs, signal);
    }
    throw new AgentError('AgentUnreachable', `sending ${name}: the agent could not be reached`, { cause: lastError });
  }

  /** The command as the agent now reports it, or 'unreachable' when the agent did not answer. */
  private async refresh(agent: AgentEndpoint, command: CommandResult, signal?: AbortSignal): Promise<CommandResult | 'unreachable'> {
    try {
      const found = (await this.list(agent, signal)).find((candidate) => candidate.id === command.id);
      if (found === undefined) {
        throw new AgentError('AgentProtocolError', `agent command ${command.command_name} disappeared (did the agent restart?)`);
      }
      return found;
    } catch (err) {
      if (err instanceof TransportError) return 'unreachable';
      // A busy agent is polled again until the deadline.
      if (err instanceof AgentError && err.reason === 'AgentBusy') return command;
      throw err;
    }
  }

  /**
   * Polls until the command is no longer RUNNING; rejects after `deadline` (clock time). An
   * agent that stops answering is polled again until the deadline, unless `goneIsDone` (a
   * power_off: the agent going away is the command taking effect), which returns 'gone'.
   */
  async wait(
    agent: AgentEndpoint,
    command: CommandResult,
    options: { deadline: number; signal?: AbortSignal; goneIsDone?: boolean },
  ): Promise<CommandResult | 'gone'> {
    let current = command;
    while (current.command_status === 'RUNNING') {
      if (options.signal?.aborted === true) throw abortError(options.signal);
      if (this.now() >= options.deadline) {
        throw new AgentError('AgentTimeout', `agent command ${command.command_name} still running at the deadline`);
      }
      await this.sleep(this.pollIntervalMs, options.signal);
      const next = await this.refresh(agent, current, options.signal);
      if (next === 'unreachable' && options.goneIsDone === true) return 'gone';
      current = next === 'unreachable' ? current : next;
    }
    return current;
  }

  /** Send, wait, and reject unless the command SUCCEEDED. */
  async run(agent: AgentEndpoint, name: string, params: Record<string, unknown>, options: WaitOptions): Promise<CommandResult> {
    const deadline = this.now() + options.timeoutMs;
    const sent = await this.send(agent, name, params, options.signal);
    const done = await this.wait(agent, sent, { deadline, ...(options.signal === undefined ? {} : { signal: options.signal }) });
    if (done === 'gone' || done.command_status !== 'SUCCEEDED') {
      throw done === 'gone' ? new AgentError('AgentUnreachable', `agent went away during ${name}`) : commandFailure(done);
    }
    return done;
  }
}
