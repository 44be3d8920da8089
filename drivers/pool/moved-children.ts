// Data children `clusterctl move` carried to this cluster: HardwareData, HostFirmwareSettings,
// Metal3DataClaims, Metal3Data, IPClaims, IPAddresses and rendered Secrets. Metacontroller keys a child to its
// parent by the `controller-uid` label; clusterctl re-creates the parent with a new uid and the
// child with its owner reference pointing at it but the old label, so Metacontroller would release
// the child and then fail to create the one the parent's hook asks for under the same name. The pool
// points the label at the owner clusterctl gave the child, and Metacontroller keeps or adopts it.
// The owner is remembered from the first event that shows it (the watch delivers the creation
// before Metacontroller's release). Requests and monitors are not adopted but deleted
// (drivers/runner/stale.ts): what they asked was for the old parent.
import { CONTROLLER_UID_LABEL, movedChildOwner, type KObject } from '../../domain/k8s.js';
import type { KubePort, WatchEvent } from '../kube/port.js';
import type { AdoptedResource } from '../kube/port.js';
import type { Logger } from './logging.js';
import { errorFields } from './logging.js';

export class MovedChildAdopter {
  /** Object uid → the controller owner uid its moved copy arrived with. */
  private readonly owners = new Map<string, string>();

  constructor(private readonly deps: { kube: KubePort; logger: Logger }) {}

  onEvent(resource: AdoptedResource | 'secrets', event: WatchEvent): void {
    const uid = event.object.metadata.uid ?? '';
    if (event.type === 'deleted') {
      this.owners.delete(uid);
      return;
    }
    const owner = this.ownerToPoint(uid, event.object);
    if (owner !== undefined) this.point(resource, event.object, owner);
  }

  /** The owner the object's label should name, while it names another; forgotten once it does. */
  private ownerToPoint(uid: string, object: KObject): string | undefined {
    const seen = movedChildOwner(object);
    if (seen !== undefined) this.owners.set(uid, seen);
    const owner = seen ?? this.owners.get(uid);
    if (owner !== undefined && object.metadata.labels?.[CONTROLLER_UID_LABEL] === owner) {
      this.owners.delete(uid);
      return undefined;
    }
    return owner;
  }

  private point(resource: AdoptedResource | 'secrets', object: KObject, owner: string): void {
    const { namespace = '', name = '', resourceVersion = '' } = object.metadata;
    const labels = { [CONTROLLER_UID_LABEL]: owner };
    const patched =
      resource === 'secrets'
        ? this.deps.kube.patchSecretMetadata(namespace, name, { resourceVersion, labels })
        : this.deps.kube.patchLabels(resource, namespace, name, labels);
    const fields = { namespace, name, resource, owner };
    patched.then(
      () => {
        this.deps.logger.info(fields, 'pointed a moved child at its new controller (clusterctl move)');
      },
      (error: unknown) => {
        // A conflict or a vanished object: the next event decides again.
        this.deps.logger.warn({ ...fields, err: errorFields(error) }, 'could not point a moved child at its new controller');
      },
    );
  }
}
