import type { ControllerHooks } from '../types.js';
import { syncHostAnnotations } from './decorator.js';
import { syncBareMetalHost } from './sync.js';

export const baremetalhostHooks: ControllerHooks = { sync: syncBareMetalHost, finalize: syncBareMetalHost };
export const baremetalhostAnnotationHooks: ControllerHooks = { sync: syncHostAnnotations };
