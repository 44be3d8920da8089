// go-yaml output: what sigs.k8s.io/yaml.Marshal writes for a JSON value (CAPM3's metaData and
// networkData Secrets; a bond parameter's value is free JSON), against domain/metal3data/goyaml,
// byte for byte. The oracle reads each case's JSON text as the API server does and answers the
// text it serves (what Ironhook's hook reads too) with the YAML, or yaml.Marshal's error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { goYaml, type YamlValue } from '../../domain/metal3data/goyaml/emit.js';
import { GO_DIGIT_RUNS, GO_LETTER_RUNS, GO_UNICODE_VERSION } from '../../domain/metal3data/goyaml/unicode.js';
import { jsonValue } from './goyaml-values.js';
import { askOracle, expectIdentical, runSweep, verdictOf, type OracleAnswer, type Verdict } from './oracle.js';

interface GoYamlCase {
  /** The JSON text a user wrote (served back unchanged: the generators only write canonical text). */
  readonly text: string;
}

interface GoYamlAnswer {
  readonly json: string;
  readonly yaml?: string;
  readonly error?: string;
}

const goYamlCase: fc.Arbitrary<GoYamlCase> = jsonValue.map((value) => ({ text: JSON.stringify(value) }));

/** A JSON value's text with object keys sorted: the served text compares equal whatever the key order. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(',')}}`;
}

function ours(c: GoYamlCase): Verdict {
  const value = JSON.parse(c.text) as YamlValue;
  const served = sortedJson(value);
  try {
    return { accepted: true, value: { served, yaml: goYaml(value) } };
  } catch (error) {
    return { accepted: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function theirs(answer: OracleAnswer): Verdict {
  const verdict = verdictOf(answer);
  if (!verdict.accepted) return { accepted: false, error: `the API server would refuse it: ${verdict.error}` };
  const { json, yaml, error } = verdict.value as GoYamlAnswer;
  if (error !== undefined) return { accepted: false, error };
  return { accepted: true, value: { served: sortedJson(JSON.parse(json)), yaml } };
}

describe('differential: go-yaml output (sigs.k8s.io/yaml v1.6.0, go.yaml.in/yaml/v2 v2.4.3)', () => {
  it('writes random JSON values as upstream does, byte for byte', () => {
    expectIdentical(runSweep({ area: 'goyaml', arbitrary: goYamlCase, defaultCases: 2000, toOracle: (c) => c.text, ours, theirs }), 5);
  });
});

describe("go-yaml's key order: Go's Unicode letters and digits", () => {
  it("domain/metal3data/goyaml/unicode.ts holds the tables of the oracle's Go (else: paste the oracle's answer)", () => {
    const [answer] = askOracle('goyaml-unicode', [{}]);
    expect(answer).toEqual({ ok: { version: GO_UNICODE_VERSION, letters: GO_LETTER_RUNS, digits: GO_DIGIT_RUNS } });
  });
});

describe('documented deviations (docs/compatibility.md)', () => {
  it('integers beyond 2^53 in free JSON: Ironhook writes the double JSON.parse read, exactly', () => {
    const texts = ['9007199254740993', '12345678901234567', '1152921504606846976', '1152921504606847000', '9223372036854775807', '-9223372036854775808'];
    const upstream = askOracle('goyaml', texts).map((answer) => (verdictOf(answer) as { value: GoYamlAnswer }).value.yaml);
    const ironhook = texts.map((text) => goYaml(JSON.parse(text) as YamlValue));
    // prettier-ignore
    expect(texts.map((text, i) => ({ text, upstream: upstream[i], ironhook: ironhook[i] }))).toEqual([
      { text: '9007199254740993', upstream: '9007199254740993\n', ironhook: '9007199254740992\n' },
      { text: '12345678901234567', upstream: '12345678901234567\n', ironhook: '12345678901234568\n' },
      { text: '1152921504606846976', upstream: '1152921504606846976\n', ironhook: '1152921504606846976\n' },
      { text: '1152921504606847000', upstream: '1152921504606847000\n', ironhook: '1152921504606846976\n' },
      { text: '9223372036854775807', upstream: '9223372036854775807\n', ironhook: '9223372036854776000\n' },
      { text: '-9223372036854775808', upstream: '-9223372036854775808\n', ironhook: '-9223372036854775808\n' },
    ]);
  });
});
