// v1beta1 ↔ v1beta2 for Metal3Remediation and Metal3RemediationTemplate: the
// strategy's Go duration `timeout` ("600s", "10m", "1h30m") ↔ whole `timeoutSeconds`. A duration
// that is not exactly "<seconds>s" (another spelling, a fraction, garbage) is kept verbatim in the
// conversion annotation and comes back as written while the seconds still match.
import type { Kept, KindConverter } from '../capi/conversion.js';
import { durationToSeconds, secondsToDuration } from './duration.js';
import { getPath } from './moves.js';
import { Capm3Kind, rec, stepConverter, templateStep, type ConversionStep } from './types.js';

function timeoutUp(strategy: Record<string, unknown>, kept: Kept): void {
  const timeout = strategy.timeout;
  if (timeout === undefined) return;
  delete strategy.timeout;
  const seconds = typeof timeout === 'string' ? durationToSeconds(timeout) : undefined;
  if (seconds !== undefined) strategy.timeoutSeconds = seconds;
  if (seconds === undefined || secondsToDuration(seconds) !== timeout) kept.timeout = timeout;
}

function timeoutDown(strategy: Record<string, unknown>, restore: Kept): void {
  const seconds = strategy.timeoutSeconds;
  delete strategy.timeoutSeconds;
  const written = restore.timeout;
  const writtenSeconds = typeof written === 'string' ? durationToSeconds(written) : undefined;
  if (typeof seconds !== 'number') {
    if (written !== undefined && writtenSeconds === undefined) strategy.timeout = written;
    return;
  }
  strategy.timeout = writtenSeconds === seconds ? written : secondsToDuration(seconds);
}

const strategyStep: ConversionStep = {
  up(body, kept) {
    const strategy = rec(getPath(body, 'spec.strategy'));
    if (strategy !== undefined) timeoutUp(strategy, kept);
  },
  down(body, _kept, restore) {
    const strategy = rec(getPath(body, 'spec.strategy'));
    if (strategy !== undefined) timeoutDown(strategy, restore);
  },
};

export const metal3RemediationConverter: KindConverter = stepConverter(Capm3Kind.Metal3Remediation, [strategyStep]);

export const metal3RemediationTemplateConverter: KindConverter = stepConverter(Capm3Kind.Metal3RemediationTemplate, [templateStep([strategyStep])]);
