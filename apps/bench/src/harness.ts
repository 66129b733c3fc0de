// Timing and reporting: fixed-duration samples, interleaved rounds, medians, plain tables.
import { performance } from 'node:perf_hooks';

export type Call = () => Promise<unknown>;

export interface Timing {
  /** Length of one sample. */
  sampleMs: number;
  /** Untimed calls before the first sample of each side (JIT, connection pools). */
  warmupMs: number;
  /** Samples per side; the reported figure is the median. */
  rounds: number;
  /** A full GC before every sample (needs --expose-gc), so one side's garbage is not collected in the other's time. */
  gcBeforeSample: boolean;
}

export interface Side {
  readonly name: 'armature' | 'bare';
  readonly call: Call;
}

export interface PairResult {
  title: string;
  label: string;
  concurrency: number;
  armature: number[];
  bare: number[];
}

export function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect) {
    collect();
    collect();
  }
}

/**
 * Calls `call` for `ms` with `concurrency` calls in flight (1 = strictly sequential) and returns
 * completed calls per second. A failed call aborts the sample: a benchmark of errors is no benchmark.
 */
export async function throughput(call: Call, ms: number, concurrency: number): Promise<number> {
  let done = 0;
  const start = performance.now();
  const deadline = start + ms;
  const worker = async () => {
    while (performance.now() < deadline) {
      await call();
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return (done * 1000) / (performance.now() - start);
}

/**
 * Runs both sides in rounds, interleaved so that machine noise and drift hit both equally. The
 * order alternates per round (A B, B A, A B …) so neither side always runs right after the other;
 * with `gcBeforeSample` a full GC runs before every sample.
 */
export async function comparePair(
  title: string,
  label: string,
  armature: Call,
  bare: Call,
  concurrency: number,
  timing: Timing,
): Promise<PairResult> {
  const sides: Side[] = [
    { name: 'armature', call: armature },
    { name: 'bare', call: bare },
  ];
  for (const side of sides) await throughput(side.call, timing.warmupMs, concurrency);
  const result: PairResult = { title, label, concurrency, armature: [], bare: [] };
  for (let round = 0; round < timing.rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      if (timing.gcBeforeSample) gc();
      result[side.name].push(await throughput(side.call, timing.sampleMs, concurrency));
    }
  }
  return result;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function ratioOf(result: PairResult): number {
  return median(result.armature) / median(result.bare);
}

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export const fmtInt = (value: number): string => int.format(Math.round(value));
export const fmtRatio = (value: number): string => `${value.toFixed(2)}x`;
export const fmtMs = (value: number): string => (value >= 10 ? value.toFixed(1) : value.toFixed(3));

/** A plain, aligned text table (first column left-aligned, the rest right-aligned). */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function pairTable(result: PairResult): string {
  const row = (name: string, values: number[]) => [
    name,
    fmtInt(median(values)),
    fmtInt(Math.min(...values)),
    fmtInt(Math.max(...values)),
    (1e6 / median(values)).toFixed(1),
  ];
  const paired = result.armature.map((value, i) => value / (result.bare[i] as number));
  return [
    table(['side', 'calls/s (median)', 'min', 'max', 'us/call'], [row('armature', result.armature), row('bare SDK', result.bare)]),
    `ratio armature/bare: ${fmtRatio(ratioOf(result))}  (per-round ratios: min ${fmtRatio(Math.min(...paired))}, ` +
      `median ${fmtRatio(median(paired))}, max ${fmtRatio(Math.max(...paired))}; ${result.armature.length} rounds)`,
  ].join('\n');
}

/** Median latency in ms of `count` sequential calls, after `warmup` untimed ones. */
export async function latency(call: Call, count: number, warmup: number): Promise<number> {
  for (let i = 0; i < warmup; i++) await call();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await call();
    samples.push(performance.now() - start);
  }
  return median(samples);
}
