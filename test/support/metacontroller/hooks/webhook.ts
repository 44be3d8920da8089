// Calling one hook (§3.1): POST application/json, success only on HTTP 200 with a body; 429
// means "retry after Retry-After" (no error); anything else, transport errors and the timeout
// (connect + headers + body) fail the sync with the response text in the message.
import { Agent, request } from 'undici';
import { retryAfterMs } from '../core/backoff.js';
import type { Logger } from '../log.js';
import { redact } from '../log.js';
import type { Endpoint } from './endpoint.js';

/** The hook answered 429: re-enqueue after `delayMs`, not counted as an error. */
export class RetryLater extends Error {
  constructor(readonly delayMs: number) {
    super(`hook asked to retry after ${String(delayMs)} ms`);
    this.name = 'RetryLater';
  }
}

export interface HookMetrics {
  observe(hook: string, url: string, code: string, seconds: number): void;
}

export class HookClient {
  private readonly agent: Agent;

  constructor(
    readonly name: string,
    readonly endpoint: Endpoint,
    private readonly log: Logger,
    private readonly metrics?: HookMetrics,
  ) {
    const { ca, cert, key } = endpoint.tls;
    this.agent = new Agent({ connect: { ca, cert, key, minVersion: 'TLSv1.2' } });
  }

  /** POST `body`; returns the response text of a 200. */
  async call(body: unknown): Promise<string> {
    const started = performance.now();
    const json = JSON.stringify(body);
    if (this.log.enabled(6)) this.log.info(6, `${this.name} hook request to ${this.endpoint.url}: ${JSON.stringify(redact(body))}`);
    let code = 'error';
    try {
      const response = await request(this.endpoint.url, {
        method: 'POST',
        headers: this.endpoint.headers,
        body: json,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.endpoint.timeoutMs),
      });
      code = String(response.statusCode);
      const text = await response.body.text();
      if (this.log.enabled(6)) this.log.info(6, `${this.name} hook response ${code} from ${this.endpoint.url}: ${redactText(text)}`);
      return this.check(response.statusCode, response.headers['retry-after'], text);
    } catch (error) {
      if (error instanceof RetryLater || error instanceof HookError) throw error;
      throw new HookError(`${this.name} hook ${this.endpoint.url} failed: ${describeError(error, this.endpoint.timeoutMs)}`);
    } finally {
      this.metrics?.observe(this.name, this.endpoint.url, code, (performance.now() - started) / 1000);
    }
  }

  private check(status: number, retryAfter: string | string[] | undefined, text: string): string {
    if (status === 429) throw new RetryLater(retryAfterMs(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter));
    if (status !== 200) throw new HookError(`${this.name} hook ${this.endpoint.url} returned HTTP ${String(status)}: ${text.slice(0, 2000)}`);
    return text;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

export class HookError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HookError';
  }
}

function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `Client.Timeout exceeded (${String(timeoutMs)} ms)`;
  }
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error instanceof Error ? error.message : String(error)}${cause}`;
}

function redactText(text: string): string {
  try {
    return JSON.stringify(redact(JSON.parse(text)));
  } catch {
    return text.slice(0, 2000);
  }
}
