// domain/api is generated from manifests/crds (scripts/api-types.ts): a CRD change without
// regenerated types fails here. Fix: `npm run api:types` and commit the result.
import { describe, expect, it } from 'vitest';
import { translate } from '../../scripts/api-types-schema.js';
import { staleFiles } from '../../scripts/api-types.js';

describe('generated API types', () => {
  it('match manifests/crds (npm run api:types)', async () => {
    expect(await staleFiles()).toEqual([]);
  }, 60_000);
});

describe('CRD schema translation', () => {
  it.each([
    ['int-or-string', { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] }, { tsType: 'number | string' }],
    ['untyped preserved value', { 'x-kubernetes-preserve-unknown-fields': true }, { tsType: 'unknown' }],
    ['preserved object', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, { type: 'object', additionalProperties: true }],
    ['map', { type: 'object', additionalProperties: { type: 'string' } }, { type: 'object', additionalProperties: { type: 'string' } }],
    ['object without fields', { type: 'object', properties: {} }, { type: 'object', properties: {}, tsType: 'Record<string, never>' }],
    [
      'nullable array',
      { type: 'array', nullable: true, items: { type: 'string' } },
      { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
    ],
    ['nullable enum', { type: 'string', nullable: true, enum: ['a'] }, { type: 'string', enum: ['a', null] }],
    [
      'validation-only keywords',
      { type: 'string', pattern: '^a', maxLength: 3, format: 'date-time', 'x-kubernetes-validations': [{ rule: 'self != ""' }] },
      { type: 'string' },
    ],
  ])('%s', (_name, node, expected) => {
    expect(translate(node)).toEqual(expected);
  });
});
