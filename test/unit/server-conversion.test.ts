// POST /convert through the real express app: a v1beta1 Metal3DataClaim comes back as v1beta2,
// a body that is not a ConversionReview is a 400, and no webhook credentials are asked for.
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { hookRegistry } from '../../hooks/registry.js';
import { createHookServer } from '../../hooks/server/app.js';
import { DEFAULT_HOOK_CONFIG } from '../../hooks/types.js';

const app = createHookServer({ registry: hookRegistry, config: DEFAULT_HOOK_CONFIG, auth: { kind: 'bearer', token: 'secret-token-for-hooks-only' } });

const review = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  request: {
    uid: '7c2a-e2e',
    desiredAPIVersion: 'infrastructure.cluster.x-k8s.io/v1beta2',
    objects: [
      {
        apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
        kind: 'Metal3DataClaim',
        metadata: { name: 'worker-0', namespace: 'metal3' },
        spec: { template: { name: 'workers-template' } },
      },
    ],
  },
};

describe('POST /convert', () => {
  it.each([
    ['a v1beta1 claim is converted to v1beta2', review, 200],
    ['a body that is not a ConversionReview is rejected', { kind: 'Nope' }, 400],
  ] as const)('%s', async (_name, body, status) => {
    const response = await request(app).post('/convert').set('content-type', 'application/json').send(JSON.stringify(body));
    expect(response.status).toBe(status);
    if (status === 200) {
      const converted = (response.body as { response: { uid: string; result: { status: string }; convertedObjects: { apiVersion: string }[] } }).response;
      expect(converted.uid).toBe('7c2a-e2e');
      expect(converted.result.status).toBe('Success');
      expect(converted.convertedObjects[0]?.apiVersion).toBe('infrastructure.cluster.x-k8s.io/v1beta2');
    }
  });
});
