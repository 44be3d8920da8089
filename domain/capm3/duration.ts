// Go duration strings (metav1.Duration, e.g. "600s", "10m", "1h30m", "1.5h") as v1beta1
// Metal3Remediation's strategy.timeout holds them, to and from v1beta2's whole seconds.
const UNIT_SECONDS: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

/** The grammar of Go's time.ParseDuration (also what CEL's duration() accepts). */
export const GO_DURATION = /^[-+]?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$/u;
const TERM = /([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)/gu;

/** Seconds in a Go duration string, or undefined when it is not one. */
export function parseGoDuration(text: string): number | undefined {
  if (!GO_DURATION.test(text)) return undefined;
  const sign = text.startsWith('-') ? -1 : 1;
  let seconds = 0;
  for (const [, amount, unit] of text.matchAll(TERM)) seconds += Number(amount) * (UNIT_SECONDS[unit ?? ''] ?? 0);
  // Sub-nanosecond noise from the float sums (0.1h + 0.2h) is not part of the value.
  return (sign * Math.round(seconds * 1e9)) / 1e9;
}

/** Whole seconds of a duration string, truncated towards zero like int32(d.Seconds()). */
export function durationToSeconds(text: string): number | undefined {
  const seconds = parseGoDuration(text);
  return seconds === undefined ? undefined : Math.trunc(seconds);
}

/** The duration string written for whole seconds on down-conversion ("600s"). */
export function secondsToDuration(seconds: number): string {
  return `${seconds}s`;
}
