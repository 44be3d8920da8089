// Every converter of the Cluster API provider kinds (Metal3Cluster, Metal3Machine,
// Metal3Remediation and their templates) for the conversion webhook.
import type { KindConverter } from '../capi/conversion.js';
import { metal3ClusterConverter, metal3ClusterTemplateConverter } from './cluster-conversion.js';
import { metal3MachineConverter, metal3MachineTemplateConverter } from './machine-conversion.js';
import { metal3RemediationConverter, metal3RemediationTemplateConverter } from './remediation-conversion.js';

export const capm3Converters: readonly KindConverter[] = [
  metal3ClusterConverter,
  metal3ClusterTemplateConverter,
  metal3MachineConverter,
  metal3MachineTemplateConverter,
  metal3RemediationConverter,
  metal3RemediationTemplateConverter,
];
