// API discovery: which resources exist, their kind and scope, and whether they have a status
// subresource. Refreshed every --discovery-interval, like Metacontroller's discovery manager, so
// resources of CRDs installed later become usable without a restart.
import type { Logger } from '../log.js';
import type { RestClient } from './rest.js';

export interface ResourceInfo {
  /** As requested by the controller rule: `v1` or `group/version`. */
  apiVersion: string;
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  hasStatus: boolean;
}

interface APIResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

interface APIResourceList {
  groupVersion: string;
  resources: APIResource[];
}

interface APIGroupList {
  groups: { name: string; versions: { groupVersion: string }[] }[];
}

/** The URL prefix of an apiVersion: `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export function apiPrefix(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** The REST path of a collection, an object or one of its subresources. */
export function resourcePath(info: Pick<ResourceInfo, 'apiVersion' | 'resource' | 'namespaced'>, namespace?: string, name?: string, subresource?: string): string {
  const scope = info.namespaced && namespace !== undefined && namespace !== '' ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const object = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  const sub = subresource === undefined ? '' : `/${subresource}`;
  return `${apiPrefix(info.apiVersion)}${scope}/${info.resource}${object}${sub}`;
}

/** Index one APIResourceList into resource infos (subresources only mark their parent). */
export function indexResourceList(list: APIResourceList): ResourceInfo[] {
  const apiVersion = list.groupVersion;
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const withStatus = new Set(list.resources.filter((r) => r.name.endsWith('/status')).map((r) => r.name.split('/')[0]));
  return list.resources
    .filter((r) => !r.name.includes('/'))
    .map((r) => ({ apiVersion, group, version, resource: r.name, kind: r.kind, namespaced: r.namespaced, hasStatus: withStatus.has(r.name) }));
}

export class Discovery {
  private byResource = new Map<string, ResourceInfo>();
  private byKind = new Map<string, ResourceInfo>();
  private timer: NodeJS.Timeout | undefined;
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly client: RestClient,
    private readonly log: Logger,
  ) {}

  async refresh(): Promise<void> {
    const core = await this.client.request<{ versions: string[] }>({ method: 'GET', path: '/api' });
    const groups = await this.client.request<APIGroupList>({ method: 'GET', path: '/apis' });
    const versions = [...core.versions, ...groups.groups.flatMap((g) => g.versions.map((v) => v.groupVersion))];
    const lists = await Promise.all(versions.map(async (gv) => this.fetchList(gv)));
    const byResource = new Map<string, ResourceInfo>();
    const byKind = new Map<string, ResourceInfo>();
    for (const info of lists.flat()) {
      byResource.set(`${info.apiVersion}|${info.resource}`, info);
      byKind.set(`${info.apiVersion}|${info.kind}`, info);
    }
    const changed = [...byResource.keys()].sort().join(',') !== [...this.byResource.keys()].sort().join(',');
    this.byResource = byResource;
    this.byKind = byKind;
    if (changed) for (const listener of this.listeners) listener();
  }

  private async fetchList(groupVersion: string): Promise<ResourceInfo[]> {
    try {
      return indexResourceList(await this.client.request<APIResourceList>({ method: 'GET', path: apiPrefix(groupVersion) }));
    } catch (error) {
      // An aggregated API that is unavailable must not hide every other group.
      this.log.info(4, `discovery of ${groupVersion} failed: ${String(error)}`);
      return [];
    }
  }

  /** Refresh now, then every `intervalMs`; failures keep the previous view. */
  async start(intervalMs: number): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) => {
        this.log.error(`discovery refresh failed: ${String(error)}`);
      });
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Called after a refresh that found resources added or removed. */
  onRefresh(listener: () => void): void {
    this.listeners.push(listener);
  }

  find(apiVersion: string, resource: string): ResourceInfo | undefined {
    return this.byResource.get(`${apiVersion}|${resource}`);
  }

  /** The resource for `apiVersion` + `resource`, or an error naming what is missing. */
  get(apiVersion: string, resource: string): ResourceInfo {
    const info = this.find(apiVersion, resource);
    if (info === undefined) throw new Error(`can't find resource "${resource}" in apiVersion "${apiVersion}"`);
    return info;
  }

  forKind(apiVersion: string, kind: string): ResourceInfo | undefined {
    return this.byKind.get(`${apiVersion}|${kind}`);
  }
}
