// v1beta1 ↔ v1beta2 of the Cluster API provider kinds (domain/capm3): named scenarios for every
// field mapping upstream's two versions differ in, Go duration parsing, registration in the
// conversion webhook, and round trips in both directions (fast-check) that lose nothing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversionAnnotation, convertObject } from '../../domain/capi/conversion.js';
import { capm3Converters } from '../../domain/capm3/conversion.js';
import { durationToSeconds, parseGoDuration } from '../../domain/capm3/duration.js';
import type { KObject } from '../../domain/k8s.js';
import { convertReview } from '../../hooks/conversion/review.js';

const V1 = 'infrastructure.cluster.x-k8s.io/v1beta1';
const V2 = 'infrastructure.cluster.x-k8s.io/v1beta2';
type Body = Record<string, unknown>;

const meta = (annotations?: Record<string, string>): KObject['metadata'] => ({
  name: 'seed',
  namespace: 'metal3',
  uid: 'u-1',
  ...(annotations && { annotations }),
});
const object = (version: string, kind: string, body: Body, annotations?: Record<string, string>): KObject => ({
  apiVersion: version,
  kind,
  metadata: meta(annotations),
  ...body,
});
const to = (obj: KObject, version: string): KObject => convertObject(obj, version, capm3Converters);
const bodyOf = (obj: KObject): Body => Object.fromEntries(Object.entries(obj).filter(([key]) => !['apiVersion', 'kind', 'metadata'].includes(key)));
const kept = (obj: KObject, version: 'v1beta1' | 'v1beta2'): unknown => {
  const text = obj.metadata.annotations?.[conversionAnnotation(version)];
  return text === undefined ? undefined : JSON.parse(text);
};

const CAPI_CONDITION = { type: 'Ready', status: 'False', severity: 'Warning', reason: 'Boom', message: 'm', lastTransitionTime: '2026-11-29T10:00:00Z' };
const CONDITION = { type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: '2026-11-29T10:00:00Z', observedGeneration: 3 };
const REF = { apiVersion: V1, kind: 'Metal3DataTemplate', name: 'workers', namespace: 'metal3', uid: 'u-9', resourceVersion: '12' };

interface Scenario {
  name: string;
  kind: string;
  v1beta1: Body;
  v1beta2: Body;
  /** What going up keeps in the v1beta1 annotation (undefined: nothing). */
  keptUp?: unknown;
  /** What going down keeps in the v1beta2 annotation (undefined: nothing). */
  keptDown?: unknown;
  /** The scenario converts only v1beta1 → v1beta2 (going down gives another spelling). */
  upOnly?: boolean;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'Metal3Cluster: endpoint and both cloud-provider fields, consistent',
    kind: 'Metal3Cluster',
    v1beta1: { spec: { controlPlaneEndpoint: { host: '192.168.1.5', port: 6443 }, cloudProviderEnabled: false, noCloudProvider: true } },
    v1beta2: { spec: { controlPlaneEndpoint: { host: '192.168.1.5', port: 6443 }, cloudProviderEnabled: false } },
  },
  {
    name: 'Metal3Cluster: only noCloudProvider (the deprecated inverse) becomes cloudProviderEnabled',
    kind: 'Metal3Cluster',
    v1beta1: { spec: { noCloudProvider: true } },
    v1beta2: { spec: { cloudProviderEnabled: false } },
    keptUp: { cloudProviderEnabled: null },
  },
  {
    name: "Metal3Cluster: neither field means v1beta1's default true",
    kind: 'Metal3Cluster',
    v1beta1: { spec: {} },
    v1beta2: { spec: { cloudProviderEnabled: true } },
    keptUp: { cloudProviderEnabled: null, noCloudProvider: null },
  },
  {
    name: 'Metal3Cluster: conflicting pair (rejected by CEL) survives a round trip',
    kind: 'Metal3Cluster',
    v1beta1: { spec: { cloudProviderEnabled: true, noCloudProvider: true } },
    v1beta2: { spec: { cloudProviderEnabled: true } },
    keptUp: { noCloudProvider: true },
  },
  {
    name: 'Metal3Cluster: v1beta2 without cloudProviderEnabled goes down without either field',
    kind: 'Metal3Cluster',
    v1beta1: { spec: { controlPlaneEndpoint: { host: 'h', port: 6443 } } },
    v1beta2: { spec: { controlPlaneEndpoint: { host: 'h', port: 6443 } } },
    keptDown: { cloudProviderEnabled: null },
    keptUp: undefined,
  },
  {
    name: 'Metal3Cluster: failureDomains map → list sorted by name, controlPlane only when true',
    kind: 'Metal3Cluster',
    v1beta1: {
      spec: {
        cloudProviderEnabled: true,
        noCloudProvider: false,
        failureDomains: { 'rack-b': { controlPlane: true, attributes: { room: '2' } }, 'rack-a': {}, 'rack-c': { controlPlane: false } },
      },
      status: { failureDomains: { 'rack-b': { controlPlane: true } }, ready: true },
    },
    v1beta2: {
      spec: {
        cloudProviderEnabled: true,
        failureDomains: [{ name: 'rack-a' }, { name: 'rack-b', controlPlane: true, attributes: { room: '2' } }, { name: 'rack-c' }],
      },
      status: { failureDomains: [{ name: 'rack-b', controlPlane: true }], initialization: { provisioned: true } },
    },
    keptUp: { 'spec.failureDomains.controlPlaneFalse': ['rack-c'] },
  },
  {
    name: 'Metal3Cluster: an unsorted v1beta2 list keeps its order through v1beta1',
    kind: 'Metal3Cluster',
    v1beta1: { spec: { cloudProviderEnabled: true, noCloudProvider: false, failureDomains: { z: {}, a: { controlPlane: true } } } },
    v1beta2: { spec: { cloudProviderEnabled: true, failureDomains: [{ name: 'z' }, { name: 'a', controlPlane: true }] } },
    keptDown: { 'spec.failureDomains.order': ['z', 'a'] },
    keptUp: undefined,
  },
  {
    name: 'Metal3Cluster: the contract status moves (ready, failure*, both condition lists)',
    kind: 'Metal3Cluster',
    v1beta1: {
      status: {
        ready: false,
        failureReason: 'InvalidConfiguration',
        failureMessage: 'Unable to get owner cluster',
        conditions: [CAPI_CONDITION],
        v1beta2: { conditions: [CONDITION] },
        lastUpdated: '2026-11-29T10:00:00Z',
      },
    },
    v1beta2: {
      status: {
        initialization: { provisioned: false },
        deprecated: { v1beta1: { failureReason: 'InvalidConfiguration', failureMessage: 'Unable to get owner cluster', conditions: [CAPI_CONDITION] } },
        conditions: [CONDITION],
        lastUpdated: '2026-11-29T10:00:00Z',
      },
    },
  },
  {
    name: 'Metal3Cluster: empty version-only status containers are remembered',
    kind: 'Metal3Cluster',
    v1beta1: { status: { v1beta2: {} } },
    v1beta2: { status: {} },
    keptUp: { emptyObjects: ['status.v1beta2'] },
  },
  {
    name: 'Metal3Machine: image format → diskFormat, dataTemplate → Metal3ObjectRef, phase kept',
    kind: 'Metal3Machine',
    v1beta1: {
      spec: {
        image: {
          url: 'http://172.22.0.1/images/node.qcow2',
          checksum: 'http://172.22.0.1/images/node.qcow2.sha256sum',
          checksumType: 'sha256',
          format: 'qcow2',
        },
        dataTemplate: REF,
        hostSelector: { matchLabels: { role: 'worker' }, matchExpressions: [{ key: 'rack', operator: 'in', values: ['a', 'b'] }] },
        automatedCleaningMode: 'disabled',
        providerID: 'metal3://metal3/server-01/seed-w-1',
      },
      status: {
        ready: true,
        phase: 'Running',
        renderedData: { name: 'workers-0', namespace: 'metal3' },
        addresses: [{ type: 'InternalIP', address: '192.168.1.10' }],
      },
    },
    v1beta2: {
      spec: {
        image: {
          url: 'http://172.22.0.1/images/node.qcow2',
          checksum: 'http://172.22.0.1/images/node.qcow2.sha256sum',
          checksumType: 'sha256',
          diskFormat: 'qcow2',
        },
        dataTemplate: { name: 'workers', namespace: 'metal3' },
        hostSelector: { matchLabels: { role: 'worker' }, matchExpressions: [{ key: 'rack', operator: 'in', values: ['a', 'b'] }] },
        automatedCleaningMode: 'disabled',
        providerID: 'metal3://metal3/server-01/seed-w-1',
      },
      status: {
        initialization: { provisioned: true },
        renderedData: { name: 'workers-0', namespace: 'metal3' },
        addresses: [{ type: 'InternalIP', address: '192.168.1.10' }],
      },
    },
    keptUp: {
      phase: 'Running',
      'spec.dataTemplate': { name: 'workers', namespace: 'metal3', extras: { apiVersion: V1, kind: 'Metal3DataTemplate', uid: 'u-9', resourceVersion: '12' } },
    },
  },
  {
    name: 'Metal3Machine: customDeploy without image; failure fields go under deprecated.v1beta1',
    kind: 'Metal3Machine',
    v1beta1: { spec: { customDeploy: { method: 'install_coreos' } }, status: { ready: false, failureReason: 'CreateError', failureMessage: 'no host' } },
    v1beta2: {
      spec: { customDeploy: { method: 'install_coreos' } },
      status: { initialization: { provisioned: false }, deprecated: { v1beta1: { failureReason: 'CreateError', failureMessage: 'no host' } } },
    },
  },
  {
    name: 'Metal3MachineTemplate: spec.template.spec converted, nodeReuse as is',
    kind: 'Metal3MachineTemplate',
    v1beta1: {
      spec: { nodeReuse: true, template: { spec: { image: { url: 'http://x/i.iso', checksum: '', format: 'live-iso' }, dataTemplate: { name: 'workers' } } } },
    },
    v1beta2: {
      spec: {
        nodeReuse: true,
        template: { spec: { image: { url: 'http://x/i.iso', checksum: '', diskFormat: 'live-iso' }, dataTemplate: { name: 'workers' } } },
      },
    },
  },
  {
    name: 'Metal3MachineTemplate: v1beta2 template metadata is kept going down',
    kind: 'Metal3MachineTemplate',
    v1beta1: { spec: { nodeReuse: false, template: { spec: { customDeploy: { method: 'm' } } } } },
    v1beta2: { spec: { nodeReuse: false, template: { metadata: { labels: { tier: 'gold' } }, spec: { customDeploy: { method: 'm' } } } } },
    keptDown: { templateMetadata: { labels: { tier: 'gold' } } },
    keptUp: undefined,
  },
  {
    name: 'Metal3ClusterTemplate: the cluster mapping inside spec.template.spec',
    kind: 'Metal3ClusterTemplate',
    v1beta1: {
      spec: {
        template: {
          spec: { controlPlaneEndpoint: { host: 'h', port: 6443 }, cloudProviderEnabled: false, noCloudProvider: true, failureDomains: { b: {}, a: {} } },
        },
      },
    },
    v1beta2: {
      spec: {
        template: { spec: { controlPlaneEndpoint: { host: 'h', port: 6443 }, cloudProviderEnabled: false, failureDomains: [{ name: 'a' }, { name: 'b' }] } },
      },
    },
  },
  {
    name: 'Metal3Remediation: timeout "600s" ↔ timeoutSeconds 600',
    kind: 'Metal3Remediation',
    v1beta1: {
      spec: { strategy: { type: 'Reboot', retryLimit: 2, timeout: '600s' } },
      status: { phase: 'Waiting', retryCount: 1, lastRemediated: '2026-11-29T10:00:00Z' },
    },
    v1beta2: {
      spec: { strategy: { type: 'Reboot', retryLimit: 2, timeoutSeconds: 600 } },
      status: { phase: 'Waiting', retryCount: 1, lastRemediated: '2026-11-29T10:00:00Z' },
    },
  },
  {
    name: 'Metal3Remediation: "1h30m" is 5400 seconds and comes back as written',
    kind: 'Metal3Remediation',
    v1beta1: { spec: { strategy: { timeout: '1h30m' } } },
    v1beta2: { spec: { strategy: { timeoutSeconds: 5400 } } },
    keptUp: { timeout: '1h30m' },
  },
  {
    name: 'Metal3Remediation: "10m" going up, "600s" coming down from a fresh v1beta2 object',
    kind: 'Metal3Remediation',
    v1beta1: { spec: { strategy: { timeout: '10m' } } },
    v1beta2: { spec: { strategy: { timeoutSeconds: 600 } } },
    keptUp: { timeout: '10m' },
    upOnly: true,
  },
  {
    name: 'Metal3RemediationTemplate: spec.template.spec.strategy, status as is',
    kind: 'Metal3RemediationTemplate',
    v1beta1: { spec: { template: { spec: { strategy: { type: 'Reboot', retryLimit: 1, timeout: '300s' } } } }, status: { status: { phase: 'Running' } } },
    v1beta2: { spec: { template: { spec: { strategy: { type: 'Reboot', retryLimit: 1, timeoutSeconds: 300 } } } }, status: { status: { phase: 'Running' } } },
  },
];

describe('field mappings', () => {
  it.each(SCENARIOS.filter((s) => !('keptDown' in s)).map((s) => [s.name, s] as const))('%s: up', (_name, s) => {
    const up = to(object(V1, s.kind, s.v1beta1), V2);
    expect(bodyOf(up)).toEqual(s.v1beta2);
    expect(kept(up, 'v1beta1')).toEqual(s.keptUp);
    expect(bodyOf(to(up, V1))).toEqual(s.v1beta1);
  });

  it.each(SCENARIOS.filter((s) => s.upOnly !== true).map((s) => [s.name, s] as const))('%s: down', (_name, s) => {
    const down = to(object(V2, s.kind, s.v1beta2), V1);
    const withoutKept = s.keptUp === undefined || 'keptDown' in s ? s.v1beta1 : undefined;
    if (withoutKept !== undefined) expect(bodyOf(down)).toEqual(withoutKept);
    expect(kept(down, 'v1beta2')).toEqual(s.keptDown);
    expect(bodyOf(to(down, V2))).toEqual(s.v1beta2);
  });

  it('a fresh v1beta2 Metal3Cluster goes down with noCloudProvider = !cloudProviderEnabled', () => {
    expect(bodyOf(to(object(V2, 'Metal3Cluster', { spec: { cloudProviderEnabled: true } }), V1))).toEqual({
      spec: { cloudProviderEnabled: true, noCloudProvider: false },
    });
    expect(bodyOf(to(object(V2, 'Metal3Cluster', { spec: { cloudProviderEnabled: false } }), V1))).toEqual({
      spec: { cloudProviderEnabled: false, noCloudProvider: true },
    });
  });

  it('a kept cloud-provider spelling that no longer fits the v1beta2 value is ignored', () => {
    const up = to(object(V1, 'Metal3Cluster', { spec: {} }), V2);
    const edited = { ...up, spec: { cloudProviderEnabled: false } };
    expect(bodyOf(to(edited, V1))).toEqual({ spec: { cloudProviderEnabled: false, noCloudProvider: true } });
  });

  it('a kept duration whose seconds no longer match is replaced by "<seconds>s"', () => {
    const up = to(object(V1, 'Metal3Remediation', { spec: { strategy: { timeout: '10m' } } }), V2);
    const edited = { ...up, spec: { strategy: { timeoutSeconds: 120 } } };
    expect(bodyOf(to(edited, V1))).toEqual({ spec: { strategy: { timeout: '120s' } } });
  });

  it('a timeout that is no duration is kept verbatim (the v1beta1 CEL rule rejects it on write)', () => {
    const up = to(object(V1, 'Metal3Remediation', { spec: { strategy: { timeout: 'soon' } } }), V2);
    expect(bodyOf(up)).toEqual({ spec: { strategy: {} } });
    expect(bodyOf(to(up, V1))).toEqual({ spec: { strategy: { timeout: 'soon' } } });
  });
});

describe('Go durations', () => {
  it.each<[string, number | undefined]>([
    ['600s', 600],
    ['10m', 600],
    ['1h30m', 5400],
    ['1.5h', 5400],
    ['100ms', 0.1],
    ['2m0.5s', 120.5],
    ['-5s', -5],
    ['+7s', 7],
    ['0', 0],
    ['1h0m0s', 3600],
    ['.5m', 30],
    ['300µs', 0.0003],
    ['5', undefined],
    ['1d', undefined],
    ['', undefined],
    ['10 m', undefined],
    ['soon', undefined],
  ])('%j → %s seconds', (text, seconds) => {
    expect(parseGoDuration(text)).toBe(seconds);
  });

  it.each<[string, number | undefined]>([
    ['2m0.5s', 120],
    ['100ms', 0],
    ['-1.5s', -1],
    ['x', undefined],
  ])('%j → %s whole seconds', (text, seconds) => {
    expect(durationToSeconds(text)).toBe(seconds);
  });
});

describe('conversion webhook registration', () => {
  it.each(['Metal3Cluster', 'Metal3ClusterTemplate', 'Metal3Machine', 'Metal3MachineTemplate', 'Metal3Remediation', 'Metal3RemediationTemplate'])(
    '%s converts through the ConversionReview',
    (kind) => {
      const answer = convertReview({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'ConversionReview',
        request: { uid: 'u', desiredAPIVersion: V2, objects: [object(V1, kind, { spec: {} })] },
      });
      expect(answer.response.result).toEqual({ status: 'Success' });
      expect(answer.response.convertedObjects[0]).toMatchObject({ apiVersion: V2, kind });
    },
  );
});

// --- Round trips ------------------------------------------------------------------------------

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/u);
const text = fc.string({ maxLength: 12 });
const optional = (record: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Body> => fc.record(record, { requiredKeys: [] });
const labels = fc.dictionary(name, text, { maxKeys: 3 });
const capiCondition = optional({
  type: name,
  status: fc.constantFrom('True', 'False', 'Unknown'),
  severity: fc.constantFrom('Info', 'Warning', 'Error'),
  reason: name,
  message: text,
  lastTransitionTime: fc.constant('2026-11-29T10:00:00Z'),
});
const condition = optional({
  type: name,
  status: fc.constantFrom('True', 'False', 'Unknown'),
  reason: name,
  message: text,
  observedGeneration: fc.nat(9),
  lastTransitionTime: fc.constant('2026-11-29T10:00:00Z'),
});
const conditions = (c: fc.Arbitrary<unknown>): fc.Arbitrary<unknown[]> => fc.array(c, { maxLength: 2 });
const objectRef = optional({ name, namespace: name });
const objectReference = optional({
  name,
  namespace: name,
  apiVersion: fc.constant(V1),
  kind: name,
  uid: name,
  resourceVersion: fc.nat(99).map(String),
  fieldPath: name,
});
const secretRef = optional({ name, namespace: name });
const endpoint = optional({ host: text, port: fc.integer({ min: 1, max: 65535 }) });
const domainMap = fc.dictionary(name, optional({ controlPlane: fc.boolean(), attributes: labels }), { maxKeys: 3 });
const domainList = fc
  .uniqueArray(fc.record({ name, controlPlane: fc.option(fc.boolean(), { nil: undefined }), attributes: fc.option(labels, { nil: undefined }) }), {
    selector: (d) => d.name,
    maxLength: 3,
  })
  .map((list) => list.map(dropUndefined));
const common = { lastUpdated: fc.constant('2026-11-29T10:00:00Z') };

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

const v1Status = (extra: Record<string, fc.Arbitrary<unknown>>) =>
  optional({
    ready: fc.boolean(),
    failureReason: name,
    failureMessage: text,
    conditions: conditions(capiCondition),
    v1beta2: optional({ conditions: conditions(condition) }),
    ...common,
    ...extra,
  });
const v2Status = (extra: Record<string, fc.Arbitrary<unknown>>) =>
  optional({
    initialization: fc.record({ provisioned: fc.boolean() }),
    deprecated: optional({ v1beta1: optional({ failureReason: name, failureMessage: text, conditions: conditions(capiCondition) }) }),
    conditions: conditions(condition),
    ...common,
    ...extra,
  });

const clusterV1Spec = optional({
  controlPlaneEndpoint: endpoint,
  cloudProviderEnabled: fc.boolean(),
  noCloudProvider: fc.boolean(),
  failureDomains: domainMap,
});
const clusterV2Spec = optional({ controlPlaneEndpoint: endpoint, cloudProviderEnabled: fc.boolean(), failureDomains: domainList });
const selector = optional({
  matchLabels: labels,
  matchExpressions: fc.array(fc.record({ key: name, operator: fc.constantFrom('in', 'notin', 'exists'), values: fc.array(name, { maxLength: 2 }) }), {
    maxLength: 2,
  }),
});
const formats = fc.constantFrom('raw', 'qcow2', 'vdi', 'vmdk', 'live-iso');
const machineSpec = (v1: boolean) =>
  optional({
    providerID: text,
    image: optional({ url: text, checksum: text, checksumType: fc.constantFrom('md5', 'sha256', 'sha512'), [v1 ? 'format' : 'diskFormat']: formats }),
    customDeploy: fc.record({ method: name }),
    userData: secretRef,
    metaData: secretRef,
    networkData: secretRef,
    hostSelector: selector,
    dataTemplate: v1 ? objectReference : objectRef,
    automatedCleaningMode: fc.constantFrom('metadata', 'disabled'),
    failureDomain: name,
  });
const machineStatus = (v1: boolean) => ({
  addresses: fc.array(fc.record({ type: fc.constantFrom('InternalIP', 'Hostname'), address: name }), { maxLength: 2 }),
  userData: secretRef,
  metaData: secretRef,
  networkData: secretRef,
  renderedData: v1 ? objectReference : objectRef,
  ...(v1 && { phase: name }),
});
const strategy = (v1: boolean) =>
  optional({
    type: fc.constant('Reboot'),
    retryLimit: fc.integer({ min: 1, max: 9 }),
    ...(v1
      ? {
          timeout: fc.oneof(
            fc.integer({ min: 0, max: 9999 }).map((s) => `${s}s`),
            fc.constantFrom('10m', '1h30m', '1.5h', '90s', '100ms', 'x'),
          ),
        }
      : { timeoutSeconds: fc.integer({ min: 100, max: 99999 }) }),
  });
const remediationStatus = optional({
  phase: fc.constantFrom('Running', 'Waiting', 'Deleting machine', 'Failed'),
  retryCount: fc.nat(5),
  lastRemediated: fc.constant('2026-11-29T10:00:00Z'),
});
const templateMeta = optional({ labels, annotations: labels });
const template = (spec: fc.Arbitrary<unknown>, v2: boolean) => (v2 ? optional({ metadata: templateMeta, spec }) : optional({ spec }));

// prettier-ignore
const ARBITRARIES: [string, fc.Arbitrary<Body>, fc.Arbitrary<Body>][] = [
  ['Metal3Cluster', optional({ spec: clusterV1Spec, status: v1Status({ failureDomains: domainMap }) }), optional({ spec: clusterV2Spec, status: v2Status({ failureDomains: domainList }) })],
  ['Metal3ClusterTemplate', optional({ spec: optional({ template: template(clusterV1Spec, false) }) }), optional({ spec: optional({ template: template(clusterV2Spec, true) }) })],
  ['Metal3Machine', optional({ spec: machineSpec(true), status: v1Status(machineStatus(true)) }), optional({ spec: machineSpec(false), status: v2Status(machineStatus(false)) })],
  ['Metal3MachineTemplate', optional({ spec: optional({ nodeReuse: fc.boolean(), template: template(machineSpec(true), false) }) }), optional({ spec: optional({ nodeReuse: fc.boolean(), template: template(machineSpec(false), true) }) })],
  ['Metal3Remediation', optional({ spec: optional({ strategy: strategy(true) }), status: remediationStatus }), optional({ spec: optional({ strategy: strategy(false) }), status: remediationStatus })],
  ['Metal3RemediationTemplate', optional({ spec: optional({ template: optional({ spec: optional({ strategy: strategy(true) }) }) }), status: optional({ status: remediationStatus }) }), optional({ spec: optional({ template: optional({ spec: optional({ strategy: strategy(false) }) }) }), status: optional({ status: remediationStatus }) })],
];

describe('round trips lose nothing', () => {
  it.each(ARBITRARIES)('%s: v1beta1 → v1beta2 → v1beta1', (kind, v1) => {
    fc.assert(
      fc.property(v1, (body) => {
        const original = object(V1, kind, body, { 'team.example/owner': 'infra' });
        expect(to(to(original, V2), V1)).toEqual(original);
      }),
      { numRuns: 300 },
    );
  });

  it.each(ARBITRARIES)('%s: v1beta2 → v1beta1 → v1beta2', (kind, _v1, v2) => {
    fc.assert(
      fc.property(v2, (body) => {
        const original = object(V2, kind, body);
        expect(to(to(original, V1), V2)).toEqual(original);
      }),
      { numRuns: 300 },
    );
  });
});
