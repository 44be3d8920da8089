// Evaluation of customize rules (`relatedResources[]`, §5.5 of the reference): which objects a
// rule selects. Pure: the caller supplies the candidate objects and namespace labels.
import type { KObject } from '../kube/objects.js';
import { labelsOf, nameOf, namespaceOf } from '../kube/objects.js';
import type { RelatedRule } from './decode.js';
import type { HookVersion } from './object-map.js';
import { labelMatcher } from './selector.js';

export interface RuleContext {
  version: HookVersion;
  parentNamespaced: boolean;
  parentNamespace: string;
  /** Whether the rule's resource is namespaced (from discovery). */
  relatedNamespaced: boolean;
  /** Labels of a namespace, for namespaceSelector; undefined when the namespace is unknown. */
  namespaceLabels: (namespace: string) => Record<string, string> | undefined;
}

const hasNames = (rule: RelatedRule): boolean => (rule.names ?? []).length > 0;

type RuleCheck = [broken: (rule: RelatedRule, context: Omit<RuleContext, 'namespaceLabels'>) => boolean, message: (rule: RelatedRule, context: Omit<RuleContext, 'namespaceLabels'>) => string];

const v1Namespaced = (context: Omit<RuleContext, 'namespaceLabels'>): boolean => context.version === 'v1' && context.parentNamespaced;

const RULE_CHECKS: RuleCheck[] = [
  [(rule) => hasNames(rule) && (rule.labelSelector !== undefined || rule.namespaceSelector !== undefined), () => 'names cannot be combined with labelSelector or namespaceSelector'],
  [(rule) => rule.namespace !== undefined && rule.namespaceSelector !== undefined, () => 'namespace cannot be combined with namespaceSelector'],
  [(rule, context) => rule.namespaceSelector !== undefined && !context.relatedNamespaced, () => 'namespaceSelector is only allowed for namespaced resources'],
  [(rule, context) => v1Namespaced(context) && rule.namespaceSelector !== undefined, () => 'namespaceSelector is not allowed for a namespaced parent with hook version v1'],
  [
    (rule, context) => v1Namespaced(context) && rule.namespace !== undefined && rule.namespace !== context.parentNamespace,
    (rule, context) => `requested namespace "${rule.namespace ?? ''}" differs from the parent's namespace "${context.parentNamespace}"`,
  ],
];

/** Throws for rule combinations Metacontroller refuses. */
export function validateRule(rule: RelatedRule, context: Omit<RuleContext, 'namespaceLabels'>): void {
  const failed = RULE_CHECKS.find(([broken]) => broken(rule, context));
  if (failed !== undefined) throw new Error(`related rule ${rule.resource}.${rule.apiVersion}: ${failed[1](rule, context)}`);
}

/** The namespace the rule is confined to, if any. */
function ruleNamespace(rule: RelatedRule, context: RuleContext): string | undefined {
  if (!context.relatedNamespaced) return undefined;
  if (context.version === 'v1' && context.parentNamespaced) return context.parentNamespace;
  return rule.namespace;
}

function namespaceSelected(rule: RelatedRule, obj: KObject, context: RuleContext): boolean {
  if (rule.namespaceSelector === undefined) return true;
  const labels = context.namespaceLabels(namespaceOf(obj));
  return labels !== undefined && labelMatcher(rule.namespaceSelector)(labels);
}

/** Whether `obj` (of the rule's resource) is selected by `rule`. */
export function ruleSelects(rule: RelatedRule, obj: KObject, context: RuleContext): boolean {
  // v1 with a namespaced parent never sees cluster-scoped related objects.
  if (context.version === 'v1' && context.parentNamespaced && !context.relatedNamespaced) return false;
  const namespace = ruleNamespace(rule, context);
  if (namespace !== undefined && namespaceOf(obj) !== namespace) return false;
  if (hasNames(rule)) return (rule.names ?? []).includes(nameOf(obj));
  return namespaceSelected(rule, obj, context) && labelMatcher(rule.labelSelector)(labelsOf(obj));
}

export function selectRelated(rule: RelatedRule, candidates: KObject[], context: RuleContext): KObject[] {
  return candidates.filter((obj) => ruleSelects(rule, obj, context));
}
