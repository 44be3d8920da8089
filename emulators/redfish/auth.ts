// Authentication for the emulator: HTTP basic on every request, or a session (POST
// SessionService/Sessions with UserName/Password → X-Auth-Token and Location; DELETE to log out).
// Credentials belong to systems: a request about one system needs that system's credentials, a
// request about the service needs any system's. Wrong passwords count towards a lockout.
import { randomBytes } from 'node:crypto';
import type { EmulatedSystem } from './system.js';

export interface Session {
  readonly id: string;
  readonly token: string;
  readonly username: string;
  /** Systems whose credentials matched at login (less those whose password changed since). */
  readonly systems: Set<string>;
}

export type LoginOutcome = { readonly kind: 'created'; readonly session: Session } | { readonly kind: 'unauthorized' } | { readonly kind: 'limit' };

function basicCredentials(header: string | undefined): { username: string; password: string } | undefined {
  if (header?.startsWith('Basic ') !== true) {
    return undefined;
  }
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export class AuthService {
  private readonly sessions = new Map<string, Session>();
  private nextId = 1;

  constructor(
    private readonly systems: () => EmulatedSystem[],
    private readonly maxSessions: number,
  ) {}

  /** The system ids the credentials open; failures count only when nothing accepted them. */
  verify(username: string, password: string, candidates: EmulatedSystem[]): Set<string> {
    const accepted = candidates.filter((system) => system.accepts(username, password));
    for (const system of accepted.length > 0 ? accepted : candidates) {
      system.login(username, password);
    }
    return new Set(accepted.map((system) => system.id));
  }

  /** Whether the request's credentials open `target` (or, without a target, the service). */
  authorized(headers: { authorization?: string; token?: string }, target: EmulatedSystem | undefined): boolean {
    if (headers.token !== undefined) {
      const session = this.sessions.get(headers.token);
      return session !== undefined && (target === undefined || (session.systems.has(target.id) && !target.locked));
    }
    const basic = basicCredentials(headers.authorization);
    if (basic === undefined) {
      return false;
    }
    const candidates = target === undefined ? this.systems() : [target];
    return this.verify(basic.username, basic.password, candidates).size > 0;
  }

  login(username: unknown, password: unknown): LoginOutcome {
    if (typeof username !== 'string' || typeof password !== 'string') {
      return { kind: 'unauthorized' };
    }
    const systems = this.verify(username, password, this.systems());
    if (systems.size === 0) {
      return { kind: 'unauthorized' };
    }
    if (this.sessions.size >= this.maxSessions) {
      return { kind: 'limit' };
    }
    const session: Session = { id: String(this.nextId), token: randomBytes(24).toString('hex'), username, systems };
    this.nextId += 1;
    this.sessions.set(session.token, session);
    return { kind: 'created', session };
  }

  byId(id: string): Session | undefined {
    return [...this.sessions.values()].find((session) => session.id === id);
  }

  logout(id: string): boolean {
    const session = this.byId(id);
    return session !== undefined && this.sessions.delete(session.token);
  }

  list(): Session[] {
    return [...this.sessions.values()];
  }

  /**
   * `systemId`'s password changed: sessions lose access to it, and end when it was their only one.
   * A session that also opened other systems keeps them, as the other accounts did not change.
   */
  expireFor(systemId: string): void {
    for (const [token, session] of this.sessions) {
      session.systems.delete(systemId);
      if (session.systems.size === 0) this.sessions.delete(token);
    }
  }

  /** Forgets every session (as a BMC reboot or session timeout would). */
  expireAll(): void {
    this.sessions.clear();
  }
}
