// Go strings for the Go ports in this directory (gourl.ts, netip.ts).
//
// Go's net/url works on bytes: it slices escapes in the middle of a multi-byte character, and
// percent-decoding can produce bytes that are not UTF-8. To give the same answers, the ports
// work on "byte strings": one JavaScript character per byte (0–255) of the UTF-8 text. fromGoBytes
// turns such a string back into text as Go's encoding/json shows it (each byte that is not part
// of valid UTF-8 becomes U+FFFD), and goQuote is Go's strconv.Quote.

const encoder = new TextEncoder();
// Text that is already its own byte string (and needs no quoting escapes): the common case.
const NON_ASCII = /[^\p{ASCII}]/u;
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** The UTF-8 bytes of `text`, one character per byte. */
export function toGoBytes(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  let out = '';
  for (const byte of encoder.encode(text)) {
    out += String.fromCharCode(byte);
  }
  return out;
}

function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x80 && byte <= 0xbf;
}

// The allowed range of the second byte for each lead byte (Go's utf8 acceptRanges).
function secondByteRange(lead: number): readonly [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** Go's utf8.DecodeRuneInString on a byte string: the code point and its size, or -1 and size 1 when invalid. */
function decodeRune(bytes: string, index: number): { readonly rune: number; readonly size: number } {
  const lead = bytes.charCodeAt(index);
  const length = sequenceLength(lead);
  if (length === 1) return { rune: lead, size: 1 };
  const [low, high] = secondByteRange(lead);
  const second = bytes.charCodeAt(index + 1);
  if (length === 0 || !(second >= low && second <= high)) return { rune: -1, size: 1 };
  let rune = (lead & (0xff >> (length + 1))) * 64 + (second & 0x3f);
  for (let offset = 2; offset < length; offset++) {
    const next = index + offset < bytes.length ? bytes.charCodeAt(index + offset) : undefined;
    if (!isContinuation(next)) return { rune: -1, size: 1 };
    rune = rune * 64 + ((next ?? 0) & 0x3f);
  }
  return { rune, size: length };
}

/** A byte string as text, as Go's encoding/json writes it: invalid bytes become U+FFFD one by one. */
export function fromGoBytes(bytes: string): string {
  if (!NON_ASCII.test(bytes)) return bytes;
  let out = '';
  for (let index = 0; index < bytes.length;) {
    const { rune, size } = decodeRune(bytes, index);
    out += rune < 0 ? '\uFFFD' : String.fromCodePoint(rune);
    index += size;
  }
  return out;
}

// Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const SHORT_ESCAPES: Readonly<Record<number, string>> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' };

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

function quoteRune(rune: number): string {
  if (rune === 0x22 || rune === 0x5c) return `\\${String.fromCharCode(rune)}`;
  const char = String.fromCodePoint(rune);
  if (PRINTABLE.test(char)) return toGoBytes(char);
  const short = SHORT_ESCAPES[rune];
  if (short !== undefined) return short;
  if (rune < 0x20 || rune === 0x7f) return `\\x${hex(rune, 2)}`;
  return rune < 0x10000 ? `\\u${hex(rune, 4)}` : `\\U${hex(rune, 8)}`;
}

/** Go's strconv.Quote of a byte string, as a byte string. */
export function goQuote(bytes: string): string {
  if (PLAIN_ASCII.test(bytes) && !bytes.includes('"') && !bytes.includes('\\')) return `"${bytes}"`;
  let out = '"';
  for (let index = 0; index < bytes.length;) {
    const { rune, size } = decodeRune(bytes, index);
    out += rune < 0 ? `\\x${hex(bytes.charCodeAt(index), 2)}` : quoteRune(rune);
    index += size;
  }
  return `${out}"`;
}
