// Upstream's error back-off, with jitter derived from the
// host's identity instead of a random number generator so hooks stay deterministic.
import { unitInterval } from './naming.js';

const MAX_EXPONENT = 9;

/**
 * Seconds to wait after the `errorCount`-th consecutive failure: uniformly in
 * (2^(n-1), 2^n] minutes with n = min(errorCount, 9); errorCount 0 means no wait.
 */
export function backoffSeconds(errorCount: number, jitterKey: string): number {
  if (errorCount <= 0) {
    return 0;
  }
  const exponent = Math.min(errorCount, MAX_EXPONENT);
  const jitter = unitInterval(`${jitterKey}/${errorCount}`);
  return Math.ceil(2 ** exponent * 60 * (1 - 0.5 * jitter));
}

/** RFC 3339 UTC with second precision, the format Kubernetes uses for metav1.Time. */
export function formatTime(epochMillis: number): string {
  return new Date(Math.floor(epochMillis / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** `time` plus `seconds`, in the same format; undefined in, undefined out. */
export function addSeconds(time: string, seconds: number): string {
  return formatTime(Date.parse(time) + seconds * 1000);
}

/** The latest of several optional timestamps (lexical order equals time order for this format). */
export function latestTime(...times: (string | null | undefined)[]): string | undefined {
  let latest: string | undefined;
  for (const time of times) {
    if (time && (latest === undefined || Date.parse(time) > Date.parse(latest))) {
      latest = time;
    }
  }
  return latest;
}
