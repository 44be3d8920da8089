// Throwaway certificates made with openssl (scripts/setup-system-deps.sh installs it): a CA and
// leaf certificates it signs, as PEM files in a directory the caller owns and removes.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';

/** Fails with the reason when openssl cannot run: the TLS tests need it, never skip without it. */
export function requireOpenssl(): void {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
  } catch {
    throw new Error('openssl cannot run here; scripts/setup-system-deps.sh (run by npm test) installs it');
  }
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
}

const P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

/** `<name>.crt` and `<name>.key`: a self-signed CA valid for `days`. */
export function makeCa(dir: string, name: string, days = 1): void {
  openssl(dir, [
    'req',
    '-x509',
    ...P256,
    '-days',
    String(days),
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
  ]);
}

/**
 * `<name>.crt` and `<name>.key` signed by the CA `<ca>.crt`/`<ca>.key`, with the extensions in `ext` (openssl x509 -extfile syntax)
 * and the subject `subject` (default `/CN=<name>`; Kubernetes reads the user from CN and its groups from O).
 */
export function makeLeaf(dir: string, name: string, { ca, ext, days = 1, subject }: { ca: string; ext: string; days?: number; subject?: string }): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, ['req', ...P256, '-subj', subject ?? `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.csr`]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    String(days),
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.crt`,
  ]);
}

/** A serving certificate for 127.0.0.1 (IP SAN, which Go's TLS client requires) and localhost. */
export function makeLoopbackServingCert(dir: string, name: string, ca: string, days = 1): void {
  makeLeaf(dir, name, { ca, ext: 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature\n', days });
}

export const readPem = (dir: string, file: string): string => readFileSync(join(dir, file), 'utf8');

/** Whether a GET of `url` over HTTPS, trusting only the CA in `caFile`, answers 200 (false on any error). */
export function httpsOk(url: string, caFile: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { ca: readFileSync(caFile) }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => {
      resolve(false);
    });
    req.end();
  });
}
