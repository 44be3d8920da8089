// The go-yaml v2 emulation behind the rendered Secrets: which strings get quoted
// and how, go-yaml's key order, block layout, folding at 80 columns, literal blocks and numbers.
// Expectations are worked out from go-yaml v2's resolve table and libyaml's scalar analysis.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compareKeys, formatGoFloat, goYaml } from '../../domain/metal3data/goyaml/emit.js';
import { GoYamlError } from '../../domain/metal3data/goyaml/read.js';
import { analyze, isBase60Float, isTimestamp, resolvesToString } from '../../domain/metal3data/goyaml/resolve.js';

const value = (v: string): string => goYaml({ k: v }).slice('k: '.length, -1);

describe('scalar styles', () => {
  it.each([
    ['a plain word', 'node-0', 'node-0'],
    ['an IPv4 address', '192.168.0.10', '192.168.0.10'],
    ['an IPv6 address', '2001:db8::1', '2001:db8::1'],
    ['an IPv6 address starting with ::', '::1', '::1'],
    ['a MAC with letters', '52:54:00:aa:bb:cc', '52:54:00:aa:bb:cc'],
    ['a MAC whose groups are all sexagesimal', '12:34:56:12:34:56', '"12:34:56:12:34:56"'],
    ['a MAC with a group over 59', '12:34:56:78:90:12', '12:34:56:78:90:12'],
    ['a sexagesimal time', '12:30', '"12:30"'],
    ['a decimal integer', '24', '"24"'],
    ['zero', '0', '"0"'],
    ['a negative integer', '-1', '"-1"'],
    ['a hexadecimal integer', '0x1F', '"0x1F"'],
    ['an octal integer', '0o17', '"0o17"'],
    ['a binary integer', '0b101', '"0b101"'],
    ['an integer with underscores', '1_000', '"1_000"'],
    ['a float', '1.5', '"1.5"'],
    ['a float starting with a dot', '.5', '".5"'],
    ['an exponent', '1e3', '"1e3"'],
    ['an overflowing float reads back as a string (in Go)', '1e999', '1e999', false],
    ['a version with two dots', '1.2.3', '1.2.3'],
    ['true', 'true', '"true"'],
    ['yes (YAML 1.1 bool)', 'yes', '"yes"'],
    ['y', 'y', '"y"'],
    ['n', 'n', '"n"'],
    ['On', 'On', '"On"'],
    ['off', 'off', '"off"'],
    ['null', 'null', '"null"'],
    ['tilde', '~', '"~"'],
    ['the empty string', '', '""'],
    ['.nan', '.nan', '".nan"'],
    ['-.inf', '-.inf', '"-.inf"'],
    ['nan without a dot', 'nan', 'nan'],
    ['<< is not looked up', '<<', '<<'],
    ['a date', '2026-11-29', '"2026-11-29"'],
    ['a date and time', '2026-11-29T10:00:00Z', '"2026-11-29T10:00:00Z"'],
    ['an impossible date (a string for Go)', '2026-13-01', '2026-13-01', false],
    ['a trailing colon', 'fe80::', "'fe80::'"],
    ['two colons only', '::', "'::'"],
    ['colon and space', 'key: value', "'key: value'"],
    ['colon inside a word', 'a:b', 'a:b'],
    ['a leading dash and space', '- x', "'- x'"],
    ['a leading dash', '-x', '-x'],
    ['a leading hash', '#x', "'#x'"],
    ['space and hash', 'a #b', "'a #b'"],
    ['hash inside a word', 'a#b', 'a#b'],
    ['a leading question mark', '?x', '?x'],
    ['question mark and space', '? x', "'? x'"],
    ['a leading at sign', '@x', "'@x'"],
    ['a leading asterisk', '*x', "'*x'"],
    ['a leading ampersand', '&a', "'&a'"],
    ['a leading exclamation mark', '!tag', "'!tag'"],
    ['a leading percent sign', '%x', "'%x'"],
    ['a leading backquote', '`x', "'`x'"],
    ['a flow sequence', '[a]', "'[a]'"],
    ['a flow mapping', '{a}', "'{a}'"],
    ['a comma', 'a,b', 'a,b'],
    ['a document marker', '---', "'---'"],
    ['a document end marker prefix', '...x', "'...x'"],
    ['a leading space', ' lead', "' lead'"],
    ['a trailing space', 'trail ', "'trail '"],
    ['an apostrophe inside', "it's", "it's"],
    ['a leading apostrophe (doubled when quoted)', "'quoted'", "'''quoted'''"],
    ['a leading double quote', '"x"', `'"x"'`],
    ['a tab', 'tab\there', '"tab\\there"'],
    ['a carriage return', 'a\rb', '"a\\rb"'],
    ['a backslash and a tab', 'a\\\tb', '"a\\\\\\tb"'],
    ['an accented letter', 'é', 'é'],
    ['an emoji (not printable for libyaml)', '😀', '"\\U0001F600"'],
    ['a control character', '\u0007', '"\\a"'],
    ['a leading byte-order mark: go-yaml then escapes every character', '\uFEFFa b', '"\\uFEFF\\x61\\x20\\x62"'],
    ['a byte-order mark further in', 'a\uFEFF', '"a\\uFEFF"'],
  ] as [string, string, string, boolean?][])('%s', (_name, input, expected, jsReadsItBack = true) => {
    expect(value(input)).toBe(expected);
    if (jsReadsItBack) expect(parse(goYaml({ k: input }), { version: '1.1' })).toEqual({ k: input });
  });

  it('multi-line text is a literal block with the chomping that keeps it exact', () => {
    expect(goYaml({ k: 'a\nb' })).toBe('k: |-\n  a\n  b\n');
    expect(goYaml({ k: 'a\nb\n' })).toBe('k: |\n  a\n  b\n');
    expect(goYaml({ k: 'a\n\nb' })).toBe('k: |-\n  a\n\n  b\n');
    expect(goYaml({ k: ' a\nb' })).toBe('k: |2-\n   a\n  b\n');
    expect(goYaml({ k: 'a \nb' })).toBe('k: "a \\nb"\n');
    expect(goYaml({ list: ['x\ny'] })).toBe('list:\n- |-\n  x\n  y\n');
  });

  it('keys are quoted by the same rules', () => {
    expect(goYaml({ y: 1, '1': 2, '': 3, 'a b': 4, '-': 5 })).toBe('"": 3\n\'-\': 5\n"1": 2\na b: 4\n"y": 1\n');
  });

  it('a multi-line or very long key is not a simple key: "? key" then ": value"', () => {
    expect(goYaml({ 'a\nb': 5 })).toBe('? |-\n  a\n  b\n: 5\n');
    const key = Array.from({ length: 30 }, () => 'word').join(' ');
    expect(goYaml({ [key]: 'v' })).toBe(`? ${key.slice(0, 79)}\n  ${key.slice(80)}\n: v\n`);
  });
});

describe('folding long lines at 80 columns', () => {
  const words = (n: number): string => Array.from({ length: n }, () => 'word').join(' ');

  it('a plain scalar breaks at the first space past column 80, continuing two spaces in', () => {
    expect(goYaml({ k: words(20) })).toBe(`k: ${words(16)}\n  ${words(4)}\n`);
    expect(parse(goYaml({ k: words(20) }))).toEqual({ k: words(20) });
  });

  it('simple keys are never folded', () => {
    const key = words(20);
    expect(goYaml({ [key]: 'v' })).toBe(`${key}: v\n`);
  });

  it('inside a sequence item mapping, the continuation is indented under the key', () => {
    const text = goYaml({ list: [{ k: words(20) }] });
    expect(text).toBe(`list:\n- k: ${words(16)}\n    ${words(4)}\n`);
  });

  it('single- and double-quoted scalars fold too', () => {
    expect(goYaml({ k: `@${words(20)}` })).toBe(`k: '@${words(16)}\n  ${words(4)}'\n`);
    expect(goYaml({ k: `\t${words(20)}` })).toBe(`k: "\\t${words(16)}\n  ${words(4)}"\n`);
    expect(parse(goYaml({ k: `\t${words(20)}` }))).toEqual({ k: `\t${words(20)}` });
    expect(parse(goYaml({ k: `@${words(20)}` }))).toEqual({ k: `@${words(20)}` });
  });
});

describe('key order (go-yaml keyList.Less)', () => {
  it.each([
    ['letters by code point', ['b', 'a'], ['a', 'b']],
    ['upper case before lower case', ['a', 'B'], ['B', 'a']],
    ["upstream's provIP before providerid", ['providerid', 'provIP'], ['provIP', 'providerid']],
    ['digit runs by value', ['k10', 'k2', 'k1'], ['k1', 'k2', 'k10']],
    ['equal values: the shorter run first', ['x01', 'x1'], ['x1', 'x01']],
    ['a non-letter before a letter', ['ab', 'a_b'], ['a_b', 'ab']],
    ['a digit before a letter', ['a', '1'], ['1', 'a']],
    ['a prefix before the longer key', ['a1', 'a'], ['a', 'a1']],
    ['punctuation before digits', ['5', '-'], ['-', '5']],
    ['network_data keys', ['type', 'mtu', 'id', 'ethernet_mac_address'], ['ethernet_mac_address', 'id', 'mtu', 'type']],
    ['a digit run past int64 wraps (18446744073709551615 adds up to -1)', ['a5', 'a18446744073709551615'], ['a18446744073709551615', 'a5']],
    ["a letter newer than Go's Unicode 15.0 is no letter", ['a', '\u1C89'], ['\u1C89', 'a']],
  ])('%s', (_name, keys, sorted) => {
    expect([...keys].sort(compareKeys)).toEqual(sorted);
    const text = goYaml(Object.fromEntries(keys.map((k) => [k, 1])));
    expect(
      text
        .split('\n')
        .slice(0, -1)
        .map((line) => line.slice(0, line.lastIndexOf(':')).replace(/^["']|["']$/gu, '')),
    ).toEqual(sorted);
  });
});

describe('layout', () => {
  it('sequences in mappings are not indented; mappings in sequences continue under the first key', () => {
    expect(goYaml({ a: [{ b: 1, c: [{ d: 2 }] }], e: { f: { g: 'h' } } })).toBe('a:\n- b: 1\n  c:\n  - d: 2\ne:\n  f:\n    g: h\n');
  });

  it('empty collections are flow style, nested sequences share the dash line', () => {
    expect(goYaml({ a: [], b: {}, c: [[1, 2], [], {}] })).toBe('a: []\nb: {}\nc:\n- - 1\n  - 2\n- []\n- {}\n');
    expect(goYaml({})).toBe('{}\n');
    expect(goYaml([])).toBe('[]\n');
    expect(goYaml(['x', 'y'])).toBe('- x\n- "y"\n');
  });

  it('the value of a "? key" starts on the ": " line, a sequence too', () => {
    expect(goYaml({ 'a\nb': [1, 2] })).toBe('? |-\n  a\n  b\n: - 1\n  - 2\n');
    expect(goYaml({ 'a\nb': { c: 1 } })).toBe('? |-\n  a\n  b\n: c: 1\n');
    expect(goYaml({ 'a\nb': [] })).toBe('? |-\n  a\n  b\n: []\n');
  });

  it('numbers, booleans and null are plain', () => {
    expect(goYaml({ a: 1500, b: true, c: false, d: null, e: -3 })).toBe('a: 1500\nb: true\nc: false\nd: null\ne: -3\n');
  });
});

describe('numbers as strconv.FormatFloat(f, g, -1, 64)', () => {
  it.each([
    [0.5, '0.5'],
    [100, '100'],
    [1234567.5, '1.2345675e+06'],
    [123456.5, '123456.5'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [1.5e-7, '1.5e-07'],
    [Number.NaN, '.nan'],
    [Number.POSITIVE_INFINITY, '.inf'],
    [Number.NEGATIVE_INFINITY, '-.inf'],
    [-0, '0'],
    [2 ** 53, '9007199254740992'],
    [2 ** 60, '1152921504606846976'],
    [-(2 ** 63), '-9223372036854775808'],
    [2 ** 63, '9223372036854776000'],
    [1e19, '10000000000000000000'],
    [2 ** 64, '1.8446744073709552e+19'],
    [1e20, '1e+20'],
    [1e21, '1e+21'],
    [-1e19, '-1e+19'],
  ])('%d → %s', (input, expected) => {
    expect(formatGoFloat(input)).toBe(expected);
  });

  it('an integral double is an int64 while one holds it, a uint64 up to 2^64 (the JSON text), else a float', () => {
    expect(goYaml([2 ** 60, 1e19, 1e20])).toBe('- 1152921504606846976\n- 10000000000000000000\n- 1e+20\n');
  });
});

describe('what go-yaml reads back from the JSON text yaml.Marshal writes first', () => {
  const fails = (value: Parameters<typeof goYaml>[0], message: string): void => {
    expect(() => goYaml(value)).toThrow(GoYamlError);
    expect(() => goYaml(value)).toThrow(message);
  };

  it.each([
    ['DEL', '\u007f'],
    ['a C1 control', '\u0080'],
    ['U+009F', 'a\u009fb'],
    ['U+FFFE', '\ufffe'],
    ['U+FFFF', 'x\uffff'],
  ])("%s, which encoding/json leaves raw, is refused by go-yaml's reader, in a value or a key", (_name, s) => {
    fails({ k: s }, 'yaml: control characters are not allowed');
    fails({ [s]: 1 }, 'yaml: control characters are not allowed');
    fails([s], 'yaml: control characters are not allowed');
  });

  it.each([
    ['one NEL reads as a space', 'a\u0085b', 'k: a b\n'],
    ['spaces around it are dropped', 'a \u0085 b', 'k: a b\n'],
    ['two NELs read as one newline', 'a\u0085\u0085b', 'k: |-\n  a\n  b\n'],
    ['a NEL alone is a space', '\u0085', "k: ' '\n"],
    ['a trailing NEL is a trailing space', 'a\u0085', "k: 'a '\n"],
    ['--- after a NEL without a blank is text', 'a\u0085---', 'k: a ---\n'],
    ['--- after a NEL and a space is text', 'a\u0085 --- x', 'k: a --- x\n'],
  ])('NEL (written raw by encoding/json) is a line break inside the quoted scalar: %s', (_name, s, expected) => {
    expect(goYaml({ k: s })).toBe(expected);
  });

  it('a line starting with a document marker and a blank after a NEL fails', () => {
    fails({ k: 'a\u0085--- x' }, 'yaml: found unexpected document indicator');
    fails(['a\u0085...\u0085b'], 'yaml: found unexpected document indicator');
  });

  it('a key go-yaml cannot read as a simple key fails: a NEL in it, or over 1022 characters of JSON text', () => {
    fails({ 'a\u0085b': 1 }, "yaml: did not find expected ',' or '}'");
    expect(goYaml({ ['k'.repeat(1022)]: 1 })).toBe(`? ${'k'.repeat(1022)}\n: 1\n`);
    fails({ ['k'.repeat(1023)]: 1 }, "yaml: did not find expected ',' or '}'");
    expect(goYaml({ ['<'.repeat(170)]: 1 })).toBe(`? ${'<'.repeat(170)}\n: 1\n`);
    fails({ ['<'.repeat(171)]: 1 }, "yaml: did not find expected ',' or '}'");
    fails({ a: { ['\n'.repeat(512)]: 1 } }, "yaml: did not find expected ',' or '}'");
  });

  it('NaN and the infinities have no JSON text', () => {
    fails({ k: Number.NaN }, 'error marshaling into JSON: json: unsupported value: NaN');
    fails([Number.NEGATIVE_INFINITY], 'error marshaling into JSON: json: unsupported value: -Inf');
  });
});

describe('resolve and analysis helpers', () => {
  it('timestamps need a valid date and clock', () => {
    expect(isTimestamp('2024-02-29')).toBe(true);
    expect(isTimestamp('2023-02-29')).toBe(false);
    expect(isTimestamp('2026-1-2 3:4:5')).toBe(true);
    expect(isTimestamp('2026-11-29T25:00:00Z')).toBe(false);
  });

  it('base-60 floats need a leading digit or sign and colons', () => {
    expect(isBase60Float('1:20')).toBe(true);
    expect(isBase60Float('+1:20.5')).toBe(true);
    expect(isBase60Float('1:60')).toBe(false);
    expect(isBase60Float('a:20')).toBe(false);
  });

  it('resolvesToString and analyze agree with the style table', () => {
    expect(resolvesToString('0xZZ')).toBe(true);
    expect(resolvesToString('0xFFFFFFFFFFFFFFFFFF')).toBe(true);
    expect(analyze('')).toEqual({ blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false, multiline: false });
  });
});
