// BareMetalHost admission: what a real kube-apiserver with Ironhook's CRD (schema, CEL) and
// admission policy accepts, against BMO v0.13.2's CRD schema plus its validating webhook
// (validateHost on create, validateChanges on update), for random creates and updates.
//
// Default run: 300 creates and 200 sampled updates (fewer are run: an update whose old host
// Ironhook refuses to store is skipped, about one in ten), about 25 s of requests after about
// 15 s of control-plane start on two idle cores. IRONHOOK_DIFF_CASES sets both counts.
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { waitFor } from '../../devenv/processes.js';
import { ADMISSION_POLICY, CRD_DIR, readManifests } from '../support/crds.js';
import { DRY_RUN, collectionPath, installCrd, mustSucceed, startApiServer } from './apiserver.js';
import type { TestApiServer } from './apiserver.js';
import { ALIGNED, DEVIATIONS } from './bmh-admission-pinned.js';
import { admissionReport, hostObject, judgeCreates, judgeUpdates, sampleCases, upstreamCrd, upstreamVerdicts } from './bmh-admission-sweep.js';
import { NAMESPACES } from './bmh-arbitraries.js';
import { hostInput, updateInput } from './bmh-cases.js';
import type { HostInput, UpdateInput } from './bmh-cases.js';
import { expectIdentical, sweepSettings } from './oracle.js';
import type { Verdict } from './oracle.js';

let api: TestApiServer | undefined;

/** Applies the policy and waits until the API server enforces it (policies load asynchronously). */
async function installPolicy(server: TestApiServer): Promise<void> {
  for (const object of readManifests(ADMISSION_POLICY)) {
    const plural = object.kind === 'ValidatingAdmissionPolicy' ? 'validatingadmissionpolicies' : 'validatingadmissionpolicybindings';
    mustSucceed(await server.request('POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, object), `creating ${object.kind}`);
  }
  const probe = hostObject('metal3.io/v1alpha1', { name: 'policy-probe', annotations: { 'inspect.metal3.io': 'bogus' }, spec: { online: true } });
  await waitFor('the admission policy to be enforced', async () => {
    const answer = await server.request('POST', collectionPath('metal3.io/v1alpha1', NAMESPACES.host, 'baremetalhosts') + DRY_RUN, probe);
    return String(answer.body.message).includes('ValidatingAdmissionPolicy');
  });
}

beforeAll(async () => {
  api = await startApiServer();
  for (const name of Object.values(NAMESPACES)) {
    mustSucceed(await api.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }), `creating namespace ${name}`);
  }
  const [ironhookCrd] = readManifests(join(CRD_DIR, 'metal3.io_baremetalhosts.yaml'));
  await installCrd(api, ironhookCrd as unknown as { metadata: { name: string } });
  await installCrd(api, upstreamCrd());
  await installPolicy(api);
});

afterAll(async () => {
  await api?.stop();
});

describe('differential: BareMetalHost admission (BMO v0.13.2 CRD and webhook)', () => {
  it('creates: random hosts are accepted or rejected as upstream does', async () => {
    const settings = sweepSettings(300);
    const hosts = sampleCases(hostInput, settings);
    expectIdentical(admissionReport('bmh-admission creates', settings, hosts, await judgeCreates(api!, hosts)));
  });

  it('updates: random edits of stored hosts are accepted or rejected as upstream does', async () => {
    const settings = sweepSettings(200);
    const updates = sampleCases(updateInput, settings);
    expectIdentical(admissionReport('bmh-admission updates', settings, updates, await judgeUpdates(api!, updates)));
  });
});

/** Both sides' verdicts on one pinned case (a create, or an update when `old` is set). */
async function verdicts(c: HostInput | UpdateInput, name: string): Promise<{ ours: boolean; upstream: boolean }> {
  const [judged] = 'old' in c ? await judgeUpdates(api!, [c], name) : await judgeCreates(api!, [c]);
  if (judged === undefined) throw new Error(`the pinned update's old host was not stored: ${JSON.stringify(c)}`);
  const [theirs] = upstreamVerdicts([judged]) as [Verdict];
  return { ours: judged.ours.accepted, upstream: theirs.accepted };
}

describe('documented deviations (docs/compatibility.md): Ironhook answers differently on purpose', () => {
  it.each(DEVIATIONS.map((d, i) => [d.name, d, `deviation-${String(i)}`] as const))('%s', async (_name, deviation, name) => {
    expect(await verdicts(deviation.input, name)).toEqual({ ours: deviation.ironhookAccepts, upstream: deviation.upstreamAccepts });
  });
});

describe('once different, now aligned with upstream', () => {
  it.each(ALIGNED.map((d, i) => [d.name, d, `aligned-${String(i)}`] as const))('%s', async (_name, pinned, name) => {
    expect(await verdicts(pinned.input, name)).toEqual({ ours: pinned.ironhookAccepts, upstream: pinned.upstreamAccepts });
  });
});
