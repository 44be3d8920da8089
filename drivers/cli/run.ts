// `ironhook bmc …` on the pool's own drivers: parse, resolve the address (scheme registry), the
// network guard, the credentials, then one driver call. Every side effect is a dependency, so
// unit tests run it against fakes; main.ts wires the real ones.
import { parseBMCAddress, type ParsedBMCAddress } from '../../domain/bmc/index.js';
import type { BMCConnectionOptions, BMCCredentials, BMCDriver, PowerAction, PowerState } from '../bmc/types.js';
import { pinTo } from '../pool/connect.js';
import { parseCLI, type BMCCommand, type CommonOptions, type ImageOnlyCommand } from './args.js';
import { CredentialsError, resolveCredentials, type CredentialSources } from './credentials.js';
import type { ImageFetchOptions } from './image-fetch.js';
import { checkImage, imageErrorVerdict, imageURLProblem, imageVerdict, PROBE_BYTES, type ImageCheck, type ImageFetch } from './image-check.js';
import { addressVerdict, checkVerdict, errorVerdict, EXIT_CODES, notAllowedVerdict, scrub, type Verdict } from './verdict.js';

export interface HostGuard {
  /** Resolves the host and checks every address; throws (reason AddressNotAllowed) when refused. */
  checkHost(host: string, what: string): Promise<string[]>;
}

export interface CLIDeps extends CredentialSources {
  out(text: string): void;
  err(text: string): void;
  createDriver(options: BMCConnectionOptions): BMCDriver;
  /** Builds the guard from a comma-separated CIDR list; throws on a malformed list. */
  createGuard(allowedNetworks: string): HostGuard;
  /** The HTTP client of --image, with the command's TLS options. */
  createImageFetch(options: ImageFetchOptions): { fetch: ImageFetch; close(): Promise<void> };
  sleep(ms: number): Promise<void>;
  now(): number;
}

interface Prepared {
  address: ParsedBMCAddress;
  pool: PoolAcceptance;
  /** The addresses the guard checked when it accepted the BMC: the only ones the CLI then contacts. */
  checked?: string[];
  credentials: BMCCredentials;
  caBundle?: string;
}

const POWER_POLL_MS = 1_000;

class Printer {
  readonly secrets: string[] = [];

  constructor(
    private readonly deps: CLIDeps,
    private readonly json: boolean,
  ) {}

  out(text: string): void {
    this.deps.out(scrub(text, this.secrets));
  }

  err(text: string): void {
    this.deps.err(scrub(text, this.secrets));
  }

  verdict(verdict: Verdict, extra: Record<string, unknown> = {}): number {
    if (this.json) {
      this.out(
        JSON.stringify({ verdict: verdict.kind, exitCode: verdict.exitCode, message: verdict.headline.slice(2), hints: verdict.hints, ...extra }, null, 2),
      );
    } else {
      const write =
        verdict.exitCode === 0
          ? (text: string): void => {
              this.out(text);
            }
          : (text: string): void => {
              this.err(text);
            };
      write([verdict.headline, ...verdict.hints.map((hint) => `  - ${hint}`)].join('\n'));
    }
    return verdict.exitCode;
  }
}

function allowedNetworks(command: CommonOptions, env: CLIDeps['env']): string | undefined {
  const text = command.allowedNetworks ?? env.ALLOWED_BMC_NETWORKS;
  return text === undefined || text.trim() === '' ? undefined : text;
}

/** Whether the driver pool would contact this BMC: its network guard, run here on the same list. */
interface PoolAcceptance {
  accepted: boolean;
  message: string;
}

/** The pool's answer, and the addresses its guard checked when it accepted (what the CLI then contacts). */
interface Acceptance {
  pool: PoolAcceptance;
  checked?: string[];
}

async function poolAcceptance(command: CommonOptions, address: ParsedBMCAddress, deps: CLIDeps): Promise<Acceptance | Verdict> {
  const networks = allowedNetworks(command, deps.env);
  if (networks === undefined) {
    return {
      pool: { accepted: false, message: 'the driver pool would refuse it: no allowed networks are configured (ALLOWED_BMC_NETWORKS, e.g. 10.0.0.0/24)' },
    };
  }
  let guard: HostGuard;
  try {
    guard = deps.createGuard(networks);
  } catch (err) {
    return { ...errorVerdict(err), kind: 'usage', exitCode: EXIT_CODES.usage };
  }
  try {
    const addresses = await guard.checkHost(address.host, 'BMC');
    const resolved = addresses.join(', ') === address.host ? '' : ` (${addresses.join(', ')})`;
    return { pool: { accepted: true, message: `the driver pool would accept it: ${address.host}${resolved} is inside ${networks}` }, checked: addresses };
  } catch (err) {
    return { pool: { accepted: false, message: `the driver pool would refuse it: ${err instanceof Error ? err.message : String(err)}` } };
  }
}

/** A usable BMC the pool would refuse is exit 4; otherwise the pool's answer is one more hint. */
function withPool(verdict: Verdict, pool: PoolAcceptance): Verdict {
  if (verdict.exitCode === 0 && !pool.accepted) {
    return notAllowedVerdict(`the BMC is usable from here, but ${pool.message}`);
  }
  return { ...verdict, hints: [...verdict.hints, `pool: ${pool.message}`] };
}

async function readCA(path: string | undefined, deps: CLIDeps): Promise<string | undefined> {
  if (path === undefined) return undefined;
  try {
    return await deps.readFile(path);
  } catch {
    throw new CredentialsError(`--ca-file ${path} cannot be read`);
  }
}

/** Everything before the first BMC call; a Verdict when the command cannot go on. */
async function prepare(command: BMCCommand, deps: CLIDeps): Promise<Prepared | Verdict> {
  const parsed = parseBMCAddress(command.address);
  if (parsed.kind === 'none') return { kind: 'usage', exitCode: EXIT_CODES.usage, headline: '✗ empty BMC address', hints: [] };
  if (parsed.kind === 'invalid') return addressVerdict(parsed.error);
  // Typing an address is explicit intent: the CLI contacts it whatever the pool's guard says, and reports that.
  // When the guard accepted it, the CLI contacts the addresses the guard checked and no others (DNS rebinding).
  const acceptance = await poolAcceptance(command, parsed.bmc, deps);
  if ('exitCode' in acceptance) return acceptance;
  try {
    const credentials = await resolveCredentials(command, deps);
    const caBundle = await readCA(command.caFile, deps);
    return { address: parsed.bmc, ...acceptance, credentials, ...(caBundle === undefined ? {} : { caBundle }) };
  } catch (err) {
    if (!(err instanceof CredentialsError)) throw err;
    return { kind: 'usage', exitCode: EXIT_CODES.usage, headline: `✗ ${err.message}`, hints: [] };
  }
}

interface ImageResult {
  verdict: Verdict;
  check?: ImageCheck;
}

async function imageResult(url: string, tls: { insecure: boolean; caBundle?: string; timeoutSeconds: number }, deps: CLIDeps): Promise<ImageResult> {
  const problem = imageURLProblem(url);
  if (problem !== undefined) return { verdict: { kind: 'usage', exitCode: EXIT_CODES.usage, headline: `✗ ${problem}`, hints: [] } };
  const fetcher = deps.createImageFetch({
    insecure: tls.insecure,
    ...(tls.caBundle === undefined ? {} : { caBundle: tls.caBundle }),
    timeoutMs: tls.timeoutSeconds * 1000,
    maxBytes: PROBE_BYTES,
  });
  try {
    const check = await checkImage(url, fetcher.fetch);
    return { verdict: imageVerdict(check), check };
  } catch (err) {
    return { verdict: imageErrorVerdict(url, err) };
  } finally {
    await fetcher.close().catch(() => undefined);
  }
}

/** The BMC's verdict, then the image's; the exit code is the first failure's. */
function printBoth(printer: Printer, bmc: { verdict: Verdict; extra: Record<string, unknown> }, image: ImageResult, json: boolean): number {
  const exitCode = bmc.verdict.exitCode === 0 ? image.verdict.exitCode : bmc.verdict.exitCode;
  if (json) {
    const { kind, exitCode: imageExit, headline, hints } = image.verdict;
    printer.verdict(
      { ...bmc.verdict, exitCode },
      { ...bmc.extra, image: { verdict: kind, exitCode: imageExit, message: headline.slice(2), hints, check: image.check } },
    );
    return exitCode;
  }
  printer.verdict(bmc.verdict);
  printer.verdict(image.verdict);
  return exitCode;
}

async function runImageOnly(command: ImageOnlyCommand, deps: CLIDeps): Promise<number> {
  const printer = new Printer(deps, command.json);
  let caBundle: string | undefined;
  try {
    caBundle = await readCA(command.caFile, deps);
  } catch (err) {
    return printer.verdict({ kind: 'usage', exitCode: EXIT_CODES.usage, headline: `✗ ${err instanceof Error ? err.message : String(err)}`, hints: [] });
  }
  const image = await imageResult(
    command.image,
    { insecure: command.insecure, timeoutSeconds: command.timeoutSeconds, ...(caBundle === undefined ? {} : { caBundle }) },
    deps,
  );
  return printer.verdict(image.verdict, { check: image.check });
}

const POWER_ACTIONS: Record<'on' | 'off' | 'reboot', [PowerAction, PowerAction, PowerState]> = {
  on: ['on', 'on', 'on'],
  off: ['off', 'soft-off', 'off'],
  reboot: ['reboot', 'soft-reboot', 'on'],
};

async function waitForPower(driver: BMCDriver, target: PowerState, timeoutMs: number, deps: CLIDeps): Promise<boolean> {
  const deadline = deps.now() + timeoutMs;
  for (;;) {
    if ((await driver.getPower()) === target) return true;
    if (deps.now() >= deadline) return false;
    await deps.sleep(POWER_POLL_MS);
  }
}

async function power(driver: BMCDriver, command: Extract<BMCCommand, { kind: 'power' }>, printer: Printer, deps: CLIDeps): Promise<number> {
  if (command.verb === 'status') {
    const state = await driver.getPower();
    printer.out(command.json ? JSON.stringify({ powerState: state }) : state);
    return 0;
  }
  const [hard, soft, target] = POWER_ACTIONS[command.verb];
  const action = command.soft ? soft : hard;
  await driver.setPower(action);
  if (!command.wait) {
    printer.out(`power ${action}: accepted by the BMC`);
    return 0;
  }
  // On stderr, so stdout keeps only the result: says what the wait is for, and for how long at most.
  if (!command.json) printer.err(`power ${action}: accepted; waiting up to ${String(command.timeoutSeconds)} s for the BMC to report power ${target}`);
  const settled = await waitForPower(driver, target, command.timeoutSeconds * 1000, deps);
  if (settled) {
    printer.out(`power ${action}: the BMC reports power ${target}`);
    return 0;
  }
  printer.err(`✗ power ${action}: accepted, but the BMC did not report power ${target} within ${String(command.timeoutSeconds)} s`);
  return EXIT_CODES.error;
}

function identityLines(identity: Record<string, string>): string {
  return Object.entries(identity)
    .map(([key, value]) => `  ${key}: ${value}`)
    .join('\n');
}

async function execute(driver: BMCDriver, command: BMCCommand, context: { printer: Printer; prepared: Prepared; deps: CLIDeps }): Promise<number> {
  const { printer, prepared, deps } = context;
  switch (command.kind) {
    case 'check': {
      const check = await driver.check();
      const verdict = withPool(checkVerdict(check, { address: prepared.address, username: prepared.credentials.username }), prepared.pool);
      if (!command.json) printer.out(identityLines(check.identity));
      if (command.image === undefined) return printer.verdict(verdict, { check, pool: prepared.pool });
      const tls = {
        insecure: command.insecure,
        timeoutSeconds: command.timeoutSeconds,
        ...(prepared.caBundle === undefined ? {} : { caBundle: prepared.caBundle }),
      };
      return printBoth(printer, { verdict, extra: { check, pool: prepared.pool } }, await imageResult(command.image, tls, deps), command.json);
    }
    case 'power':
      return power(driver, command, printer, deps);
    case 'boot': {
      await driver.setBootDevice({ device: command.device, persistent: command.persistent, mode: command.mode });
      printer.out(`boot device set: ${command.device} (${command.persistent ? 'persistent' : 'once'}, ${command.mode})`);
      return 0;
    }
    case 'inventory':
      printer.out(JSON.stringify(await driver.inventory(), null, 2));
      return 0;
  }
}

async function runBMCCommand(command: BMCCommand, deps: CLIDeps): Promise<number> {
  const printer = new Printer(deps, command.json);
  const prepared = await prepare(command, deps);
  if ('exitCode' in prepared) return printer.verdict(prepared);
  printer.secrets.push(prepared.credentials.password);
  if (command.kind !== 'check' && !prepared.pool.accepted) printer.err(`note: ${prepared.pool.message}`);
  const driver = deps.createDriver({
    ...(prepared.checked === undefined ? { address: prepared.address } : pinTo(prepared.address, prepared.checked)),
    credentials: prepared.credentials,
    disableCertificateVerification: command.insecure,
    ...(prepared.caBundle === undefined ? {} : { caBundle: prepared.caBundle }),
    timeoutMs: command.timeoutSeconds * 1000,
  });
  try {
    return await execute(driver, command, { printer, prepared, deps });
  } catch (err) {
    return printer.verdict(errorVerdict(err));
  } finally {
    await driver.close().catch(() => undefined);
  }
}

/** The whole CLI: returns the exit code. */
export async function runCLI(argv: readonly string[], deps: CLIDeps): Promise<number> {
  const parsed = parseCLI(argv);
  if (parsed.kind === 'help') {
    deps.out(parsed.text);
    return 0;
  }
  if (parsed.kind === 'usage') {
    deps.err(`ironhook: ${parsed.message}\n(run "ironhook bmc --help" for usage)`);
    return EXIT_CODES.usage;
  }
  if (parsed.kind === 'image') return runImageOnly(parsed.command, deps);
  return runBMCCommand(parsed.command, deps);
}
