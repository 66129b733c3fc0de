// The run's sizes: the full run the docs report, and `--quick`, a smoke test CI runs (every line
// prints, nothing timed is asserted).

export interface Settings {
  quick: boolean;
  passes: number;
  /** Passes of the scenarios that start a process per sample (cold start, idle RSS). */
  spawnPasses: number;
  /** tools/call per stdio sample (`add`, `search`), and how many are in flight. */
  stdioCalls: number;
  inFlight: number;
  /** Untimed calls per side before the first sample of a throughput scenario. */
  warmupCalls: number;
  httpCalls: number;
  httpConnections: number;
  /** Sequential calls per in-memory sample. */
  inMemoryCalls: number;
  /**
   * Sequential calls per sample of the instrumentation's cost, and its passes: a 2% goal needs
   * samples long enough for scheduling noise to average out, and more of them.
   */
  telemetryCalls: number;
  telemetryPasses: number;
  /**
   * stdio calls per sample of the `telemetry ...` lines (the SDK registered): long enough that the
   * server's CPU, read from /proc in clock ticks of 10 ms, resolves a 5% goal (20,000 calls of 7 µs
   * are 14 ticks, one tick 7% of the sample; 100,000 are 70).
   */
  telemetryStdioCalls: number;
  /** Full tools/list walks (every page) per sample. */
  listWalks: number;
  /** Untimed walks per side before the first sample, as `warmupCalls` for the throughput scenarios. */
  listWarmupWalks: number;
  /** stdio calls of the memory scenario (issue 35: a million), RSS read after each fortieth. */
  memoryCalls: number;
  /** Calls per sample of the peak-RSS-under-HTTP-load lines (a fresh server per sample), and their passes. */
  httpMemoryCalls: number;
  httpMemoryPasses: number;
}

export const FULL: Settings = {
  quick: false,
  passes: 5,
  spawnPasses: 11,
  stdioCalls: 20_000,
  inFlight: 64,
  warmupCalls: 10_000,
  httpCalls: 10_000,
  httpConnections: 32,
  inMemoryCalls: 5_000,
  telemetryCalls: 20_000,
  telemetryPasses: 41,
  telemetryStdioCalls: 100_000,
  listWalks: 100,
  listWarmupWalks: 200,
  memoryCalls: 1_000_000,
  httpMemoryCalls: 20_000,
  httpMemoryPasses: 3,
};

export const QUICK: Settings = {
  quick: true,
  passes: 2,
  spawnPasses: 1,
  stdioCalls: 1_000,
  inFlight: 64,
  warmupCalls: 200,
  httpCalls: 100,
  httpConnections: 32,
  inMemoryCalls: 200,
  telemetryCalls: 5_000,
  telemetryPasses: 21,
  telemetryStdioCalls: 1_000,
  listWalks: 2,
  listWarmupWalks: 3,
  memoryCalls: 2_000,
  httpMemoryCalls: 200,
  httpMemoryPasses: 1,
};
