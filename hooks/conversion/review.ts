// The CRD conversion webhook as a pure function: a ConversionReview (apiextensions.k8s.io/v1)
// in, the ConversionReview answer out. The API server calls it for objects of the CRDs whose
// `spec.conversion.strategy` is Webhook (docs/metal3data.md, "Conversion"); the hook server
// mounts it and answers HTTP 200 with the returned body. A body that is not a ConversionReview
// is a HookInputError (HTTP 400); an object that cannot be converted fails the whole review, as
// the API server requires (result.status Failure, no objects).
import { convertObject, ConversionError, type KindConverter } from '../../domain/capi/conversion.js';
import type { KObject } from '../../domain/k8s.js';
import { isKObject } from '../../domain/metacontroller.js';
import { HookInputError } from '../types.js';
import { infrastructureConverters } from './converters.js';
import { isRecord } from '../../domain/records.js';

const CONVERSION_REVIEW_API_VERSION = 'apiextensions.k8s.io/v1';

export interface ConversionReviewResponse {
  apiVersion: typeof CONVERSION_REVIEW_API_VERSION;
  kind: 'ConversionReview';
  response: {
    uid: string;
    convertedObjects: KObject[];
    result: { status: 'Success' } | { status: 'Failure'; message: string };
  };
}

interface ConversionRequest {
  uid: string;
  desiredAPIVersion: string;
  objects: unknown[];
}

function parseReview(body: unknown): ConversionRequest {
  if (!isRecord(body) || body.kind !== 'ConversionReview' || body.apiVersion !== CONVERSION_REVIEW_API_VERSION) {
    throw new HookInputError(`body must be an ${CONVERSION_REVIEW_API_VERSION} ConversionReview`);
  }
  const request = body.request;
  if (!isRecord(request) || typeof request.uid !== 'string' || typeof request.desiredAPIVersion !== 'string' || !Array.isArray(request.objects)) {
    throw new HookInputError('ConversionReview.request needs uid, desiredAPIVersion and objects');
  }
  return { uid: request.uid, desiredAPIVersion: request.desiredAPIVersion, objects: request.objects };
}

function answer(uid: string, outcome: { objects: KObject[] } | { message: string }): ConversionReviewResponse {
  const response: ConversionReviewResponse['response'] =
    'objects' in outcome
      ? { uid, convertedObjects: outcome.objects, result: { status: 'Success' } }
      : { uid, convertedObjects: [], result: { status: 'Failure', message: outcome.message } };
  return { apiVersion: CONVERSION_REVIEW_API_VERSION, kind: 'ConversionReview', response };
}

/** Converts every object of the review to `request.desiredAPIVersion`, or fails the review. */
export function convertReview(body: unknown, converters: readonly KindConverter[] = infrastructureConverters): ConversionReviewResponse {
  const request = parseReview(body);
  try {
    const objects = request.objects.map((obj, i) => {
      if (!isKObject(obj)) throw new ConversionError(`objects[${String(i)}] is not a Kubernetes object`);
      return convertObject(obj, request.desiredAPIVersion, converters);
    });
    return answer(request.uid, { objects });
  } catch (error) {
    if (error instanceof ConversionError) return answer(request.uid, { message: error.message });
    throw error;
  }
}
