// Both sides of the bmh-admission area, judged by one real kube-apiserver:
//   Ironhook: a server-side dry run against Ironhook's BareMetalHost CRD (schema and CEL) and
//     its admission policy, as a user's `kubectl apply` meets them.
//   upstream: a server-side dry run against BMO's own CRD (the same release as the oracle,
//     installed under another API group so that both CRDs fit into one API server), and, when
//     that schema accepts, BMO's validating webhook (the oracle) on the object the API server
//     would have sent it: defaulted, pruned, and on updates with the stored status.
// Error texts differ by design: a case compares accepted or rejected.
import fc from 'fast-check';
import { parse } from 'yaml';

import type { HostInput, StoredStatus, UpdateInput } from './bmh-cases.js';
import { NAMESPACES } from './bmh-arbitraries.js';
import { DRY_RUN, admissionVerdict, collectionPath, mustSucceed } from './apiserver.js';
import type { TestApiServer } from './apiserver.js';
import { askOracle, verdictOf } from './oracle.js';
import type { SweepReport, SweepSettings, Verdict } from './oracle.js';

/** The API group BMO's CRD is installed under next to Ironhook's metal3.io. */
const UPSTREAM_GROUP = 'upstream.metal3.test';
const IRONHOOK_VERSION = 'metal3.io/v1alpha1';
const UPSTREAM_VERSION = `${UPSTREAM_GROUP}/v1alpha1`;
const PLURAL = 'baremetalhosts';

/** BMO's CRD, moved to UPSTREAM_GROUP; its schema is unchanged. */
export function upstreamCrd(): Record<string, unknown> & { metadata: { name: string } } {
  const answer = verdictOf(askOracle('bmh-admission-crd', [{}])[0]!);
  if (!answer.accepted) throw new Error(`the oracle has no BareMetalHost CRD: ${answer.error}`);
  const crd = parse(String(answer.value)) as { spec: Record<string, unknown> };
  return { ...crd, metadata: { name: `${PLURAL}.${UPSTREAM_GROUP}` }, spec: { ...crd.spec, group: UPSTREAM_GROUP } };
}

/** A BareMetalHost object of one side from a case's metadata and spec. */
export function hostObject(apiVersion: string, host: HostInput, name = host.name): Record<string, unknown> {
  const metadata = { name, namespace: NAMESPACES.host, ...(host.annotations !== undefined && { annotations: host.annotations }) };
  return { apiVersion, kind: 'BareMetalHost', metadata, spec: host.spec };
}

function statusOf(stored: StoredStatus | undefined): Record<string, unknown> | undefined {
  if (stored === undefined) return undefined;
  return {
    operationalStatus: stored.operationalStatus,
    errorMessage: '',
    errorCount: 0,
    poweredOn: false,
    provisioningFailCount: 0,
    provisioning: { state: stored.state, ID: 'node-1' },
  };
}

/** One case judged: Ironhook's verdict, upstream's schema verdict and what the webhook is asked. */
interface Judged {
  readonly ours: Verdict;
  readonly upstreamSchema: Verdict;
  readonly webhookInput?: unknown;
}

const ACCEPTED: Verdict = { accepted: true, value: null };
const toVerdict = (v: ReturnType<typeof admissionVerdict>): Verdict => (v.accepted ? ACCEPTED : { accepted: false, error: v.error });
const hostsPath = (apiVersion: string): string => collectionPath(apiVersion, NAMESPACES.host, PLURAL);

/** Dry-run creates of every host on both sides. */
export async function judgeCreates(api: TestApiServer, hosts: readonly HostInput[]): Promise<Judged[]> {
  const [ours, theirs] = await Promise.all([
    api.requestAll(hosts, (host) => ({ method: 'POST', path: hostsPath(IRONHOOK_VERSION) + DRY_RUN, body: hostObject(IRONHOOK_VERSION, host) })),
    api.requestAll(hosts, (host) => ({ method: 'POST', path: hostsPath(UPSTREAM_VERSION) + DRY_RUN, body: hostObject(UPSTREAM_VERSION, host) })),
  ]);
  return hosts.map((_host, i) => {
    const schema = admissionVerdict(theirs[i]!);
    return { ours: toVerdict(admissionVerdict(ours[i]!)), upstreamSchema: toVerdict(schema), ...(schema.accepted && { webhookInput: { new: schema.object } }) };
  });
}

/**
 * Stores every update case's old host in Ironhook's API (with its status), then dry-runs the
 * update on both sides. A case whose old host Ironhook refuses to store is not an update case
 * (undefined): its create is judged by the create sweep's kind of cases instead. `prefix` names
 * the stored hosts, unique per call.
 */
export async function judgeUpdates(api: TestApiServer, updates: readonly UpdateInput[], prefix = 'stored'): Promise<(Judged | undefined)[]> {
  // Creates keep the generated names; each stored host needs a name of its own.
  const storedName = (index: number): string => `${prefix}-${String(index)}`;
  const created = await api.requestAll(updates, (u, i) => ({
    method: 'POST',
    path: hostsPath(IRONHOOK_VERSION),
    body: hostObject(IRONHOOK_VERSION, u.old, storedName(i)),
  }));
  const withStatus = await api.requestAll(updates, (u, i) => {
    const status = statusOf(u.status);
    // Nothing to write: the create's answer already is the stored host.
    if (created[i]!.status !== 201 || status === undefined) return undefined;
    return { method: 'PATCH', path: `${hostsPath(IRONHOOK_VERSION)}/${storedName(i)}/status`, body: { status } };
  });
  const stored = withStatus.map((answer, i) => answer ?? created[i]!);
  const [ours, theirs] = await Promise.all([
    api.requestAll(updates, (u, i) => {
      const metadata = stored[i]!.body.metadata as { resourceVersion?: string } | undefined;
      const object = hostObject(IRONHOOK_VERSION, u.new, storedName(i));
      const body = { ...object, metadata: { ...(object.metadata as object), resourceVersion: metadata?.resourceVersion ?? '1' } };
      return { method: 'PUT', path: `${hostsPath(IRONHOOK_VERSION)}/${storedName(i)}${DRY_RUN}`, body };
    }),
    api.requestAll(updates, (u, i) => ({
      method: 'POST',
      path: hostsPath(UPSTREAM_VERSION) + DRY_RUN,
      body: hostObject(UPSTREAM_VERSION, u.new, storedName(i)),
    })),
  ]);
  return updates.map((u, i) => {
    if (created[i]!.status !== 201) return undefined;
    mustSucceed(stored[i]!, `storing the status of ${storedName(i)}`);
    const schema = admissionVerdict(theirs[i]!);
    const status = statusOf(u.status) ?? {};
    const webhookInput = schema.accepted && { old: { ...hostObject(IRONHOOK_VERSION, u.old, storedName(i)), status }, new: { ...schema.object, status } };
    return { ours: toVerdict(admissionVerdict(ours[i]!)), upstreamSchema: toVerdict(schema), ...(webhookInput && { webhookInput }) };
  });
}

/** Upstream's verdicts: the schema's refusal, else the webhook's answer (one oracle batch). */
export function upstreamVerdicts(judged: readonly Judged[]): Verdict[] {
  const asked = judged.filter((j) => j.webhookInput !== undefined);
  const answers =
    asked.length === 0
      ? []
      : askOracle(
          'bmh-admission',
          asked.map((j) => j.webhookInput),
        );
  let next = 0;
  return judged.map((j) => (j.webhookInput === undefined ? j.upstreamSchema : verdictOf(answers[next++]!)));
}

/** Samples a sweep's cases (as runSweep does: fast-check, the settings' seed and count). */
export function sampleCases<Case>(arbitrary: fc.Arbitrary<Case>, settings: SweepSettings): Case[] {
  return fc.sample(arbitrary, { seed: settings.seed, numRuns: settings.cases });
}

/** The report runSweep would write, from cases judged on both sides (undefined: not a case). */
export function admissionReport<Case>(
  area: string,
  settings: SweepSettings,
  inputs: readonly Case[],
  judged: readonly (Judged | undefined)[],
): SweepReport<Case> {
  const kept = inputs.flatMap((input, index) => (judged[index] === undefined ? [] : [{ input, index, judged: judged[index] }]));
  const theirs = upstreamVerdicts(kept.map((k) => k.judged));
  const differences = kept.flatMap((k, i) =>
    k.judged.ours.accepted === theirs[i]!.accepted ? [] : [{ index: k.index, input: k.input, ours: k.judged.ours, theirs: theirs[i]! }],
  );
  const skipped = inputs.length - kept.length;
  const repeat = `IRONHOOK_DIFF_SEED=${String(settings.seed)} IRONHOOK_DIFF_CASES=${String(settings.cases)} npm run test:differential`;
  const accepted = theirs.filter((t) => t.accepted).length;
  const summary =
    `${area}: ${String(kept.length)} cases, ${String(kept.length - differences.length)} identical ` +
    `(${String(accepted)} accepted upstream${skipped === 0 ? '' : `, ${String(skipped)} sampled cases not run: their old host is invalid`}; seed ${String(settings.seed)}; repeat: ${repeat})`;
  return { area, seed: settings.seed, cases: kept.length, identical: kept.length - differences.length, differences, summary };
}
