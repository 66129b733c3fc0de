// What a figure returns, how its checks are collected, and how the results are printed.

export interface Mode {
  /** The short form run in CI. */
  quick: boolean;
}

/**
 * PASS: every check held. FAIL: a correctness check failed (an answer lost, a wrong status, a scope
 * left open...). MISSED: every correctness check held, but a timing or memory figure is over its
 * target: on a shared machine that is a figure to read, not a broken server (CI does not fail on it).
 */
export type Verdict = 'PASS' | 'FAIL' | 'MISSED' | 'PENDING';

export interface FigureResult {
  n: number;
  title: string;
  /** The target, as the issue states it (with the sizes of this run). */
  target: string;
  /** One line per measurement, printed under the figure. */
  lines: string[];
  /** The short measured value for the summary table. */
  measured: string;
  verdict: Verdict;
  /** Checks that failed, each with what was expected and what was got. */
  failures: string[];
  /** Timing and memory figures over their targets, each with the figure and the target. */
  missed: string[];
  /** Extra context: why a figure is pending, caveats of the method. */
  notes: string[];
  seconds: number;
}

/** Collects the checks of one figure; the figure passes when every check holds. */
export class Checks {
  readonly failures: string[] = [];
  readonly missed: string[] = [];
  readonly lines: string[] = [];
  readonly notes: string[] = [];

  /** A correctness check: records `ok`; when false, `what` is listed as a failure. Returns ok. */
  expect(ok: boolean, what: string): boolean {
    if (!ok) this.failures.push(what);
    return ok;
  }

  /**
   * A timing or memory target (ms, MB, heap growth): what a busy machine can move. When missed,
   * `what` (the figure and its target) is listed and the figure's verdict is MISSED, not FAIL.
   */
  target(ok: boolean, what: string): boolean {
    if (!ok) this.missed.push(what);
    return ok;
  }

  line(text: string): void {
    this.lines.push(text);
  }

  note(text: string): void {
    this.notes.push(text);
  }
}

export function n(value: number): string {
  return value.toLocaleString('en-US');
}

export function ms(value: number, digits = 1): string {
  return `${value.toFixed(digits)} ms`;
}

export function mb(bytes: number, digits = 2): string {
  const sign = bytes < 0 ? '-' : '+';
  return `${sign}${(Math.abs(bytes) / 1024 / 1024).toFixed(digits)} MB`;
}

export function mib(bytes: number, digits = 1): string {
  return `${(bytes / 1024 / 1024).toFixed(digits)} MiB`;
}

export function pct(ratio: number, digits = 1): string {
  return `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(digits)}%`;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const sleep = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

/** Polls `condition` every `everyMs` until it holds or `timeoutMs` passes; returns whether it held. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
}

/** A deterministic PRNG (mulberry32), so a run can be repeated with `--seed`. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function printFigure(result: FigureResult): void {
  const out: string[] = [];
  out.push(`[${result.n}] ${result.title}`);
  out.push(`    target:   ${result.target}`);
  for (const line of result.lines) out.push(`    ${line}`);
  for (const failure of result.failures) out.push(`    FAILED:   ${failure}`);
  for (const missed of result.missed) out.push(`    MISSED:   ${missed}`);
  for (const note of result.notes) out.push(`    note:     ${note}`);
  out.push(`    verdict:  ${result.verdict} (${result.seconds.toFixed(1)} s)`);
  out.push('');
  process.stdout.write(`${out.join('\n')}\n`);
}

export function printSummary(results: readonly FigureResult[]): void {
  const rows = results.map((r) => [String(r.n), r.verdict, r.measured]);
  const width = Math.max(...rows.map((r) => r[1].length), 7);
  process.stdout.write('summary\n');
  for (const [figure, verdict, measured] of rows) process.stdout.write(`  ${figure}  ${verdict.padEnd(width)}  ${measured}\n`);
}

/** The docs table: figure, target, measured, verdict, command. */
export function markdownTable(results: readonly FigureResult[], command: string): string {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const lines = ['| # | figure | target | measured | verdict | reproduce |', '| --- | --- | --- | --- | --- | --- |'];
  for (const r of results) {
    lines.push(`| ${r.n} | ${cell(r.title)} | ${cell(r.target)} | ${cell(r.measured)} | ${r.verdict} | \`${command} --only ${r.n}\` |`);
  }
  return `${lines.join('\n')}\n`;
}
