// DNS rebinding against the network guard (issue 14): a BMC named by a host name is contacted only
// at the addresses the guard checked. A fake DNS answers the allowed 127.0.0.1 to the first lookup
// of bmc.example.test (the guard's) and the not-allowed 127.0.0.2 to every lookup after it; the
// system resolver is stubbed with the same answers, so no query leaves the machine. Real servers
// listen on both addresses with the same port and a certificate for the name: the rebound one must
// see no connection at all, while TLS still verifies the certificate against the name.
import dns from 'node:dns';
import { once } from 'node:events';
import { createServer as createHTTPServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHTTPSServer } from 'node:https';
import { isIP, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireOpenssl } from '../../devenv/tls.js';
import { AgentClient } from '../../drivers/agent/client.js';
import { agentGuard } from '../../drivers/agent/guard.js';
import { PinnedDispatchers } from '../../drivers/agent/tls.js';
import { createBMCDriver } from '../../drivers/bmc/registry.js';
import { BMCError, type BMCConnectionOptions } from '../../drivers/bmc/types.js';
import { BMCGate } from '../../drivers/pool/bmc-gate.js';
import { ManualClock } from '../../drivers/pool/clock.js';
import { connect } from '../../drivers/pool/connect.js';
import type { ReadCredentials } from '../../drivers/pool/credentials.js';
import { createNetworkGuard } from '../../drivers/pool/network-guard.js';
import { createHttpTransport } from '../../drivers/redfish/transport.js';
import { agentCertificate, type AgentCertificate } from '../../emulators/agent/tls.js';
import { startRedfishEmulator, type RedfishEmulator } from '../../emulators/redfish/index.js';
import { rejectionOf } from '../support/rejection.js';

const NAME = 'bmc.example.test';
const ALLOWED = '127.0.0.1';
const REBOUND = '127.0.0.2';
const SYSTEM = 'host-0';
const CREDENTIALS: ReadCredentials = {
  credentials: { username: 'admin', password: 'rebinding-test-password' },
  report: { credentialsVersion: '1', name: 'bmc', namespace: 'metal3' },
  secret: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bmc', namespace: 'metal3' } },
};

/** bmc.example.test: the allowed address to the first lookup, the rebound one to every later lookup. */
const fakeDNS = {
  lookups: 0,
  /** Lookups through the system resolver (undici resolving the name itself). */
  systemLookups: 0,
  answer(): string[] {
    this.lookups += 1;
    return this.lookups === 1 ? [ALLOWED] : [REBOUND];
  },
  reset(): void {
    this.lookups = 0;
    this.systemLookups = 0;
  },
};

function notFound(host: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

const originalLookup = dns.lookup.bind(dns);

/** The system resolver in this file: IP literals as Node answers them, the test name from fakeDNS, nothing else. */
function systemLookup(host: string, options: dns.LookupOptions | LookupCallback, maybeCallback?: LookupCallback): void {
  const callback = typeof options === 'function' ? options : (maybeCallback as LookupCallback);
  const opts = typeof options === 'function' ? {} : options;
  if (isIP(host) !== 0) {
    originalLookup(host, { ...opts, all: true }, (err, addresses) => {
      const [first] = addresses;
      if (opts.all === true || err !== null || first === undefined) callback(err, addresses);
      else callback(null, first.address, first.family);
    });
    return;
  }
  if (host !== NAME) {
    callback(notFound(host), []);
    return;
  }
  fakeDNS.systemLookups += 1;
  const [address = REBOUND] = fakeDNS.answer();
  if (opts.all === true) callback(null, [{ address, family: 4 }]);
  else callback(null, address, 4);
}

function guard(): ReturnType<typeof createNetworkGuard> {
  return createNetworkGuard({
    allowed: [`${ALLOWED}/32`],
    resolve: (host) => (host === NAME ? Promise.resolve(fakeDNS.answer()) : Promise.reject(notFound(host))),
  });
}

interface Listener {
  server: Server;
  /** TCP connections accepted. */
  connections: number;
  port: number;
}

const answerJSON: RequestListener = (_req, res) => {
  // Connection: close makes undici open a new socket for every request: each one is a reconnect.
  res.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end('{"ok":true,"commands":[]}');
};

/** Every server listen() started, closed after the file. */
const servers: Server[] = [];

async function listen(host: string, port: number, tls: AgentCertificate | undefined): Promise<Listener> {
  const server = tls === undefined ? createHTTPServer(answerJSON) : createHTTPSServer({ key: tls.key, cert: tls.cert }, answerJSON);
  servers.push(server);
  const listener: Listener = { server, connections: 0, port };
  server.on('connection', () => {
    listener.connections += 1;
  });
  server.listen(port, host);
  await once(server, 'listening');
  listener.port = (server.address() as AddressInfo).port;
  return listener;
}

async function closeAll(servers: Server[]): Promise<void> {
  await Promise.all(
    servers.map(async (server) => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    }),
  );
}

let named: AgentCertificate;
let otherName: AgentCertificate;
const emulators: Record<'https' | 'wrongName' | 'http', RedfishEmulator | undefined> = { https: undefined, wrongName: undefined, http: undefined };
/** The rebound address's servers, one on each emulator's port, and the transport rows' pair. */
const rebound: Partial<Record<'https' | 'wrongName' | 'http' | 'transport', Listener>> = {};
let transportAllowed: Listener;

function emulator(which: keyof typeof emulators): RedfishEmulator {
  const found = emulators[which];
  if (found === undefined) throw new Error(`emulator ${which} did not start`);
  return found;
}

function reboundConnections(): number {
  return Object.values(rebound).reduce((sum, listener) => sum + listener.connections, 0);
}

async function settled(promise: Promise<unknown>): Promise<{ value: unknown } | { error: string }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error: String(error) }),
  );
}

async function connectTo(address: string, ca: string | undefined): Promise<Awaited<ReturnType<typeof connect>>> {
  const clock = new ManualClock();
  const factory = (options: BMCConnectionOptions): ReturnType<typeof createBMCDriver> =>
    createBMCDriver({ ...options, ...(ca === undefined ? {} : { caBundle: ca }) });
  const deps = { guard: guard(), gate: new BMCGate(clock), factory, timeoutMs: 5_000, ipmiCommandIntervalMs: 0 };
  return connect(deps, { address, credentialsName: 'bmc' }, CREDENTIALS);
}

describe('DNS rebinding: connections go only to the addresses the network guard checked', () => {
  beforeAll(requireOpenssl);
  beforeAll(async () => {
    vi.spyOn(dns, 'lookup').mockImplementation(systemLookup as unknown as typeof dns.lookup);
    [named, otherName] = await Promise.all([agentCertificate(NAME), agentCertificate('other.example.test')]);
    const system = { id: SYSTEM, username: CREDENTIALS.credentials.username, password: CREDENTIALS.credentials.password };
    emulators.https = await startRedfishEmulator({ systems: [system], tls: named });
    emulators.wrongName = await startRedfishEmulator({ systems: [system], tls: otherName });
    emulators.http = await startRedfishEmulator({ systems: [system], http: true });
    rebound.https = await listen(REBOUND, emulators.https.port, named);
    rebound.wrongName = await listen(REBOUND, emulators.wrongName.port, named);
    rebound.http = await listen(REBOUND, emulators.http.port, undefined);
    transportAllowed = await listen(ALLOWED, 0, named);
    rebound.transport = await listen(REBOUND, transportAllowed.port, named);
  });
  afterEach(() => {
    fakeDNS.reset();
    for (const listener of [...Object.values(rebound), transportAllowed]) listener.connections = 0;
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await Promise.all(Object.values(emulators).map(async (running) => running?.stop()));
    await closeAll(servers);
  });

  const rows = [
    { name: 'Redfish over HTTPS: the checked address serves, verified by the name', which: 'https', scheme: 'redfish', ca: () => named.cert },
    { name: 'Redfish virtual media over HTTPS, same', which: 'https', scheme: 'redfish-virtualmedia', ca: () => named.cert },
    { name: 'Redfish over plain HTTP: pinned to the checked address as before', which: 'http', scheme: 'redfish+http', ca: () => undefined },
  ] as const;

  it.each(rows)('$name', async ({ which, scheme, ca }) => {
    const running = emulator(which);
    const connection = await connectTo(`${scheme}://${NAME}:${running.port}/redfish/v1/Systems/${SYSTEM}`, ca());
    running.clearRequests();
    const powers: unknown[] = [];
    try {
      // Two calls: the second may reuse the first's socket or open a new one; both go to the checked address.
      for (let call = 0; call < 2; call += 1) powers.push(await settled(connection.driver.getPower()));
    } finally {
      await connection.driver.close();
    }
    expect({ reboundConnections: reboundConnections(), systemLookups: fakeDNS.systemLookups, guardLookups: fakeDNS.lookups }).toEqual({
      reboundConnections: 0,
      systemLookups: 0,
      guardLookups: 1,
    });
    expect(powers).toEqual([{ value: 'off' }, { value: 'off' }]);
    expect(running.requests().length).toBeGreaterThan(0);
  });

  it('a certificate for another name still fails (the pinned address does not switch off the name check)', async () => {
    const running = emulator('wrongName');
    const connection = await connectTo(`redfish://${NAME}:${running.port}/redfish/v1/Systems/${SYSTEM}`, otherName.cert);
    try {
      running.clearRequests();
      const error = await rejectionOf(connection.driver.getPower(), BMCError);
      expect(error).toMatchObject({ kind: 'Permanent', reason: 'TLSVerificationFailed' });
      expect(error.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
      // Checked against the name, not against the pinned address the socket went to.
      expect(String(error.cause)).toContain(`Host: ${NAME}. is not in the cert's altnames: DNS:other.example.test`);
      expect(running.requests()).toEqual([]);
    } finally {
      await connection.driver.close();
    }
    expect({ reboundConnections: reboundConnections(), systemLookups: fakeDNS.systemLookups }).toEqual({ reboundConnections: 0, systemLookups: 0 });
  });

  it('the next request checks again: the rebound address is refused before anything is sent', async () => {
    const running = emulator('https');
    const address = `redfish://${NAME}:${running.port}/redfish/v1/Systems/${SYSTEM}`;
    const first = await connectTo(address, named.cert);
    await first.driver.close();
    const second = connectTo(address, named.cert);
    await expect(second).rejects.toMatchObject({ kind: 'Permanent', reason: 'AddressNotAllowed' });
    await expect(second).rejects.toThrow(`BMC address ${NAME} (${REBOUND}) is outside the networks`);
    expect({ reboundConnections: reboundConnections(), systemLookups: fakeDNS.systemLookups }).toEqual({ reboundConnections: 0, systemLookups: 0 });
  });

  it('every new socket of the transport (keep-alive reconnects) goes to the checked address', async () => {
    fakeDNS.answer(); // the guard's lookup: from now on the name resolves to the rebound address
    const transport = createHttpTransport({
      origin: `https://${NAME}:${transportAllowed.port}`,
      timeoutMs: 5_000,
      insecure: false,
      caBundle: named.cert,
      pinnedAddresses: [ALLOWED],
    });
    try {
      for (let request = 0; request < 3; request += 1) {
        await expect(transport.send({ method: 'GET', path: '/redfish/v1/' })).resolves.toMatchObject({ status: 200, body: { ok: true } });
      }
    } finally {
      await transport.close();
    }
    expect({ allowed: transportAllowed.connections, rebound: reboundConnections(), systemLookups: fakeDNS.systemLookups }).toEqual({
      allowed: 3,
      rebound: 0,
      systemLookups: 0,
    });
  });

  it.each([
    { name: 'the agent callback over HTTPS (agent_verify_ca)', scheme: 'https', verifyCA: true },
    { name: 'the agent callback over plain HTTP', scheme: 'http', verifyCA: false },
  ])('$name: each request goes to the checked address; the next check refuses the rebound one', async ({ scheme, verifyCA }) => {
    const server = scheme === 'https' ? transportAllowed : await listen(ALLOWED, 0, undefined);
    const reboundHere = scheme === 'https' ? undefined : await listen(REBOUND, server.port, undefined);
    const client = new AgentClient({ dispatchers: new PinnedDispatchers(), guard: agentGuard(guard()), commandTimeoutMs: 5_000 });
    const endpoint = { callbackURL: `${scheme}://${NAME}:${server.port}`, token: 'agent-token-0123456789', ...(verifyCA ? { verifyCA: named.cert } : {}) };
    try {
      await expect(client.list(endpoint)).resolves.toEqual([]);
      await expect(client.list(endpoint)).rejects.toMatchObject({ kind: 'Permanent', reason: 'AgentAddressNotAllowed' });
    } finally {
      await client.close();
    }
    expect({ allowed: server.connections, rebound: reboundConnections() + (reboundHere?.connections ?? 0), systemLookups: fakeDNS.systemLookups }).toEqual({
      allowed: 1,
      rebound: 0,
      systemLookups: 0,
    });
  });
});
