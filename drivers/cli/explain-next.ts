// `ironhook explain`: the next command to run, from the facts. Data: one rule per situation, in
// order of precedence; every rule that applies contributes one line, and a host with nothing
// wrong says so. The advisory conditions carry their own fix in their message.
import { Annotation } from '../../domain/baremetalhost.js';
import type { ExplainFacts } from './explain-facts.js';

type Rule = (facts: ExplainFacts) => string | undefined;

const CREDENTIAL_REASONS = new Set(['CredentialsNotFound', 'CredentialsInvalid', 'AuthenticationFailed', 'SecretNotFound', 'InvalidSecret']);
const BMC_REASONS = new Set(['BMCUnreachable', 'PowerStateTimeout', 'Unsupported', 'InvalidBMCAddress', 'AddressNotAllowed']);
const AGENT_PREFIX = 'Agent';
const STEADY = new Set(['available', 'provisioned', 'externally provisioned', 'ready']);

function bmh(facts: ExplainFacts): string {
  return `bmh ${facts.name} -n ${facts.namespace}`;
}

function bmcCheck(facts: ExplainFacts): string {
  return `ironhook bmc check '${facts.bmcAddress}' --credentials-secret ${facts.namespace}/${facts.credentialsName}`;
}

function requestError(facts: ExplainFacts): string | undefined {
  return facts.request?.phase === 'Failed' ? facts.request.error?.reason : undefined;
}

const paused: Rule = (facts) =>
  facts.paused ? `The host is paused: nothing happens until the annotation goes: kubectl annotate ${bmh(facts)} ${Annotation.Paused}-` : undefined;

const deletionBlocked: Rule = (facts) =>
  facts.conditions.some((item) => item.type === 'DeletionBlocked' && item.status === 'True')
    ? `Deletion is blocked by a failing step; to delete without it: kubectl annotate ${bmh(facts)} ${Annotation.Detached}=`
    : undefined;

const credentials: Rule = (facts) => {
  const reason = requestError(facts);
  if (reason === undefined || !CREDENTIAL_REASONS.has(reason)) {
    return undefined;
  }
  return `Check the BMC Secret (keys username and password, in namespace ${facts.namespace}): kubectl get secret ${facts.credentialsName} -n ${facts.namespace} -o jsonpath='{.data}'; then ${bmcCheck(facts)}. Editing the Secret retries at once`;
};

const bmcProblem: Rule = (facts) => {
  const reason = requestError(facts);
  const unreachable = facts.bmc !== undefined && !facts.bmc.reachable;
  if (!(reason !== undefined && BMC_REASONS.has(reason)) && !unreachable) {
    return undefined;
  }
  return `Check the BMC from where you are (it says which step fails: DNS, connection, TLS, credentials, capability): ${bmcCheck(facts)}`;
};

const agentProblem: Rule = (facts) =>
  requestError(facts)?.startsWith(AGENT_PREFIX)
    ? `The agent on the host failed (${requestError(facts) ?? ''}): read the request's steps and the driver pool's log: kubectl describe hop ${facts.request?.name ?? ''} -n ${facts.namespace}`
    : undefined;

const backoff: Rule = (facts) => {
  const request = facts.request;
  if (request?.phase !== 'Pending' || request.notBefore === undefined) {
    return undefined;
  }
  return `${request.name} waits for back-off until ${request.notBefore}; fixing the cause (the spec, the Secret) and editing the host retries sooner`;
};

const pending: Rule = (facts) => {
  const request = facts.request;
  if (request?.phase !== 'Pending' || request.notBefore !== undefined) {
    return undefined;
  }
  return `${request.name} has not been picked up by the driver pool: is it running? kubectl get pods -A -l app.kubernetes.io/component=drivers`;
};

const delayed: Rule = (facts) =>
  facts.request?.phase === 'Delayed'
    ? `${facts.request.name} waits for a provisioning slot (${facts.request.delayReason ?? 'PROVISIONING_LIMIT'}): it starts when another host finishes; raise PROVISIONING_LIMIT to allow more at once`
    : undefined;

const running: Rule = (facts) =>
  facts.request?.phase === 'Running'
    ? `Nothing to do yet: ${facts.request.action} is running${facts.request.message ? ` (${facts.request.message})` : ''}; follow it: ironhook explain ${facts.name} -n ${facts.namespace} --watch`
    : undefined;

const permanent: Rule = (facts) =>
  facts.request?.error?.kind === 'Permanent' && facts.request.phase === 'Failed'
    ? `The failure is permanent: it is not retried until the host's spec (or its Secret) changes; fix what the error says, then edit the host`
    : undefined;

const advisories: Rule = (facts) => {
  const warnings = facts.conditions.filter((item) => item.status === 'True' && item.type !== 'DeletionBlocked' && !isUpstream(item.type));
  return warnings.length > 0 ? `Read the warning conditions above (${warnings.map((item) => item.type).join(', ')}): each one ends with its fix` : undefined;
};

function isUpstream(type: string): boolean {
  return ['Manageable', 'AvailableForProvisioning', 'Provisioned', 'Ready', 'Progressing', 'Healthy'].includes(type);
}

const RULES: readonly Rule[] = [paused, deletionBlocked, credentials, bmcProblem, agentProblem, permanent, backoff, pending, delayed, running, advisories];

export function nextSteps(facts: ExplainFacts): string[] {
  const steps = RULES.map((rule) => rule(facts)).filter((step): step is string => step !== undefined);
  const onlyWarnings = steps.length === 1 && advisories(facts) !== undefined;
  if (STEADY.has(facts.state) && facts.error === undefined && (steps.length === 0 || onlyWarnings)) {
    return [`Nothing is wrong: the host is ${facts.state}${facts.online ? ', online' : ', offline'}`, ...steps];
  }
  if (steps.length > 0) {
    return steps;
  }
  return [`Wait: ${facts.waitingFor || `the host is ${facts.state}`}; follow it: ironhook explain ${facts.name} -n ${facts.namespace} --watch`];
}
