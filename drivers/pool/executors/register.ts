// Register: read and claim the credentials Secret, connect
// through the network guard, check the BMC (reachable, credentials accepted, the capabilities the
// scheme needs), read power. The credentials version is reported even when registration fails
// afterwards, so the hook can record triedCredentials.
import type { BMCCheck } from '../../bmc/types.js';
import { claimSecret, credentialsFrom, credentialsReport, readCredentials } from '../credentials.js';
import type { ReadCredentials } from '../credentials.js';
import { permanent, transient } from '../errors.js';
import type { Connection } from '../connect.js';
import type { ExecutionContext, Executor } from './context.js';

function evaluate(check: BMCCheck, connection: Connection): void {
  const where = `${connection.address.scheme} BMC at ${connection.key}`;
  if (!check.reachable) {
    throw transient('BMCUnreachable', `${where} did not answer`);
  }
  if (!check.authenticated) {
    const { name, namespace } = connection.credentials.report;
    throw permanent('AuthenticationFailed', `${where} rejected the credentials in secret ${namespace}/${name}`);
  }
  if (check.missing.length > 0) {
    throw permanent('Unsupported', `${where} lacks what the ${connection.address.baseScheme} scheme needs: ${check.missing.join(', ')}`);
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
  const connection = await ctx.connection(claimed);
  const check = await ctx.step(
    'CheckBMC',
    () => connection.driver.check(),
    (result) => {
      const identity = Object.entries(result.identity)
        .map(([key, value]) => `${key}=${value}`)
        .join(', ');
      return identity === '' ? 'BMC reachable, credentials accepted' : `BMC reachable, credentials accepted (${identity})`;
    },
  );
  evaluate(check, connection);
  const power = check.powerState ?? (await connection.driver.getPower());
  return {
    credentials: claimed.report,
    provisioningID: ctx.op.spec.host.uid,
    poweredOn: power === 'on',
    hardwareProfile: connection.address.baseScheme === 'libvirt' ? 'libvirt' : 'unknown',
  };
};
