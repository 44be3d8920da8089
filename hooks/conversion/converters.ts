// Every kind the conversion webhook converts. Issue 7 (Metal3Cluster, Metal3Machine, …) adds its
// converters here.
import type { KindConverter } from '../../domain/capi/conversion.js';
import { metal3DataConverters } from '../../domain/metal3data/conversion.js';

export const infrastructureConverters: readonly KindConverter[] = [...metal3DataConverters];
