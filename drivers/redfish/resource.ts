// Reading Redfish JSON defensively. Vendors omit fields and sometimes send the wrong type, so
// resources stay `unknown`-valued records and every read goes through these accessors, which
// answer `undefined` instead of throwing. Navigation follows `@odata.id` links only.

export type Resource = Readonly<Record<string, unknown>>;

export function asResource(value: unknown): Resource | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Resource) : undefined;
}

function at(resource: Resource | undefined, path: readonly string[]): unknown {
  let current: unknown = resource;
  for (const key of path) {
    current = asResource(current)?.[key];
  }
  return current;
}

export function obj(resource: Resource | undefined, ...path: string[]): Resource | undefined {
  return asResource(at(resource, path));
}

export function text(resource: Resource | undefined, ...path: string[]): string | undefined {
  const value = at(resource, path);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function num(resource: Resource | undefined, ...path: string[]): number | undefined {
  const value = at(resource, path);
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function bool(resource: Resource | undefined, ...path: string[]): boolean | undefined {
  const value = at(resource, path);
  return typeof value === 'boolean' ? value : undefined;
}

export function list(resource: Resource | undefined, ...path: string[]): unknown[] {
  const value = at(resource, path);
  return Array.isArray(value) ? value : [];
}

export function strings(resource: Resource | undefined, ...path: string[]): string[] {
  return list(resource, ...path).filter((item): item is string => typeof item === 'string');
}

/** The `@odata.id` of the link at `path` (e.g. ref(system, 'Links', 'ManagedBy')). */
export function ref(resource: Resource | undefined, ...path: string[]): string | undefined {
  return text(obj(resource, ...path), '@odata.id');
}

/** Every `@odata.id` in the array at `path` (collections' Members, Links.ManagedBy, Drives). */
export function refs(resource: Resource | undefined, ...path: string[]): string[] {
  return list(resource, ...path)
    .map((item) => text(asResource(item), '@odata.id'))
    .filter((id): id is string => id !== undefined);
}

/** `<property>@Redfish.AllowableValues`, or undefined when the BMC does not say. */
export function allowable(resource: Resource | undefined, property: string): string[] | undefined {
  const value = resource?.[`${property}@Redfish.AllowableValues`];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

/** The action object `Actions["#<name>"]`, e.g. action(system, 'ComputerSystem.Reset'). */
export function action(resource: Resource | undefined, name: string): Resource | undefined {
  return obj(resource, 'Actions', `#${name}`);
}

/** A link path made absolute (some BMCs answer with relative `@odata.id`s). */
export function absolutePath(path: string): string {
  return path.startsWith('/') ? path : `/${path}`;
}
