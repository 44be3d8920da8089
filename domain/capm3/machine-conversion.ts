// v1beta1 ↔ v1beta2 for Metal3Machine and Metal3MachineTemplate:
// image.format ↔ image.diskFormat, the contract status moves (ready ↔ initialization.provisioned,
// failureReason/failureMessage/conditions ↔ deprecated.v1beta1, v1beta2.conditions ↔ conditions),
// dataTemplate and renderedData ObjectReference ↔ Metal3ObjectRef, and status.phase (v1beta1
// only, never written by the controller) kept in the conversion annotation.
import { joinReference, referenceKept, splitReference, type Kept, type KindConverter } from '../capi/conversion.js';
import { CONTRACT_V1BETA1_ONLY, CONTRACT_V1BETA2_ONLY, contractStatusMoves, getPath, moveStep, putPath, takePath } from './moves.js';
import { Capm3Kind, rec, stepConverter, templateMetadataStep, templateStep, type ConversionStep } from './types.js';

const IMAGE_FORMAT = { v1beta1: 'spec.image.format', v1beta2: 'spec.image.diskFormat' } as const;

/** The references that are ObjectReference in v1beta1 and Metal3ObjectRef in v1beta2. */
const REFERENCES = ['spec.dataTemplate', 'status.renderedData'] as const;

function referencesStep(paths: readonly string[]): ConversionStep {
  return {
    up(body, kept) {
      for (const path of paths) {
        const split = splitReference(getPath(body, path));
        if (split === undefined) continue;
        putPath(body, path, split.ref);
        const extras = referenceKept(split.ref, split.extras);
        if (extras !== undefined) kept[path] = extras;
      }
    },
    down(body, _kept, restore) {
      for (const path of paths) {
        const joined = joinReference(getPath(body, path), restore[path]);
        if (joined !== undefined) putPath(body, path, joined);
      }
    },
  };
}

/** status.phase exists only in v1beta1. */
const phaseStep: ConversionStep = {
  up(body, kept: Kept) {
    const phase = takePath(body, 'status.phase');
    if (phase !== undefined) kept.phase = phase;
  },
  down(body, _kept, restore) {
    const status = rec(body.status);
    if (status !== undefined && restore.phase !== undefined) status.phase = restore.phase;
  },
};

const machineMoves = moveStep({
  moves: [IMAGE_FORMAT, ...contractStatusMoves()],
  v1beta1Only: CONTRACT_V1BETA1_ONLY,
  v1beta2Only: CONTRACT_V1BETA2_ONLY,
});

const MACHINE_STEPS: readonly ConversionStep[] = [machineMoves, referencesStep(REFERENCES), phaseStep];

export const metal3MachineConverter: KindConverter = stepConverter(Capm3Kind.Metal3Machine, MACHINE_STEPS);

export const metal3MachineTemplateConverter: KindConverter = stepConverter(Capm3Kind.Metal3MachineTemplate, [
  templateStep([moveStep({ moves: [IMAGE_FORMAT], v1beta1Only: [], v1beta2Only: [] }), referencesStep(['spec.dataTemplate'])]),
  templateMetadataStep,
]);
