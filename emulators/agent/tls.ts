// The fake agent's automatic TLS, as IPA's enable_auto_tls: a fresh self-signed certificate per
// agent boot whose subject and only SAN are the address the agent serves on. Node cannot build
// certificates, so the openssl CLI makes it in a private temporary directory (mode 0700) that is
// removed as soon as the PEMs are read: the key then lives in this process's memory only.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface AgentCertificate {
  /** PEM private key (P-256). */
  readonly key: string;
  /** PEM certificate: what the agent sends as agent_verify_ca. */
  readonly cert: string;
}

/** openssl req config with no system defaults: CN and a critical SAN, like IPA's certificate. */
function requestConfig(address: string): string {
  const san = isIP(address) === 0 ? `DNS:${address}` : `IP:${address}`;
  return `[req]\ndistinguished_name = dn\nprompt = no\n[dn]\nCN = ${address}\n[ext]\nsubjectAltName = critical,${san}\n`;
}

/** A self-signed certificate for `address` (an IP as IPA's advertise address, or a DNS name), valid `days`. */
export async function agentCertificate(address: string, days = 90): Promise<AgentCertificate> {
  if (!/^[A-Za-z0-9.:-]+$/.test(address)) throw new Error(`not an address for a certificate: ${address}`);
  const dir = await mkdtemp(join(tmpdir(), 'ironhook-agent-tls-'));
  try {
    await writeFile(join(dir, 'req.cnf'), requestConfig(address), { mode: 0o600 });
    const args = ['req', '-x509', '-config', 'req.cnf', '-extensions', 'ext', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
    await run('openssl', [...args, '-nodes', '-days', String(days), '-keyout', 'key.pem', '-out', 'cert.pem'], { cwd: dir, timeout: 30_000 });
    return { key: await readFile(join(dir, 'key.pem'), 'utf8'), cert: await readFile(join(dir, 'cert.pem'), 'utf8') };
  } catch (err) {
    throw new Error(`fake agent auto TLS: openssl could not make a certificate for ${address} (autoTLS: false or --plain-http serve plain HTTP)`, {
      cause: err,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
