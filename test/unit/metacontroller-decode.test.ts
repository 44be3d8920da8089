// Hook response decoding in the stand-in (reference §4): strict (v2 default) refuses unknown
// and duplicated fields of the typed parts; type mismatches always fail; zero values for
// missing fields; children need a kind.
import { describe, expect, it } from 'vitest';
import { decodeCompositeResponse, decodeCustomizeResponse, decodeDecoratorResponse } from '../support/metacontroller/core/decode.js';
import { duplicateKeyPaths } from '../support/metacontroller/core/json-scan.js';

describe('composite responses', () => {
  it('decodes the documented fields', () => {
    const text = JSON.stringify({ status: { ready: 1 }, children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }], resyncAfterSeconds: 2.5, finalized: true });
    expect(decodeCompositeResponse(text, true)).toEqual({
      status: { ready: 1 },
      children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }],
      resyncAfterSeconds: 2.5,
      finalized: true,
    });
  });

  it.each([
    ['missing everything', '{}'],
    ['nulls', '{"status":null,"children":null,"resyncAfterSeconds":null,"finalized":null}'],
  ])('takes zero values for %s (destructive: no children, status {})', (_what, text) => {
    expect(decodeCompositeResponse(text, true)).toEqual({ status: {}, children: [], resyncAfterSeconds: 0, finalized: false });
  });

  it.each([
    ['unknown top-level field', '{"status":{},"children":[],"childern":[]}', /unknown field "childern"/u],
    ['wrong case', '{"Status":{},"children":[]}', /unknown field "Status"/u],
    ['duplicated field', '{"status":{},"children":[],"children":[]}', /duplicate field "children"/u],
  ])('strict mode refuses a %s', (_what, text, error) => {
    expect(() => decodeCompositeResponse(text, true)).toThrow(error);
    expect(() => decodeCompositeResponse(text, false)).not.toThrow();
  });

  it.each([
    ['status not an object', '{"status":[],"children":[]}', /field "status" of type object/u],
    ['status a string', '{"status":"ok"}', /cannot unmarshal string/u],
    ['children not a list', '{"children":{}}', /field "children" of type array/u],
    ['resyncAfterSeconds a string', '{"resyncAfterSeconds":"5"}', /cannot unmarshal string into field "resyncAfterSeconds"/u],
    ['finalized a string', '{"finalized":"true"}', /field "finalized" of type boolean/u],
    ['a child without kind', '{"children":[{"apiVersion":"v1","metadata":{"name":"a"}}]}', /Object 'Kind' is missing/u],
    ['a null child', '{"children":[null]}', /Object 'Kind' is missing/u],
    ['a top-level array', '[]', /expected a JSON object, got array/u],
    ['an empty body', '', /can't unmarshal response/u],
    ['not JSON', 'OK', /can't unmarshal response/u],
  ])('both modes refuse %s', (_what, text, error) => {
    expect(() => decodeCompositeResponse(text, true)).toThrow(error);
    expect(() => decodeCompositeResponse(text, false)).toThrow(error);
  });

  it('leaves child contents free-form, unknown fields included', () => {
    const text = '{"children":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"whatever":{"x":1}}]}';
    expect(decodeCompositeResponse(text, true).children[0]).toMatchObject({ whatever: { x: 1 } });
  });
});

describe('decorator responses', () => {
  it('keeps null label values (delete) and a null status (unchanged)', () => {
    const text = '{"labels":{"a":"1","b":null},"annotations":{"c":"x"},"status":null,"attachments":[]}';
    expect(decodeDecoratorResponse(text, true)).toEqual({ labels: { a: '1', b: null }, annotations: { c: 'x' }, status: null, attachments: [], resyncAfterSeconds: 0, finalized: false });
  });

  it.each([
    ['a numeric label value', '{"labels":{"a":1}}', /field "labels.a" of type string/u],
    ['an attachment without kind', '{"attachments":[{"metadata":{}}]}', /Object 'Kind' is missing/u],
    ['an unknown field in strict mode', '{"attachments":[],"children":[]}', /unknown field "children"/u],
  ])('refuses %s', (_what, text, error) => {
    expect(() => decodeDecoratorResponse(text, true)).toThrow(error);
  });
});

describe('customize responses', () => {
  it('decodes rules and treats null parts as absent', () => {
    const text = JSON.stringify({ relatedResources: [{ apiVersion: 'v1', resource: 'configmaps', namespace: 'shared', names: ['a'], labelSelector: null }] });
    expect(decodeCustomizeResponse(text, true)).toEqual([{ apiVersion: 'v1', resource: 'configmaps', namespace: 'shared', names: ['a'] }]);
  });

  it.each([
    ['a bare array (the docs example)', '[{"apiVersion":"v1","resource":"configmaps"}]', /expected a JSON object/u],
    ['a misspelled selector field (F16)', '{"relatedResources":[{"apiVersion":"v1","resource":"secrets","labelSelector":{"matchLabel":{"a":"b"}}}]}', /unknown field "relatedResources\[0\].labelSelector.matchLabel"/u],
    ['an unknown rule field', '{"relatedResources":[{"apiVersion":"v1","resource":"secrets","name":"x"}]}', /unknown field "relatedResources\[0\].name"/u],
    ['a duplicated rule field', '{"relatedResources":[{"apiVersion":"v1","resource":"secrets","resource":"configmaps"}]}', /duplicate field "relatedResources\[0\].resource"/u],
    ['names that are not strings', '{"relatedResources":[{"apiVersion":"v1","resource":"secrets","names":[1]}]}', /of type string/u],
  ])('strict mode refuses %s', (_what, text, error) => {
    expect(() => decodeCustomizeResponse(text, true)).toThrow(error);
  });

  it('loose mode ignores the misspelling, so the selector selects everything', () => {
    const text = '{"relatedResources":[{"apiVersion":"v1","resource":"secrets","labelSelector":{"matchLabel":{"a":"b"}}}]}';
    expect(decodeCustomizeResponse(text, false)).toEqual([{ apiVersion: 'v1', resource: 'secrets', labelSelector: { matchLabel: { a: 'b' } } }]);
  });
});

describe('duplicateKeyPaths', () => {
  it.each([
    ['{"a":1,"b":2}', []],
    ['{"a":1,"a":2}', ['.a']],
    ['{"l":[{"x":1},{"x":1,"x":2}]}', ['.l[1].x']],
    ['{"s":"a\\"b","s":"{\\"q\\":1,\\"q\\":2}"}', ['.s']],
    ['{"n":{"k":[1,2,{"z":null,"z":true}]}}', ['.n.k[2].z']],
  ])('%s -> %j', (text, paths) => {
    expect(duplicateKeyPaths(text)).toEqual(paths);
  });
});
