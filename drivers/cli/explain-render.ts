// `ironhook explain`: facts and next steps as one screen of text, or as one JSON document.
import { canonicalJSON } from '../../domain/canonical.js';
import type { ExplainFacts, RequestFacts } from './explain-facts.js';

const STEP_MARK: Readonly<Record<string, string>> = { Succeeded: '✓', Failed: '✗', Running: '…', Pending: '·', Delayed: '⏸' };

function headline(facts: ExplainFacts): string {
  const flags = [facts.paused && 'PAUSED', facts.detached && 'DETACHED', facts.deleting && 'DELETING'].filter(Boolean).join(' ');
  return [
    `${facts.name} (${facts.namespace})${flags ? `  ${flags}` : ''}`,
    `  state: ${facts.state}   operationalStatus: ${facts.operationalStatus || '-'}   online: ${facts.online}   powered: ${facts.poweredOn ? 'on' : 'off'}`,
  ].join('\n');
}

function requestLines(request: RequestFacts): string[] {
  const error = request.error ? ` (${request.error.kind} ${request.error.reason})` : '';
  const lines = [`request: ${request.name}  ${request.action}  ${request.phase}${error}`];
  if (request.message !== '') lines.push(`  message: ${request.message}`);
  if (request.notBefore !== undefined) lines.push(`  not before: ${request.notBefore}`);
  if (request.delayReason !== undefined) lines.push(`  delayed: ${request.delayReason}`);
  for (const step of request.steps) {
    lines.push(`  ${STEP_MARK[step.state] ?? '?'} ${step.name}${step.message ? `: ${step.message}` : ''}`);
  }
  return lines;
}

function errorLines(facts: ExplainFacts): string[] {
  const lines = facts.error ? [`error: ${facts.error.type} (count ${facts.error.count}): ${facts.error.message}`] : [];
  if (facts.lastErrors.length > 0) {
    lines.push('last errors:', ...facts.lastErrors.map((item) => `  ${item.request}  ${item.kind} ${item.reason}: ${item.message}`));
  }
  return lines;
}

function bmcLine(facts: ExplainFacts): string[] {
  const bmc = facts.bmc;
  if (bmc === undefined) return [];
  const error = bmc.error === undefined ? '' : `: ${bmc.error}`;
  return [`BMC: ${bmc.reachable ? 'reachable' : 'unreachable'}, power ${bmc.poweredOn ? 'on' : 'off'} (observed ${bmc.observedTime || 'never'})${error}`];
}

function conditionLines(facts: ExplainFacts): string[] {
  if (facts.conditions.length === 0) return [];
  return ['conditions:', ...facts.conditions.map((item) => `  ${item.type}=${item.status} ${item.reason}${item.message ? `: ${item.message}` : ''}`)];
}

function eventLines(facts: ExplainFacts): string[] {
  if (facts.events.length === 0) return ['events: none'];
  return [
    'events (newest first):',
    ...facts.events.map((item) => `  ${item.lastTimestamp} ${item.type} ${item.reason}${item.count > 1 ? ` ×${item.count}` : ''}: ${item.message}`),
  ];
}

export function renderText(facts: ExplainFacts, next: readonly string[]): string {
  return [
    headline(facts),
    `waiting for: ${facts.waitingFor || '-'}`,
    ...errorLines(facts),
    ...(facts.request ? requestLines(facts.request) : ['request: none']),
    ...bmcLine(facts),
    ...conditionLines(facts),
    ...eventLines(facts),
    'next:',
    ...next.map((step) => `  → ${step}`),
  ].join('\n');
}

/** One stable document: keys sorted, so two runs over the same objects print the same bytes. */
export function renderJSON(facts: ExplainFacts, next: readonly string[]): string {
  return JSON.stringify(JSON.parse(canonicalJSON({ ...facts, next })), null, 2);
}
