// MAC address parsing with the forms Go's net.ParseMAC accepts:
//   00:00:5e:00:53:01   00-00-5e-00-53-01   0000.5e00.5301
// for 6-byte (EUI-48), 8-byte (EUI-64) and 20-byte (InfiniBand) addresses. The result is the
// lower-case colon form, so "00-AA-bb-CC-dd-EE" and "00aa.bbcc.ddee" both become "00:aa:bb:cc:dd:ee".

export type MACParse = { readonly ok: true; readonly mac: string } | { readonly ok: false; readonly error: string };

const BYTE_COUNTS = new Set([6, 8, 20]);
const PAIR_GROUP = /^[0-9A-Fa-f]{2}$/;
const QUAD_GROUP = /^[0-9A-Fa-f]{4}$/;

/** Go's error text, e.g. "address 00:11: invalid MAC address". */
function failure(text: string): MACParse {
  return { ok: false, error: text === '' ? 'invalid MAC address' : `address ${text}: invalid MAC address` };
}

/** Groups of two hex digits separated by `separator` (every separator must be the same). */
function pairs(text: string, separator: string): string[] | undefined {
  const groups = text.split(separator);
  if (!BYTE_COUNTS.has(groups.length) || !groups.every((group) => PAIR_GROUP.test(group))) {
    return undefined;
  }
  return groups;
}

/** Groups of four hex digits separated by dots. */
function quads(text: string): string[] | undefined {
  const groups = text.split('.');
  if (!BYTE_COUNTS.has(groups.length * 2) || !groups.every((group) => QUAD_GROUP.test(group))) {
    return undefined;
  }
  return groups.flatMap((group) => [group.slice(0, 2), group.slice(2)]);
}

function bytesOf(text: string): string[] | undefined {
  const third = text.charAt(2);
  if (third === ':' || third === '-') {
    return pairs(text, third);
  }
  return text.charAt(4) === '.' ? quads(text) : undefined;
}

/** Parses a MAC address as Go's net.ParseMAC does and normalises it to lower-case colon form. */
export function parseMAC(text: string): MACParse {
  const bytes = text.length < 14 ? undefined : bytesOf(text);
  if (bytes === undefined) {
    return failure(text);
  }
  return { ok: true, mac: bytes.join(':').toLowerCase() };
}

/** The normalised MAC, or undefined when `text` is not one. */
export function normalizeMAC(text: string): string | undefined {
  const parsed = parseMAC(text);
  return parsed.ok ? parsed.mac : undefined;
}
