// spec.hostSelector as upstream evaluates it: matchLabels are equality requirements;
// matchExpressions operators are lower-cased before Kubernetes' label parser sees them, so `In`
// and `in` both work and `DoesNotExist` (which would need `!`) cannot be expressed at all.
import { isRecord, rec, str } from '../kit/index.js';

type Labels = Readonly<Record<string, string>>;
type Requirement = (labels: Labels) => boolean;

export type SelectorResult = { ok: true; matches: Requirement } | { ok: false; error: string };

const INTEGER = /^-?\d+$/u;

function numericRequirement(op: string, key: string, values: readonly string[]): Requirement | string {
  const value = values[0] ?? '';
  if (values.length !== 1 || !INTEGER.test(value)) return `operator ${op} on ${key} needs exactly one integer value`;
  const bound = Number(value);
  return (labels) => {
    const label = labels[key];
    if (label === undefined || !INTEGER.test(label)) return false;
    return op === 'gt' ? Number(label) > bound : Number(label) < bound;
  };
}

function equalityRequirement(op: string, key: string, values: readonly string[]): Requirement | string {
  const value = values[0];
  if (values.length !== 1 || value === undefined) return `operator ${op} on ${key} needs exactly one value, got ${values.length}`;
  if (op === '!=') return (labels) => labels[key] !== value;
  return (labels) => labels[key] === value;
}

function setRequirement(op: string, key: string, values: readonly string[]): Requirement | string {
  if (values.length === 0) return `operator ${op} on ${key} needs at least one value`;
  if (op === 'in') return (labels) => labels[key] !== undefined && values.includes(labels[key]);
  return (labels) => labels[key] === undefined || !values.includes(labels[key]);
}

function existsRequirement(key: string, values: readonly string[]): Requirement | string {
  return values.length === 0 ? (labels) => labels[key] !== undefined : `operator exists on ${key} takes no values`;
}

function requirement(expression: unknown): Requirement | string {
  const item = rec(expression);
  const key = str(item.key);
  const op = str(item.operator).toLowerCase();
  const values = Array.isArray(item.values) ? item.values.map(str) : [];
  switch (op) {
    case 'in':
    case 'notin':
      return setRequirement(op, key, values);
    case 'exists':
      return existsRequirement(key, values);
    case 'gt':
    case 'lt':
      return numericRequirement(op, key, values);
    default:
      return ['=', '==', '!='].includes(op) ? equalityRequirement(op, key, values) : unsupported(str(item.operator), key);
  }
}

function unsupported(operator: string, key: string): string {
  return `hostSelector operator "${operator}" on ${key} is not supported (upstream lower-cases operators, so DoesNotExist cannot be used; use notin or !=)`;
}

/** Compiles spec.hostSelector; an empty or absent selector matches every host. */
export function compileSelector(selector: unknown): SelectorResult {
  const spec = rec(selector);
  const requirements: Requirement[] = Object.entries(rec(spec.matchLabels)).map(
    ([key, value]) =>
      (labels: Labels) =>
        labels[key] === str(value),
  );
  const expressions = Array.isArray(spec.matchExpressions) ? spec.matchExpressions : [];
  for (const expression of expressions) {
    const compiled = isRecord(expression) ? requirement(expression) : 'hostSelector.matchExpressions items must be objects';
    if (typeof compiled === 'string') return { ok: false, error: compiled };
    requirements.push(compiled);
  }
  return { ok: true, matches: (labels) => requirements.every((r) => r(labels)) };
}
