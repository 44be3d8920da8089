// The CRD conversion webhook in the local environment. kube-apiserver calls conversion webhooks
// over HTTPS only, and the local hook server is not behind a Service, so the environment makes a
// throwaway CA and a serving certificate for 127.0.0.1 in its directory, starts the hook server's
// conversion listener with them (CONVERSION_TLS_*), and applies every CRD of manifests/crds whose
// spec.conversion.strategy is Webhook with `clientConfig: {url: https://127.0.0.1:<port>/convert,
// caBundle}` instead of the chart's Service. Any new CRD with a Webhook conversion is covered.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { makeCa, makeLoopbackServingCert } from './tls.js';

/** Days the local certificates stay valid: longer than any `npm run env:up` session. */
const VALIDITY_DAYS = 30;

export interface ConversionTLS {
  caFile: string;
  certFile: string;
  keyFile: string;
  /** The CA certificate, base64 PEM, as a CRD's clientConfig.caBundle wants it. */
  caBundle: string;
}

/** CA and serving certificate in `<environment dir>/conversion-tls`. */
export function makeConversionTLS(environmentDir: string): ConversionTLS {
  const dir = join(environmentDir, 'conversion-tls');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  makeCa(dir, 'ca', VALIDITY_DAYS);
  makeLoopbackServingCert(dir, 'tls', 'ca', VALIDITY_DAYS);
  const caFile = join(dir, 'ca.crt');
  return { caFile, certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), caBundle: readFileSync(caFile).toString('base64') };
}

/** The environment variables that start the hook server's conversion listener. */
export function conversionListenerEnv(tls: ConversionTLS, port: number): Record<string, string> {
  return { CONVERSION_TLS_PORT: String(port), CONVERSION_TLS_CERT_FILE: tls.certFile, CONVERSION_TLS_KEY_FILE: tls.keyFile };
}

interface CRDLike {
  kind?: unknown;
  spec?: { conversion?: { strategy?: unknown; webhook?: Record<string, unknown> } };
}

/** The CRD with a Webhook conversion pointed at `url` (a copy); any other object unchanged. */
function withLocalConversion<T extends CRDLike>(crd: T, url: string, caBundle: string): T {
  const conversion = crd.spec?.conversion;
  if (crd.kind !== 'CustomResourceDefinition' || conversion?.strategy !== 'Webhook') return crd;
  const copy = structuredClone(crd);
  const copied = copy.spec?.conversion;
  if (copied !== undefined) {
    copied.webhook = { ...copied.webhook, clientConfig: { url, caBundle } };
  }
  return copy;
}

/** Every object of a folder's YAML files (name order), Webhook conversions pointed at `url`. */
export function crdsWithLocalConversion(dir: string, url: string, caBundle: string): CRDLike[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .flatMap((name) => parseAllDocuments(readFileSync(join(dir, name), 'utf8')).map((doc) => doc.toJS() as CRDLike | null))
    .filter((obj): obj is CRDLike => obj !== null)
    .map((obj) => withLocalConversion(obj, url, caBundle));
}
