// Label selectors (metav1.LabelSelector) and Metacontroller's annotation selectors, evaluated
// against a map of strings. An empty selector matches everything; invalid operators are errors.
import { isObject } from '../kube/objects.js';

export interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Requirement[];
}

export interface AnnotationSelector {
  matchAnnotations?: Record<string, string>;
  matchExpressions?: Requirement[];
}

export type Matcher = (values: Record<string, string>) => boolean;

function requirementMatcher(requirement: Requirement): Matcher {
  const { key, operator } = requirement;
  const values = requirement.values ?? [];
  switch (operator) {
    case 'In':
      if (values.length === 0) throw new Error(`selector: values for "${key}" In must be non-empty`);
      return (labels) => key in labels && values.includes(labels[key] ?? '');
    case 'NotIn':
      if (values.length === 0) throw new Error(`selector: values for "${key}" NotIn must be non-empty`);
      return (labels) => !(key in labels) || !values.includes(labels[key] ?? '');
    case 'Exists':
      return (labels) => key in labels;
    case 'DoesNotExist':
      return (labels) => !(key in labels);
    default:
      throw new Error(`selector: "${operator}" is not a valid label selector operator`);
  }
}

function compile(exact: Record<string, string> | undefined, expressions: Requirement[] | undefined): Matcher {
  const matchers = [
    ...Object.entries(exact ?? {}).map(([key, value]): Matcher => (labels) => labels[key] === value),
    ...(expressions ?? []).map(requirementMatcher),
  ];
  return (labels) => matchers.every((matcher) => matcher(labels));
}

/** A matcher for a label selector; `undefined` and `{}` match everything. Throws on invalid input. */
export function labelMatcher(selector: LabelSelector | undefined): Matcher {
  return compile(selector?.matchLabels, selector?.matchExpressions);
}

export function annotationMatcher(selector: AnnotationSelector | undefined): Matcher {
  return compile(selector?.matchAnnotations, selector?.matchExpressions);
}

export function selectorIsEmpty(selector: LabelSelector | undefined): boolean {
  return Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
}

/**
 * The parent selector used to claim children: `controller-uid=<uid>` with generateSelector,
 * otherwise `parent.spec.selector`, which must not be empty.
 */
export function parentSelector(parent: { metadata: { uid?: string }; spec?: unknown }, generateSelector: boolean): LabelSelector {
  if (generateSelector) return { matchLabels: { 'controller-uid': parent.metadata.uid ?? '' } };
  const spec = isObject(parent.spec) ? parent.spec : {};
  const selector = isObject(spec.selector) ? (spec.selector as LabelSelector) : undefined;
  if (selectorIsEmpty(selector)) {
    throw new Error('.spec.selector must have either matchLabels, matchExpressions, or both');
  }
  return selector ?? {};
}
