// The upstream run's stand-in for the one step of ironic-python-agent that enrolment needs.
// baremetal-operator v0.13.2 registers every node with inspect_interface=agent and has no
// out-of-band option, so Ironic waits in `inspect wait` for an agent to post the inventory. Nothing
// boots here: every node found waiting gets an inventory built from the MACs of its ports (the
// port baremetal-operator creates from bootMACAddress) posted to /v1/continue_inspection, once,
// as fake-ipa does after its boot delay. The NIC addresses are RFC 5737 documentation addresses:
// Ironic drops loopback interfaces, and nothing connects to them.

const API_VERSION = '1.99';

interface NodeRef {
  uuid: string;
  name?: string;
}

export interface InspectionStandIn {
  /** Nodes whose inventory Ironic accepted. */
  readonly posted: number;
  stop(): Promise<void>;
}

/** What IPA reports for a host with these MACs (the emulator's systems: 2 × 8 cores, 64 GiB, one SSD). */
export function inventoryFor(macs: readonly string[]): Record<string, unknown> {
  return {
    interfaces: macs.map((mac, index) => ({
      name: `eth${String(index)}`,
      mac_address: mac,
      ipv4_address: `192.0.2.${String(10 + index)}`,
      has_carrier: true,
      speed_mbps: 10000,
      product: '0x1af4',
      vendor: '0x8086',
    })),
    cpu: { model_name: 'Emulated CPU', frequency: '2000', count: 32, architecture: 'x86_64', flags: ['vmx'] },
    memory: { total: 68_719_476_736, physical_mb: 65_536 },
    disks: [
      {
        name: '/dev/sda',
        model: 'Emulated Disk',
        size: 515_396_075_520,
        rotational: false,
        serial: 'emulated',
        vendor: 'Emulated',
        wwn: null,
        hctl: '0:0:0:0',
        by_path: '/dev/disk/by-path/pci-0000:00:01.0-scsi-0:0:0:0',
      },
    ],
    system_vendor: { product_name: 'Emulated Server', serial_number: 'emulated', manufacturer: 'Emulated' },
    boot: { current_boot_mode: 'uefi', pxe_interface: macs[0] },
    hostname: 'emulated-host',
  };
}

async function call(api: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${api}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'Content-Type': 'application/json', 'X-OpenStack-Ironic-API-Version': API_VERSION },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

async function inspectWaiting(api: string, done: Set<string>): Promise<number> {
  const { json } = await call(api, '/nodes?provision_state=inspect%20wait&fields=uuid,name');
  const waiting = (json as { nodes?: NodeRef[] } | undefined)?.nodes ?? [];
  let posted = 0;
  for (const node of waiting.filter((candidate) => !done.has(candidate.uuid))) {
    const ports = await call(api, `/ports?node_uuid=${node.uuid}&fields=address`);
    const macs = ((ports.json as { ports?: { address: string }[] } | undefined)?.ports ?? []).map((port) => port.address);
    if (macs.length === 0) continue;
    const result = await call(api, '/continue_inspection', { inventory: inventoryFor(macs), root_disk: { name: '/dev/sda' } });
    if (result.status === 202) {
      done.add(node.uuid);
      posted += 1;
    }
  }
  // A node inspected again (its host re-registered) gets a new post.
  const still = new Set(waiting.map((node) => node.uuid));
  for (const uuid of done) if (!still.has(uuid)) done.delete(uuid);
  return posted;
}

/** Polls Ironic every `everyMs` until stopped. */
export function startInspectionStandIn(api: string, everyMs = 1_000): InspectionStandIn {
  const done = new Set<string>();
  let posted = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      posted += await inspectWaiting(api, done).catch(() => 0);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    get posted() {
      return posted;
    },
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
