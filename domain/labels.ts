// Kubernetes label syntax, as the API server (and so every label selector) checks it: a key is an
// optional DNS-1123 subdomain prefix and '/' before a name of at most 63 characters; a value is
// empty or such a name.
const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/u;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/u;
const MAX_NAME = 63;
const MAX_PREFIX = 253;

export function isLabelKey(key: string): boolean {
  const parts = key.split('/');
  if (parts.length > 2) return false;
  const name = parts.at(-1) ?? '';
  const prefix = parts.length === 2 ? (parts[0] ?? '') : undefined;
  if (prefix !== undefined && !isDNSSubdomain(prefix)) return false;
  return name.length <= MAX_NAME && NAME.test(name);
}

/** A DNS-1123 subdomain (what a label key's prefix must be). */
export function isDNSSubdomain(value: string): boolean {
  return value.length <= MAX_PREFIX && DNS_SUBDOMAIN.test(value);
}

/** The part of a label key before its slash, '' without one (Kubernetes' SplitQualifiedName). */
export function labelKeyPrefix(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= MAX_NAME && NAME.test(value));
}
