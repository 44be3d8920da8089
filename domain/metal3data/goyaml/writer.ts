// The output side of the go-yaml v2 emitter (a port of libyaml's): column bookkeeping, indents,
// indicators and the four scalar writers, including the folding of long lines at spaces once
// the column passes 80 (go-yaml v2 keeps libyaml's default best width).
import { codePoints, isBreak, isPrintable } from './resolve.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;

const ESCAPES: Readonly<Record<number, string>> = {
  0x00: '0',
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x1b: 'e',
  0x22: '"',
  0x5c: '\\',
  0x85: 'N',
  0xa0: '_',
  0x2028: 'L',
  0x2029: 'P',
};

function hexEscape(code: number): string {
  const [letter, width] = code <= 0xff ? ['x', 2] : code <= 0xffff ? ['u', 4] : ['U', 8];
  return `${letter}${code.toString(16).toUpperCase().padStart(width, '0')}`;
}

/** `startsWithBom`: go-yaml's is_bom looks at the value's first bytes, whatever the position. */
function needsEscape(ch: string, startsWithBom: boolean): boolean {
  return startsWithBom || !isPrintable(ch) || isBreak(ch) || ch === '"' || ch === '\\';
}

export class Writer {
  text = '';
  column = 0;
  whitespace = true;
  indention = true;
  /** The indent continuation lines of the scalar being written use. */
  indent = 0;

  put(ch: string): void {
    this.text += ch;
    this.column += 1;
  }

  putBreak(): void {
    this.text += '\n';
    this.column = 0;
  }

  writeIndent(indent: number): void {
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  indicator(text: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const ch of text) this.put(ch);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private fold(chars: string[], i: number, allowBreaks: boolean): boolean {
    return allowBreaks && this.column > BEST_WIDTH && chars[i + 1] !== ' ' && i > 0 && i < chars.length - 1;
  }

  plain(value: string, allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    const chars = codePoints(value);
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i] ?? '';
      if (ch === ' ' && !spaces && this.fold(chars, i, allowBreaks)) this.writeIndent(this.indent);
      else this.put(ch);
      spaces = ch === ' ';
      if (!spaces) this.indention = false;
    }
    this.whitespace = false;
    this.indention = false;
  }

  private singleChar(ch: string, breaks: boolean): boolean {
    if (isBreak(ch)) {
      if (!breaks && ch === '\n') this.putBreak();
      this.text += ch === '\n' ? '\n' : ch;
      this.column = 0;
      this.indention = true;
      return true;
    }
    if (breaks) this.writeIndent(this.indent);
    if (ch === "'") this.put("'");
    this.put(ch);
    this.indention = false;
    return false;
  }

  single(value: string, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    const chars = codePoints(value);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i] ?? '';
      if (ch === ' ') {
        if (!spaces && this.fold(chars, i, allowBreaks)) this.writeIndent(this.indent);
        else this.put(ch);
        spaces = true;
        continue;
      }
      breaks = this.singleChar(ch, breaks);
      spaces = false;
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private doubleSpace(chars: string[], i: number, allowBreaks: boolean, spaces: boolean): void {
    const foldable = allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1;
    if (!foldable) {
      this.put(' ');
      return;
    }
    this.writeIndent(this.indent);
    if (chars[i + 1] === ' ') this.put('\\');
  }

  double(value: string, allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    const chars = codePoints(value);
    const startsWithBom = value.startsWith('\uFEFF');
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i] ?? '';
      if (needsEscape(ch, startsWithBom)) {
        const code = ch.codePointAt(0) ?? 0;
        for (const out of `\\${ESCAPES[code] ?? hexEscape(code)}`) this.put(out);
        spaces = false;
      } else if (ch === ' ') {
        this.doubleSpace(chars, i, allowBreaks, spaces);
        spaces = true;
      } else {
        this.put(ch);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private blockHints(value: string): void {
    const first = value.charAt(0);
    if (first === ' ' || isBreak(first)) this.indicator(String(BEST_INDENT), false, false, false);
    const chars = codePoints(value);
    const last = chars[chars.length - 1] ?? '';
    const beforeLast = chars[chars.length - 2] ?? '';
    if (!isBreak(last)) this.indicator('-', false, false, false);
    else if (chars.length === 1 || isBreak(beforeLast)) this.indicator('+', false, false, false);
  }

  literal(value: string): void {
    this.indicator('|', true, false, false);
    this.blockHints(value);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const ch of value) {
      if (isBreak(ch)) {
        this.text += ch;
        this.column = 0;
        this.indention = true;
        breaks = true;
        continue;
      }
      if (breaks) this.writeIndent(this.indent);
      this.put(ch);
      this.indention = false;
      breaks = false;
    }
  }
}

export { BEST_INDENT };
