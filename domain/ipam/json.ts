// Deterministic JSON values: object keys sorted at every level (hook output must be byte-identical
// for identical input, and sorted output diffs well in fixtures).

export function sortedDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(source).sort()) {
    if (source[key] !== undefined) sorted[key] = sortedDeep(source[key]);
  }
  return sorted;
}

/** The newest of RFC 3339 timestamps as Kubernetes writes them (UTC, `Z`, same precision). */
export function newestTimestamp(values: Iterable<string | undefined>): string | undefined {
  let newest: string | undefined;
  for (const value of values) {
    if (value !== undefined && value !== '' && (newest === undefined || value > newest)) newest = value;
  }
  return newest;
}
