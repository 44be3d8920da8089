// Children clusterctl move carried to a cluster (drivers/pool/moved-children.ts): the pool points a
// moved data child's controller-uid label at the owner clusterctl gave it, also when Metacontroller
// released it before the pool acted, and leaves every other child alone. Events are fed by hand so
// their order is the test's; the port is the in-memory one.
import { describe, expect, it } from 'vitest';
import type { KObject, OwnerReference } from '../../domain/k8s.js';
import type { WatchEvent } from '../../drivers/kube/port.js';
import { createLogger } from '../../drivers/pool/logging.js';
import { MovedChildAdopter } from '../../drivers/pool/moved-children.js';
import { LogCapture } from '../support/fake-driver.js';
import { MemoryKube } from '../support/memory-kube.js';

const NS = 'seed';
const controller = (uid: string): OwnerReference => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name: 'rf-1', uid, controller: true });

function child(labels: Record<string, string> | undefined, ownerReferences: OwnerReference[] | undefined): KObject {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'HardwareData',
    metadata: { name: 'rf-1', namespace: NS, uid: 'child-uid', ...(labels && { labels }), ...(ownerReferences && { ownerReferences }) },
  };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

function setup(): { kube: MemoryKube; adopter: MovedChildAdopter; logs: LogCapture } {
  const logs = new LogCapture();
  const kube = new MemoryKube();
  return { kube, adopter: new MovedChildAdopter({ kube, logger: createLogger({ level: 'debug', destination: logs }) }), logs };
}

describe('moved children are pointed at their new controller', () => {
  // prettier-ignore
  const ROWS: { name: string; events: { type: WatchEvent['type']; object: KObject }[]; label: string | undefined }[] = [
    { name: 'arrived with its owner re-created (label names the old uid): label → the owner', events: [{ type: 'added', object: child({ 'controller-uid': 'old' }, [controller('new')]) }], label: 'new' },
    {
      name: 'released by Metacontroller right after it arrived: the owner from the first event',
      events: [{ type: 'added', object: child({ 'controller-uid': 'old' }, [controller('new')]) }, { type: 'modified', object: child({ 'controller-uid': 'old' }, []) }],
      label: 'new',
    },
    { name: 'the label names its controller: untouched', events: [{ type: 'added', object: child({ 'controller-uid': 'same' }, [controller('same')]) }], label: 'same' },
    { name: 'an orphan never seen with an owner: untouched (nothing says whose it is)', events: [{ type: 'added', object: child({ 'controller-uid': 'old' }, []) }], label: 'old' },
    { name: 'made by hand (no label): untouched', events: [{ type: 'added', object: child(undefined, [controller('new')]) }], label: undefined },
  ];

  it.each(ROWS)('$name', async (row) => {
    const { kube, adopter } = setup();
    for (const event of row.events) {
      kube.put('hardwaredata', event.object);
      adopter.onEvent('hardwaredata', event);
    }
    await flush();
    expect(kube.get('hardwaredata', NS, 'rf-1')?.metadata.labels?.['controller-uid']).toBe(row.label);
  });

  it('a moved rendered Secret is pointed through a metadata patch guarded by its resourceVersion', async () => {
    const { kube, adopter, logs } = setup();
    const secret = kube.put('secrets', {
      ...child({ 'controller-uid': 'old' }, [controller('new')]),
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        ...child(undefined, undefined).metadata,
        name: 'worker-0-metadata',
        labels: { 'controller-uid': 'old' },
        ownerReferences: [controller('new')],
      },
    });
    adopter.onEvent('secrets', { type: 'added', object: secret });
    await flush();
    expect(kube.get('secrets', NS, 'worker-0-metadata')?.metadata.labels?.['controller-uid']).toBe('new');
    expect(logs.lines.join('\n')).toMatch(/pointed a moved child at its new controller/u);
  });
});
