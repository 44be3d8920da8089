// JSON helpers for IPAM (key-sorted values are domain/canonical.ts's canonicalize).

/** The newest of RFC 3339 timestamps as Kubernetes writes them (UTC, `Z`, same precision). */
export function newestTimestamp(values: Iterable<string | undefined>): string | undefined {
  let newest: string | undefined;
  for (const value of values) {
    if (value !== undefined && value !== '' && (newest === undefined || value > newest)) newest = value;
  }
  return newest;
}
