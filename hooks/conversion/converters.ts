// Every kind the conversion webhook converts: the Metal3Data kinds and the Cluster API provider
// kinds (Metal3Cluster, Metal3Machine, Metal3Remediation and their templates).
import type { KindConverter } from '../../domain/capi/conversion.js';
import { capm3Converters } from '../../domain/capm3/conversion.js';
import { metal3DataConverters } from '../../domain/metal3data/conversion.js';

export const infrastructureConverters: readonly KindConverter[] = [...metal3DataConverters, ...capm3Converters];
