// The provisioning limit (upstream's PROVISIONING_LIMIT, default
// 20): Inspect, Provision and Deprovision on schemes that do not boot ISOs hold a slot while they
// run. A request found Running after a restart always gets its slot (a host already counted as
// busy always passes), so the count may briefly exceed the limit. Waiters are woken in order.
export class ProvisioningCapacity {
  private readonly held = new Set<string>();
  private readonly waiting: string[] = [];

  constructor(readonly limit: number) {}

  get used(): number {
    return this.held.size;
  }

  holds(id: string): boolean {
    return this.held.has(id);
  }

  /** Takes a slot for `id`; `force` for requests that were already running. */
  tryAcquire(id: string, force = false): boolean {
    if (this.held.has(id)) {
      return true;
    }
    if (!force && this.held.size >= this.limit) {
      return false;
    }
    this.held.add(id);
    return true;
  }

  /** Remember a host key to wake when a slot frees (once, in order). */
  wait(hostKey: string): void {
    if (!this.waiting.includes(hostKey)) {
      this.waiting.push(hostKey);
    }
  }

  unwait(hostKey: string): void {
    const index = this.waiting.indexOf(hostKey);
    if (index >= 0) {
      this.waiting.splice(index, 1);
    }
  }

  /** Frees the slot; returns the waiters to try again, in order (they re-queue if still blocked). */
  release(id: string): string[] {
    if (!this.held.delete(id)) {
      return [];
    }
    return this.waiting.splice(0, this.waiting.length);
  }

  waiters(): readonly string[] {
    return this.waiting;
  }
}
