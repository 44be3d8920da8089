// Register: read and claim the credentials Secret, connect
// through the network guard, check the BMC (reachable, credentials accepted, the capabilities the
// scheme needs, and the SecureBoot resource when spec.bootMode is UEFISecureBoot), read power. The credentials version is reported even when registration fails
// afterwards, so the hook can record triedCredentials.
import type { BMCCheck } from '../../bmc/types.js';
import { claimSecret, credentialsFrom, credentialsReport, readCredentials } from '../credentials.js';
import type { ReadCredentials } from '../credentials.js';
import { DriverError } from '../../errors.js';
import { permanent, transient } from '../errors.js';
import type { Connection } from '../connect.js';
import type { ExecutionContext, Executor } from './context.js';

/** Registration failures name the step that failed, so a host stuck in registering says where to look (trap 10). */
function atStep(step: string, detail: string, fix: string): string {
  return `BMC registration failed at ${step}: ${detail}; ${fix}`;
}

function unreachable(check: BMCCheck, connection: Connection, where: string): Error {
  const problem = check.problem;
  if (problem?.reason === 'TLSVerificationFailed') {
    const fix = 'give the BMC a certificate the pool trusts, or set spec.bmc.disableCertificateVerification: true';
    return permanent('TLSVerificationFailed', atStep('TLS', `${where}: ${problem.message}`, fix));
  }
  const transport = connection.address.driver === 'ipmi' ? 'UDP (IPMI)' : 'TCP';
  const detail = problem === undefined ? `${where} did not answer` : `${where} did not answer: ${problem.message}`;
  return transient(
    'BMCUnreachable',
    atStep(`the ${transport} connection`, detail, 'check the address, the port, routes and firewalls between the driver pool and the BMC'),
  );
}

function evaluate(check: BMCCheck, connection: Connection): void {
  const where = `${connection.address.scheme} BMC at ${connection.key}`;
  if (!check.reachable) {
    throw unreachable(check, connection, where);
  }
  if (!check.authenticated) {
    const { name, namespace } = connection.credentials.report;
    const detail = `${where} rejected the credentials in secret ${namespace}/${name}${check.problem ? ` (${check.problem.reason})` : ''}`;
    throw permanent('AuthenticationFailed', atStep('authentication', detail, 'correct the credentials in that Secret (editing it retries at once)'));
  }
  if (check.missing.length > 0) {
    const detail = `${where} lacks what the ${connection.address.baseScheme} scheme needs: ${check.missing.join(', ')}`;
    const fix = check.missing.some((name) => name.startsWith('SecureBoot'))
      ? 'set spec.bootMode to UEFI (or pick a BMC with UEFI secure boot), or update its firmware'
      : 'pick the scheme that matches this BMC, or update its firmware';
    throw permanent('Unsupported', atStep('the capability check', detail, fix));
  }
}

/** DNS and the network guard fail before any BMC call: say which. */
async function connect(ctx: ExecutionContext, claimed: ReadCredentials): Promise<Connection> {
  try {
    return await ctx.connection(claimed);
  } catch (error) {
    if (!(error instanceof DriverError)) throw error;
    if (error.reason === 'AddressNotAllowed') {
      throw permanent(error.reason, atStep('the network guard', error.message, 'add the network to ALLOWED_BMC_NETWORKS if the pool may contact it'));
    }
    if (error.reason === 'BMCUnreachable' && /could not be resolved|resolved to no address/u.test(error.message)) {
      throw transient(error.reason, atStep('DNS', error.message, 'check the BMC host name and the DNS the driver pool uses'));
    }
    throw error;
  }
}

async function claim(ctx: ExecutionContext, read: ReadCredentials): Promise<ReadCredentials> {
  return ctx.step(
    'ClaimCredentials',
    async () => credentialsFrom(await claimSecret(ctx.services.kube, read.secret, ctx.host)),
    (claimed) => `labelled environment.metal3.io=baremetal, owned by the host, finalizer set (version ${claimed.report.credentialsVersion})`,
  );
}

export const register: Executor = async (ctx) => {
  const { bmc } = ctx.op.spec;
  const read = await ctx.step(
    'ReadCredentials',
    () => readCredentials(ctx.services.kube, ctx.host.namespace, bmc.credentialsName),
    (found) => {
      const report = credentialsReport(found.secret);
      return `secret ${report.namespace}/${report.name} (version ${report.credentialsVersion})`;
    },
  );
  ctx.partialResult({ credentials: read.report });
  const claimed = await claim(ctx, read);
  ctx.partialResult({ credentials: claimed.report });
  const connection = await connect(ctx, claimed);
  // The check fails its own step, so the request's steps show where registration stopped.
  const check = await ctx.bmcStep(
    'CheckBMC',
    async () => {
      const result = await connection.driver.check({ secureBoot: ctx.op.spec.bootMode === 'UEFISecureBoot' });
      evaluate(result, connection);
      return result;
    },
    (result) => {
      const identity = Object.entries(result.identity)
        .map(([key, value]) => `${key}=${value}`)
        .join(', ');
      return identity === '' ? 'BMC reachable, credentials accepted' : `BMC reachable, credentials accepted (${identity})`;
    },
  );
  const power = check.powerState ?? (await connection.driver.getPower());
  return {
    credentials: claimed.report,
    provisioningID: ctx.op.spec.host.uid,
    poweredOn: power === 'on',
    hardwareProfile: connection.address.baseScheme === 'libvirt' ? 'libvirt' : 'unknown',
  };
};
