// Every hook with a parent one status write behind its children (issue 10, test/unit/stale/
// harness.ts): sync N answers S_N and C_N, Metacontroller stores C_N, and the next sync still
// reads S_{N-1}. No child of C_N may be dropped or rewritten, nothing new asked for, and the
// status may not go back behind S_N.
import { describe, it } from 'vitest';
import { bmhRoute, bmhScenarios } from './stale/bmh.rows.js';
import { checkStale, type Route, type Scenario } from './stale/harness.js';
import { m3rRoute, m3rScenarios } from './stale/m3r.rows.js';

const tables: [Route, Scenario[]][] = [
  [bmhRoute, bmhScenarios],
  [m3rRoute, m3rScenarios],
];

describe.each(tables)('a parent one status write behind: $route', (route, scenarios) => {
  it.each(scenarios)('$name', (scenario) => {
    checkStale(route, scenario);
  });
});
