// Redfish authentication: basic, session, or auto (a session
// when the BMC offers a session service, basic otherwise or when the session service fails for a
// reason other than the credentials). A failed POST to Sessions is never retried. Sessions are
// deleted on logout, because BMCs allow only a handful at a time.
import { BMCError } from '../bmc/types.js';
import type { BMCCredentials } from '../bmc/types.js';
import type { RedfishLogger } from './clock.js';
import { Reason, httpError, permanentError } from './errors.js';
import { asResource, ref, text } from './resource.js';
import type { Resource } from './resource.js';
import type { HttpTransport } from './transport.js';

export type AuthMode = 'basic' | 'session' | 'auto';

type AuthState =
  { readonly kind: 'none' } | { readonly kind: 'basic' } | { readonly kind: 'session'; readonly token: string; readonly location: string | undefined };

const DEFAULT_SESSIONS_PATH = '/redfish/v1/SessionService/Sessions';

export interface AuthenticatorOptions {
  readonly transport: HttpTransport;
  readonly credentials: BMCCredentials;
  readonly mode: AuthMode;
  readonly logger: RedfishLogger;
  /** The unauthenticated service root, to find Links.Sessions. */
  readonly root: () => Promise<Resource>;
}

/** The Sessions collection the service root advertises, if any. */
function sessionsPathOf(root: Resource): string | undefined {
  const linked = ref(root, 'Links', 'Sessions');
  if (linked !== undefined) {
    return linked;
  }
  const service = ref(root, 'SessionService');
  return service === undefined ? undefined : `${service.replace(/\/+$/, '')}/Sessions`;
}

/** A Location header or @odata.id as a path on the BMC origin. */
function pathOf(location: string | undefined): string | undefined {
  if (location === undefined || location === '') {
    return undefined;
  }
  return new URL(location, 'http://bmc.invalid').pathname;
}

export class Authenticator {
  private state: AuthState = { kind: 'none' };
  private establishing: Promise<void> | undefined;

  constructor(private readonly options: AuthenticatorOptions) {}

  /** "basic" or "session" once established, "none" before. */
  get kind(): AuthState['kind'] {
    return this.state.kind;
  }

  /** Strings that must never appear in an error or log line. */
  secrets(): string[] {
    const { username, password } = this.options.credentials;
    const basic = Buffer.from(`${username}:${password}`).toString('base64');
    return this.state.kind === 'session' ? [password, basic, this.state.token] : [password, basic];
  }

  headers(): Record<string, string> {
    if (this.state.kind === 'session') {
      return { 'x-auth-token': this.state.token };
    }
    const { username, password } = this.options.credentials;
    return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
  }

  /** Establishes authentication once; concurrent callers share one attempt. */
  async ensure(): Promise<void> {
    if (this.state.kind !== 'none') {
      return;
    }
    this.establishing ??= this.establish().finally(() => {
      this.establishing = undefined;
    });
    await this.establishing;
  }

  /** After a 401 in a session: one new login (never retried itself). False for basic auth. */
  async refresh(): Promise<boolean> {
    if (this.state.kind !== 'session') {
      return false;
    }
    this.options.logger.debug({ auth: 'session' }, 'Redfish session rejected, logging in again');
    this.state = { kind: 'none' };
    await this.login(await this.sessionsPath());
    return true;
  }

  async logout(): Promise<void> {
    const state = this.state;
    this.state = { kind: 'none' };
    if (state.kind !== 'session' || state.location === undefined) {
      return;
    }
    try {
      const response = await this.options.transport.send({ method: 'DELETE', path: state.location, headers: { 'x-auth-token': state.token } });
      this.options.logger.debug({ status: response.status, session: state.location }, 'Redfish session deleted');
    } catch (error) {
      const reason = error instanceof BMCError ? error.reason : 'unknown';
      this.options.logger.debug({ reason, session: state.location }, 'Redfish session could not be deleted');
    }
  }

  private async sessionsPath(): Promise<string> {
    return sessionsPathOf(await this.options.root()) ?? DEFAULT_SESSIONS_PATH;
  }

  private async establish(): Promise<void> {
    if (this.options.mode === 'basic') {
      this.state = { kind: 'basic' };
      return;
    }
    if (this.options.mode === 'session') {
      await this.login(await this.sessionsPath());
      return;
    }
    await this.establishAuto();
  }

  private async establishAuto(): Promise<void> {
    const path = sessionsPathOf(await this.options.root());
    if (path === undefined) {
      this.options.logger.debug({ auth: 'basic' }, 'Redfish service offers no sessions, using basic auth');
      this.state = { kind: 'basic' };
      return;
    }
    try {
      await this.login(path);
    } catch (error) {
      if (!(error instanceof BMCError) || error.kind === 'Transient' || error.reason === Reason.CredentialsInvalid) {
        throw error;
      }
      this.options.logger.debug({ auth: 'basic', reason: error.reason }, 'Redfish session login failed, falling back to basic auth');
      this.state = { kind: 'basic' };
    }
  }

  private async login(path: string): Promise<void> {
    const { username, password } = this.options.credentials;
    const response = await this.options.transport.send({ method: 'POST', path, body: { UserName: username, Password: password } });
    if (response.status < 200 || response.status > 299) {
      throw httpError(response.status, response.body, `POST ${path}`);
    }
    const token = response.headers['x-auth-token'];
    if (token === undefined || token === '') {
      throw permanentError(Reason.Protocol, `POST ${path}: the BMC created a session but sent no X-Auth-Token`);
    }
    const location = pathOf(response.headers.location ?? text(asResource(response.body), '@odata.id'));
    this.state = { kind: 'session', token, location };
    this.options.logger.debug({ auth: 'session', session: location }, 'Redfish session created');
  }
}
