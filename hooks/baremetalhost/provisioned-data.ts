// What the current image was provisioned with (status.ironhook.provisionedData), and how the spec
// differs from it. Only the Secret references are compared: the hook never sees Secret contents.
import type { BareMetalHostSpec, IronhookHostStatus } from '../../domain/baremetalhost.js';
import type { HostOperation } from '../../domain/operations.js';

export type ProvisionedData = NonNullable<IronhookHostStatus['provisionedData']>;
type SecretRef = NonNullable<ProvisionedData['userData']>;

const DATA_KEYS = ['userData', 'networkData', 'metaData'] as const;

/** The data Secrets a succeeded Provision request deployed (the request resolved their namespaces). */
export function provisionedDataOf(operation: HostOperation): ProvisionedData {
  const provision = operation.spec.provision ?? {};
  const data: ProvisionedData = {};
  for (const key of DATA_KEYS) {
    const ref = provision[key];
    if (ref?.name) {
      data[key] = { name: ref.name, namespace: ref.namespace ?? '' };
    }
  }
  return data;
}

function currentRef(spec: BareMetalHostSpec, key: (typeof DATA_KEYS)[number], namespace: string): SecretRef | undefined {
  const ref = spec[key];
  return ref?.name ? { name: ref.name, namespace: ref.namespace ?? namespace } : undefined;
}

function describe(ref: SecretRef | undefined): string {
  return ref === undefined ? 'none' : `Secret ${ref.namespace}/${ref.name}`;
}

/** One sentence per data reference that differs; none when nothing was recorded (provisioned before it was). */
export function dataChanges(spec: BareMetalHostSpec, namespace: string, recorded: ProvisionedData | undefined): string[] {
  if (recorded === undefined) {
    return [];
  }
  return DATA_KEYS.flatMap((key) => {
    const was = recorded[key];
    const now = currentRef(spec, key, namespace);
    const same = was?.name === now?.name && was?.namespace === now?.namespace;
    return same ? [] : [`spec.${key} changed from ${describe(was)} to ${describe(now)}`];
  });
}
