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
  /**
   * Once, before the first scenario, per side: the in-memory path, JIT-compiled to steady state.
   * Armature runs far more JavaScript per call than the bare SDK (class-transformer, class-validator,
   * its runtime), which V8 needs seconds to optimise on a busy 2-core machine.
   */
  initialWarmupMs: number;
}

export interface Side {
  readonly name: 'armature' | 'bare';
  readonly call: Call;
}

export interface PairResult {
  title: string;
  label: string;
  concurrency: number;
  /** calls/s of each sample. */
  armature: number[];
  bare: number[];
  /** Process CPU time (user + system, µs) per call of each sample: client + server + GC, all in this process. */
  armatureCpu: number[];
  bareCpu: number[];
}

export interface Sample {
  /** Completed calls per second of wall time. */
  rate: number;
  /** Process CPU µs per call: less sensitive than `rate` to other processes competing for the cores. */
  cpuPerCall: number;
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
 * completed calls per second and CPU time per call. A failed call aborts the sample: a benchmark of
 * errors is no benchmark.
 */
export async function throughput(call: Call, ms: number, concurrency: number): Promise<Sample> {
  let done = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const deadline = start + ms;
  const worker = async () => {
    while (performance.now() < deadline) {
      await call();
      done++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { rate: (done * 1000) / elapsed, cpuPerCall: (used.user + used.system) / done };
}

/**
 * Runs both sides in rounds, interleaved so that machine noise and drift hit both equally. The
 * order alternates per round (A B, B A, A B …) so neither side always runs right after the other
 * or always pays for the other's garbage.
 *
 * No forced GC between samples: `gc()` makes V8 drop optimised code, and re-optimising Armature's
 * longer call path cost it hundreds of ms after every forced GC (0.38x vs 0.64x server-only, CPU
 * time), an artifact a running server never sees at that rate.
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
  const result: PairResult = { title, label, concurrency, armature: [], bare: [], armatureCpu: [], bareCpu: [] };
  for (let round = 0; round < timing.rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      const sample = await throughput(side.call, timing.sampleMs, concurrency);
      result[side.name].push(sample.rate);
      result[side.name === 'armature' ? 'armatureCpu' : 'bareCpu'].push(sample.cpuPerCall);
    }
  }
  return result;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median calls/s of armature over that of bare: the headline figure. */
export function ratioOf(result: PairResult): number {
  return median(result.armature) / median(result.bare);
}

/** The same ratio from CPU time per call (bare CPU / armature CPU): > 1 means armature is cheaper. */
export function cpuRatioOf(result: PairResult): number {
  return median(result.bareCpu) / median(result.armatureCpu);
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
  const row = (name: string, values: number[], cpu: number[]) => [
    name,
    fmtInt(median(values)),
    fmtInt(Math.min(...values)),
    fmtInt(Math.max(...values)),
    (1e6 / median(values)).toFixed(1),
    median(cpu).toFixed(1),
  ];
  const paired = result.armature.map((value, i) => value / (result.bare[i] as number));
  return [
    table(
      ['side', 'calls/s (median)', 'min', 'max', 'wall us/call', 'CPU us/call'],
      [row('armature', result.armature, result.armatureCpu), row('bare SDK', result.bare, result.bareCpu)],
    ),
    `ratio armature/bare: ${fmtRatio(ratioOf(result))}  (per-round: min ${fmtRatio(Math.min(...paired))}, ` +
      `median ${fmtRatio(median(paired))}, max ${fmtRatio(Math.max(...paired))}; ${result.armature.length} rounds; ` +
      `by CPU time per call: ${fmtRatio(cpuRatioOf(result))})`,
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
