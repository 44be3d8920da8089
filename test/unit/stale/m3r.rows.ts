// Metal3Remediation with a parent one status write behind: the give-up patches and a retry.
import { at } from '../m3r/builders.js';
import { fenced, nodeOp, remediationRequest } from '../m3r/remediation-rows.js';
import { fixture, num, text, type Route, type Scenario } from './harness.js';

const PHASES: readonly string[] = ['', 'Running', 'Waiting', 'Deleting machine'];

export const m3rRoute: Route = {
  route: 'metal3remediation',
  progress: (status) => {
    const phase = text(status.phase);
    const final = phase === 'Deleting machine' || phase === 'Failed' ? 1 : 0;
    return [final, num(status.retryCount), Date.parse(text(status.lastRemediated)) || 0, PHASES.indexOf(phase)];
  },
};

const BACK = { annotated: false, poweredOn: true };
const restoring = (attempt: number) => nodeOp('Restore', attempt, { phase: 'Running', observedTime: at(200) });

export const m3rScenarios: Scenario[] = [
  { name: 'new: Running', request: fixture('metal3remediation', 'new-starts-running') },
  { name: 'Running, host off: Fence', request: fixture('metal3remediation', 'running-off-fences-node') },
  { name: 'Waiting, host on: Restore', request: fixture('metal3remediation', 'waiting-on-restores-node') },
  { name: 'Waiting, timed out: retry', request: fixture('metal3remediation', 'waiting-timed-out-retries') },
  { name: 'host online: false: Failed', request: fixture('metal3remediation', 'host-online-false-fails') },
  { name: 'last retry timed out: give-up patches', request: fixture('metal3remediation', 'last-retry-timed-out-gives-up') },
  { name: 'deleted with a fenced Node: Restore first', request: fixture('metal3remediation', 'deleted-restores-first-finalize') },
  {
    name: 'Waiting, timed out with a Restore pending: retry',
    request: () =>
      remediationRequest({ phase: 'Waiting', retryCount: 0, lastRemediated: at(0), ...BACK, monitorTime: at(300), children: [fenced(1), restoring(1)] }),
  },
  {
    name: 'last retry timed out with a Restore pending: give-up patches',
    request: () =>
      remediationRequest({ phase: 'Waiting', retryCount: 1, lastRemediated: at(0), ...BACK, monitorTime: at(300), children: [fenced(2), restoring(2)] }),
  },
];
