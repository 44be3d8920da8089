// docs/benchmarks.md holds both benches' output: `npm run bench` writes what comes before the
// scale marker, `npm run bench:scale` one block per host count after it. Text outside the blocks
// (the analysis written by people) is kept by both.
const SCALE_MARKER = '<!-- bench:scale -->';

const open = (key: string): string => `<!-- scale:${key} -->`;
const close = (key: string): string => `<!-- /scale:${key} -->`;

/** What `npm run bench` keeps of the document: the marker and everything after it. */
export function scalePart(doc: string): string {
  const at = doc.indexOf(SCALE_MARKER);
  return at < 0 ? '' : doc.slice(at);
}

/** `doc` with the block for `key` replaced, or added at the end (with the marker when missing). */
export function upsertBlock(doc: string, key: string, content: string): string {
  const block = `${open(key)}\n${content.trimEnd()}\n${close(key)}\n`;
  const start = doc.indexOf(open(key));
  const end = doc.indexOf(close(key));
  if (start >= 0 && end > start) return doc.slice(0, start) + block + doc.slice(end + close(key).length + 1);
  const base = doc.includes(SCALE_MARKER) ? doc : `${doc.trimEnd()}\n\n${SCALE_MARKER}\n`;
  return `${base.trimEnd()}\n\n${block}`;
}
