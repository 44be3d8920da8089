// A read-only Kubernetes API reader for the soak's and the scale bench's observers: GET through
// the kubeconfig's server, CA and token (the environment writes JSON), no client library,
// 127.0.0.1 only.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { token: string } }[];
}

export type ApiGet = <T>(path: string) => Promise<T>;
export type ApiGetText = (path: string) => Promise<string>;

/** GET `path` from the kubeconfig's apiserver as text (/metrics); rejects on a non-200 answer, an error or after `timeoutMs`. */
export function apiTextReader(kubeconfigPath: string, timeoutMs = 10_000, accept = 'text/plain'): ApiGetText {
  const config = JSON.parse(readFileSync(kubeconfigPath, 'utf8')) as Kubeconfig;
  const cluster = config.clusters[0]?.cluster;
  const token = config.users[0]?.user.token;
  if (cluster === undefined || token === undefined) throw new Error(`${kubeconfigPath} has no cluster or token`);
  const ca = Buffer.from(cluster['certificate-authority-data'], 'base64');
  return async (path: string): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const req = request(`${cluster.server}${path}`, { ca, headers: { authorization: `Bearer ${token}`, accept }, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === 200) resolve(text);
          else reject(new Error(`GET ${path}: HTTP ${String(res.statusCode)}`));
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
      req.on('error', reject);
      req.end();
    });
}

/** GET `path` from the kubeconfig's apiserver as JSON. */
export function apiReader(kubeconfigPath: string, timeoutMs = 10_000): ApiGet {
  const getText = apiTextReader(kubeconfigPath, timeoutMs, 'application/json');
  return async <T>(path: string): Promise<T> => JSON.parse(await getText(path)) as T;
}
