/** The runner's expected-failures rule, on made-up runs: a new failure and a stale entry both fail. */
import { describe, expect, it } from 'vitest';
import { baselineVerdict, type Check, type SuiteRun, summarize } from './support/conformance.js';

const check = (id: string, status: Check['status']): Check => ({ id, status });

function runOf(scenarios: Record<string, Check[]>, missing: string[] = []): SuiteRun {
  return {
    planned: [...Object.keys(scenarios), ...missing],
    results: Object.entries(scenarios).map(([scenario, checks]) => ({
      scenario,
      checks,
      passed: checks.filter((c) => c.status === 'SUCCESS').length,
      failures: checks.filter((c) => c.status === 'FAILURE'),
      warnings: checks.filter((c) => c.status === 'WARNING'),
      skipped: checks.filter((c) => c.status === 'SKIPPED'),
    })),
    missing,
    exitCode: 0,
    log: '',
    durationMs: 1,
  };
}

const BASELINE = new Map([
  ['tasks-a', 'no fixture'],
  ['tasks-b', 'no fixture'],
]);

describe('baselineVerdict', () => {
  it('is clean when exactly the listed scenarios fail', () => {
    const run = runOf({ ping: [check('p', 'SUCCESS')], 'tasks-a': [check('x', 'FAILURE')], 'tasks-b': [check('y', 'FAILURE')] });
    expect(baselineVerdict(run, BASELINE)).toEqual({ unexpected: [], stale: [] });
  });

  it('reports a failure of a scenario not listed, and a missing result', () => {
    const run = runOf({ ping: [check('p', 'FAILURE')], 'tasks-a': [check('x', 'FAILURE')], 'tasks-b': [check('y', 'FAILURE')] }, [
      'tools-list',
    ]);
    expect(baselineVerdict(run, BASELINE).unexpected).toEqual(['ping / p: undefined', 'tools-list: no checks.json (see the suite log)']);
  });

  it('reports a listed scenario that passes now as stale, but not one the run did not plan', () => {
    const run = runOf({ 'tasks-a': [check('x', 'SUCCESS')] });
    expect(baselineVerdict(run, BASELINE)).toEqual({ unexpected: [], stale: ['tasks-a'] });
  });

  it('closes the summary with the required, unscored and expected totals apart', () => {
    const run = runOf({
      ping: [check('p', 'SUCCESS')],
      'tasks-a': [check('x', 'FAILURE'), check('w', 'SUCCESS')],
      pending: [check('s', 'SKIPPED')],
    });
    const notScored = new Map([
      ['tasks-a', 'extension'],
      ['pending', 'pending'],
    ]);
    expect(summarize('t', run, { notScored, baseline: BASELINE }).split('\n').at(-1)).toBe(
      '= required: 1 passed, 0 failed; not scored: 0 passed, 0 failed; expected failures (1 scenarios): 1 passed, 1 failed; 0 warnings, 1 skipped',
    );
  });
});
