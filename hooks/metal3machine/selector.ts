// spec.hostSelector as upstream evaluates it: every matchLabels entry (an equality) and every
// matchExpressions item becomes a Kubernetes label requirement, its key and values checked as
// label syntax. Operators are lower-cased first (as Go does: `İ` becomes `i`), so `In` and `in`
// both work, `DoesNotExist` is rejected (Kubernetes spells it `!`) and `!` works.
import { isLabelKey, isLabelValue } from '../../domain/labels.js';
import { isRecord, rec, str } from '../kit/index.js';

type Labels = Readonly<Record<string, string>>;
type Requirement = (labels: Labels) => boolean;

export type SelectorResult = { ok: true; matches: Requirement } | { ok: false; error: string };

const OPERATORS = ['in', 'notin', '=', '==', '!=', 'exists', '!', 'gt', 'lt'] as const;
type Operator = (typeof OPERATORS)[number];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(value, 10, 64): an optional sign, decimal digits, within int64. */
function parseInt64(value: string): bigint | undefined {
  if (!/^[+-]?\d+$/u.test(value)) return undefined;
  const parsed = BigInt(value);
  return parsed < INT64_MIN || parsed > INT64_MAX ? undefined : parsed;
}

/** Go's strings.ToLower for the operator: as JavaScript's, except that `İ` lower-cases to plain `i`. */
function goLower(text: string): string {
  return text.replaceAll('\u0130', 'i').toLowerCase();
}

function isOperator(op: string): op is Operator {
  return (OPERATORS as readonly string[]).includes(op);
}

/** How many values each operator takes (labels.NewRequirement), and what to say otherwise. */
const VALUE_RULES: Readonly<Record<Operator, { fits: (values: readonly string[]) => boolean; needs: string }>> = {
  in: { fits: (values) => values.length > 0, needs: 'at least one value' },
  notin: { fits: (values) => values.length > 0, needs: 'at least one value' },
  '=': { fits: (values) => values.length === 1, needs: 'exactly one value' },
  '==': { fits: (values) => values.length === 1, needs: 'exactly one value' },
  '!=': { fits: (values) => values.length === 1, needs: 'exactly one value' },
  exists: { fits: (values) => values.length === 0, needs: 'no values' },
  '!': { fits: (values) => values.length === 0, needs: 'no values' },
  gt: { fits: (values) => values.length === 1 && parseInt64(values[0] ?? '') !== undefined, needs: 'exactly one integer value' },
  lt: { fits: (values) => values.length === 1 && parseInt64(values[0] ?? '') !== undefined, needs: 'exactly one integer value' },
};

/** What Kubernetes' labels.NewRequirement rejects about the values, or undefined. */
function valuesError(op: Operator, key: string, values: readonly string[]): string | undefined {
  const rule = VALUE_RULES[op];
  if (!rule.fits(values)) return `operator ${op} on ${key} needs ${rule.needs}, got ${JSON.stringify(values)}`;
  const bad = values.find((v) => !isLabelValue(v));
  return bad === undefined ? undefined : `hostSelector value "${bad}" for ${key} is not a valid label value`;
}

function numeric(op: 'gt' | 'lt', key: string, bound: bigint): Requirement {
  return (labels) => {
    const label = labels[key];
    const value = label === undefined ? undefined : parseInt64(label);
    if (value === undefined) return false;
    return op === 'gt' ? value > bound : value < bound;
  };
}

function matcher(op: Operator, key: string, values: readonly string[]): Requirement {
  switch (op) {
    case 'in':
    case '=':
    case '==':
      return (labels) => labels[key] !== undefined && values.includes(labels[key]);
    case 'notin':
    case '!=':
      return (labels) => labels[key] === undefined || !values.includes(labels[key]);
    case 'exists':
      return (labels) => labels[key] !== undefined;
    case '!':
      return (labels) => labels[key] === undefined;
    default:
      return numeric(op, key, parseInt64(values[0] ?? '') ?? 0n);
  }
}

/** labels.NewRequirement: the requirement, or why Kubernetes rejects it. */
function requirement(key: string, operator: string, values: readonly string[]): Requirement | string {
  if (!isLabelKey(key)) return `hostSelector key "${key}" is not a valid label key`;
  const op = goLower(operator);
  if (!isOperator(op)) return unsupported(operator, key);
  return valuesError(op, key, values) ?? matcher(op, key, values);
}

function expressionRequirement(expression: unknown): Requirement | string {
  if (!isRecord(expression)) return 'hostSelector.matchExpressions items must be objects';
  const values = Array.isArray(expression.values) ? expression.values.map(str) : [];
  return requirement(str(expression.key), str(expression.operator), values);
}

function unsupported(operator: string, key: string): string {
  return `hostSelector operator "${operator}" on ${key} is not supported (upstream lower-cases operators, so DoesNotExist cannot be used; use "!", notin or !=)`;
}

/** Compiles spec.hostSelector; an empty or absent selector matches every host. */
export function compileSelector(selector: unknown): SelectorResult {
  const spec = rec(selector);
  const items: (Requirement | string)[] = Object.entries(rec(spec.matchLabels)).map(([key, value]) => requirement(key, '=', [str(value)]));
  if (Array.isArray(spec.matchExpressions)) items.push(...spec.matchExpressions.map(expressionRequirement));
  const error = items.find((item) => typeof item === 'string');
  if (error !== undefined) return { ok: false, error };
  const requirements = items.filter((item): item is Requirement => typeof item !== 'string');
  return { ok: true, matches: (labels) => requirements.every((r) => r(labels)) };
}
