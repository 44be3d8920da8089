// iPXE boot configuration for agent boots over the network (the pool sets PXE once, powers on;
// the host's iPXE fetches /boot.ipxe from here). An armed host gets the agent kernel and ramdisk
// with ipa-api-url and its MAC; any other MAC is told to exit (boot from the next device, the
// disk). The token never goes on the kernel line: the agent receives it once at lookup.
import { Router, type Response } from 'express';
import { normalizeMAC } from '../../domain/bmc/index.js';
import type { AgentState } from './state.js';

export interface PXEBootConfig {
  /** The agent kernel and ramdisk (DEPLOY_KERNEL_URL, DEPLOY_RAMDISK_URL). */
  kernelURL: string;
  ramdiskURL: string;
  /** Appended to the kernel command line (e.g. "console=ttyS0 ipa-debug=1"). */
  extraKernelParams?: string;
}

/** Chains to the per-MAC script of the interface iPXE booted from (Ironic's boot.ipxe does the same). */
const BOOT_SCRIPT = '#!ipxe\nchain --autofree ipxe/${mac:hexhyp} || exit\n';
const EXIT_SCRIPT = '#!ipxe\n# not armed for an agent boot: boot from the next device\nexit\n';

/** The kernel command line of an agent boot (no token: it is handed out at lookup). */
function agentKernelParams(apiURL: string, mac: string, extra?: string): string {
  const api = apiURL.replace(/\/+$/, '');
  const params = [
    `ipa-api-url=${api}`,
    `ipa-inspection-callback-url=${api}/v1/continue_inspection`,
    `BOOTIF=${mac}`,
    'ipa-ironic-api-version=1.68',
    'initrd=ramdisk',
  ];
  return extra === undefined || extra.trim() === '' ? params.join(' ') : `${params.join(' ')} ${extra.trim()}`;
}

function agentScript(config: PXEBootConfig, apiURL: string, mac: string): string {
  return [
    '#!ipxe',
    `kernel --name kernel ${config.kernelURL} ${agentKernelParams(apiURL, mac, config.extraKernelParams)}`,
    `initrd --name ramdisk ${config.ramdiskURL}`,
    'boot',
    '',
  ].join('\n');
}

function script(res: Response, text: string): void {
  res.status(200).type('text/plain').setHeader('Cache-Control', 'no-store').send(text);
}

/** GET /boot.ipxe and GET /ipxe/<mac> (any MAC spelling, e.g. iPXE's 52-54-00-…). */
export function ipxeRouter(state: AgentState, config: PXEBootConfig, apiURL: string): Router {
  const router = Router();
  router.get('/boot.ipxe', (_req, res) => {
    script(res, BOOT_SCRIPT);
  });
  router.get('/ipxe/:mac', (req, res) => {
    const mac = normalizeMAC(req.params.mac);
    const armed = mac !== undefined && state.isArmedMAC(mac);
    script(res, armed ? agentScript(config, apiURL, mac) : EXIT_SCRIPT);
  });
  return router;
}
