// Ironic 39 standalone, the way metal3's ironic-image runs it without a separate conductor: one
// `ironic` process (API and conductor, rpc_transport none), SQLite, noauth, on 127.0.0.1. The
// settings follow ironic-image's ironic.conf template; the reasons for the ones that differ from
// Ironic's defaults are in ../shared/reference/upstream-baseline.md.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, startProcess, waitFor, type StartedProcess } from '../processes.js';

const run = promisify(execFile);

export interface IronicOptions {
  dir: string;
  /** The virtualenv scripts/setup-upstream.sh made. */
  venv: string;
  /** The deploy kernel and ramdisk (Ironic caches them when it prepares an inspection boot). */
  kernelURL: string;
  ramdiskURL: string;
  /** [conductor]sync_power_state_interval: how often Ironic reads every node's power. */
  powerSyncSeconds: number;
  processes: StartedProcess[];
}

export interface Ironic {
  /** http://127.0.0.1:<port>/v1 */
  api: string;
  process: StartedProcess;
}

function config(options: IronicOptions, port: number): string {
  const { dir, kernelURL, ramdiskURL } = options;
  // Where Ironic writes iPXE scripts and caches images. No host boots in this run, so nothing
  // serves it: http_url is loopback's discard port.
  const httpRoot = join(dir, 'http');
  return `[DEFAULT]
auth_strategy = noauth
debug = false
log_file = ${join(dir, 'logs', 'ironic.log')}
host = ironic-bench
my_ip = 127.0.0.1
rpc_transport = none
hash_ring_algorithm = sha256
default_deploy_interface = direct
default_network_interface = noop
enabled_hardware_types = ipmi,redfish,fake-hardware,manual-management
enabled_bios_interfaces = no-bios,redfish,fake
enabled_boot_interfaces = ipxe,pxe,fake,redfish-virtual-media,redfish-https
enabled_deploy_interfaces = direct,fake,ramdisk,custom-agent
enabled_firmware_interfaces = no-firmware,fake,redfish
enabled_inspect_interfaces = agent,redfish,fake,no-inspect
enabled_management_interfaces = ipmitool,fake,redfish,noop
enabled_network_interfaces = noop
enabled_power_interfaces = ipmitool,fake,redfish
enabled_raid_interfaces = no-raid,agent,fake,redfish
enabled_vendor_interfaces = no-vendor,ipmitool,redfish,fake
tempdir = ${join(dir, 'tmp')}

[api]
host_ip = 127.0.0.1
port = ${String(port)}
api_workers = 1

[conductor]
automated_clean = false
node_history = False
power_state_change_timeout = 120
sync_power_state_interval = ${String(options.powerSyncSeconds)}
deploy_kernel = ${kernelURL}
deploy_ramdisk = ${ramdiskURL}

[database]
connection = sqlite:///${join(dir, 'ironic.sqlite')}
sqlite_synchronous = False

[deploy]
default_boot_option = local
erase_devices_metadata_priority = 10
erase_devices_priority = 0
http_root = ${httpRoot}
http_url = http://127.0.0.1:9
fast_track = false

[dhcp]
dhcp_provider = none

[inspector]
require_managed_boot = False
power_off = true
add_ports = all
keep_ports = present

[pxe]
images_path = ${join(httpRoot, 'tmp')}
instance_master_path = ${join(httpRoot, 'master_images')}
tftp_master_path = ${join(dir, 'tftpboot', 'master_images')}
tftp_root = ${join(dir, 'tftpboot')}

[redfish]
use_swift = false

[nova]
send_power_notifications = false

[service_catalog]
endpoint_override = http://127.0.0.1:${String(port)}
`;
}

/** Writes the configuration, creates the database and starts Ironic; resolves once its API answers. */
export async function startIronic(options: IronicOptions): Promise<Ironic> {
  const { dir, venv } = options;
  for (const sub of ['logs', 'tmp', 'tftpboot', 'http']) mkdirSync(join(dir, sub), { recursive: true });
  const port = await freePort();
  const file = join(dir, 'ironic.conf');
  writeFileSync(file, config(options, port), { mode: 0o600 });
  await run(join(venv, 'bin', 'ironic-dbsync'), ['--config-file', file, 'create_schema'], { cwd: dir });
  const started = startProcess({ name: 'ironic', command: join(venv, 'bin', 'ironic'), args: ['--config-file', file], cwd: dir, logDir: join(dir, 'logs') });
  options.processes.push(started);
  const api = `http://127.0.0.1:${String(port)}/v1`;
  await waitFor('Ironic to answer GET /v1/', async () => (await fetch(`${api}/`)).ok, 120_000, 500);
  return { api, process: started };
}
