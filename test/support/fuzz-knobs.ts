// The fuzz tests' knobs: a fixed seed unless FUZZ_SEED is set, and a run count that FUZZ_RUNS
// multiplies (FUZZ_RUNS=50 for a long run). A failure names the seed that reproduces it.
import fc from 'fast-check';

/** The seed every fuzz test uses when FUZZ_SEED is not set. */
const DEFAULT_SEED = 20261206;

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return value;
}

interface FuzzParameters {
  seed: number;
  numRuns: number;
}

/** The seed and run count for a property whose default budget is `runs`. */
function fuzzParameters(runs: number): FuzzParameters {
  return { seed: envNumber('FUZZ_SEED', DEFAULT_SEED), numRuns: Math.max(1, runs * Math.max(1, envNumber('FUZZ_RUNS', 1))) };
}

/** fc.assert with the knobs; the error says how to replay it. */
export async function fuzz<T>(property: fc.IAsyncPropertyWithHooks<T> | fc.IPropertyWithHooks<T>, runs: number): Promise<void> {
  const parameters = fuzzParameters(runs);
  try {
    await fc.assert(property, { ...parameters, endOnFailure: false });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`fuzz failure; replay with FUZZ_SEED=${parameters.seed} (FUZZ_RUNS=${process.env.FUZZ_RUNS ?? '1'})\n${message}`, { cause: error });
  }
}
