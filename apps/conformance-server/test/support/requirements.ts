/**
 * What a requirements run of the conformance suite must show, shared by every run of it (the
 * plain, composed, proxied and scaled-out server): each scenario of the set ran once, nothing failed
 * but the tasks extension scenarios its baseline expects, and no warning but the known ones.
 */
import { expect } from 'vitest';
import { TASKS_EXPECTED_FAILURES } from '../tasks-expected-failures.js';
import { baselineVerdict, failures, type KnownIssue, requirementSet, type SuiteRun, unexpectedWarnings } from './conformance.js';

/**
 * Warnings the suite gives for a deliberate choice of Armature, each still asserted to occur (a
 * stale entry fails the test, so this list cannot hide a new problem or outlive the old one). Both
 * are SHOULDs of SEP-2322 that the scenario tests by sending `inputResponses` WITHOUT the
 * `requestState` of the round that asked: Armature takes answers only under the signed state of
 * that round (docs/elicitation.md), so it refuses them (-32602) instead of re-asking or using them.
 */
export const KNOWN_HTTP_WARNINGS: readonly KnownIssue[] = [
  {
    scenario: 'input-required-result-missing-input-response',
    check: 'sep-2322-missing-response-rerequests',
    reason: 'inputResponses without the requestState of the round that asked are refused (-32602), not re-asked',
  },
  {
    scenario: 'input-required-result-ignore-extra-params',
    check: 'sep-2322-ignore-unexpected-params',
    reason: 'inputResponses without the requestState of the round that asked are refused (-32602), not used',
  },
];

export const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
export const SETS = new Map(REVISIONS.map((revision) => [revision, requirementSet(revision)]));
export const setOf = (revision: string) => SETS.get(revision as (typeof REVISIONS)[number]) ?? requirementSet(revision);
/** The tasks extension scenarios (SEP-2663): run with 2026-07-28, not scored there. */
export const TASKS_SCENARIOS = [...setOf('2026-07-28').notScored]
  .filter(([name, why]) => why === 'extension' && name.startsWith('tasks-'))
  .map(([name]) => name);

/** Checks a requirements run: every scenario ran once; failures only where the baseline expects them; known warnings only. */
export function expectClean(
  run: SuiteRun,
  revision: string,
  options: {
    excluded?: ReadonlyMap<string, string>;
    log?: string;
    knownWarnings?: readonly KnownIssue[];
    /** The scenarios expected to fail, with why (default: tasks-expected-failures.ts). */
    baseline?: ReadonlyMap<string, string>;
  } = {},
) {
  const set = setOf(revision);
  expect(run.exitCode === 0 || failures(run).length > 0, `the suite exited with ${run.exitCode}:\n${run.log.slice(-2000)}`).toBe(true);
  expect([...run.planned].sort(), 'every scenario of the set, each exactly once').toEqual(
    [...set.required, ...set.notScored.keys()].sort(),
  );
  const { unexpected, stale } = baselineVerdict(run, options.baseline ?? TASKS_EXPECTED_FAILURES, options.excluded);
  expect(unexpected, options.log).toEqual([]);
  expect(stale, 'listed as expected to fail but passing now: delete these lines').toEqual([]);
  const excluded = options.excluded ?? new Map();
  const warnings = unexpectedWarnings(run, options.knownWarnings ?? KNOWN_HTTP_WARNINGS).filter(
    (w) => !excluded.has(w.slice(0, w.indexOf(' / '))),
  );
  expect(warnings).toEqual([]);
}
