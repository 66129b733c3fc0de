// The shape of a scenario and how one is run: every side sampled once per pass, the order rotated
// per pass so that machine drift and the previous side's garbage hit every side alike; the figure
// of a side is its median; each target's verdict compares its subject's median with its anchor's,
// all from the same samples.
import { performance } from 'node:perf_hooks';

export const SIDES = ['armature', 'bundled', 'sdk', 'sdkBundled', 'sdkV1', 'raw', 'memory', 'bun', 'deno', 'untraced', 'direct'] as const;
export type SideName = (typeof SIDES)[number];
export const SIDE_TITLES: Record<SideName, string> = {
  armature: 'Armature',
  // The same Armature server after `armature build` (one bundled file), for the start-up scenarios.
  bundled: 'Armature bundled',
  sdk: 'SDK v2',
  // The SDK v2 server after the same `armature build`, for the start-up scenarios: what a bundle
  // that carries the SDK starts in at best, the floor of the bundled Armature side's goal.
  sdkBundled: 'SDK v2 bundled',
  sdkV1: 'SDK v1',
  raw: 'raw loop',
  // The same Armature app with the in-memory state, the anchor of the Redis state lines.
  memory: 'Armature in memory',
  // The same Armature server (tsc's output) run by Bun and by Deno instead of Node, for the runtime lines.
  bun: 'Armature on Bun',
  deno: 'Armature on Deno',
  // The same Armature app built with `telemetry: false`, the anchor of the instrumentation's cost.
  untraced: 'Armature telemetry off',
  // The Armature server a gateway proxies, called without the gateway: the anchor of the proxy line.
  direct: 'Armature direct',
};

/** How the subject's median must compare with the anchor's. */
export type Goal =
  | { kind: 'ratio-at-least'; value: number } // subject / anchor >= value (throughput)
  | { kind: 'ratio-at-most'; value: number } // subject / anchor <= value (time)
  | { kind: 'plus-at-most'; value: number } // subject - anchor <= value (memory, MB)
  | { kind: 'report' }; // no goal: the ratio is reported, not judged

/** One sample of one side: the figure (calls/s, ms or MB). */
export type Sample = () => Promise<number>;

export interface Opened {
  sides: Partial<Record<SideName, Sample>>;
  /** Checks after the passes (e.g. "flat", no scope left open): each adds to the verdict. */
  after?(): Promise<Check[]>;
  close(): Promise<void>;
}

export interface Check {
  text: string;
  pass: boolean;
  /** A failure that is a bug, not a slow figure: the run exits non-zero. */
  fatal?: boolean;
}

/** One goal of a scenario: how its subject's median must compare with its anchor's. */
export interface Target {
  anchor: SideName;
  /** The side the goal judges (default `armature`): `bundled` where the goal is about how a deployed server starts. */
  subject?: SideName;
  goal: Goal;
}

export interface Scenario {
  /** Short name, printed first on its summary line. */
  id: string;
  /** One sentence: what is measured, how. */
  title: string;
  unit: 'calls/s' | 'ms' | 'MB';
  /** Its goals, judged on the same samples; the first one's anchor is the chart's 1x. */
  targets: readonly [Target, ...Target[]];
  /** Passes for this scenario when it cannot afford the run's (e.g. 100k calls each). */
  passes?: number;
  /**
   * Judge by the median of the per-pass ratios (subject and anchor sampled back to back in each
   * pass) rather than the ratio of the medians: load that drifts between passes on a shared
   * machine then cancels out, which a goal of a few percent needs.
   */
  paired?: boolean;
  /** Starts what the scenario needs, checks that every side answers the same, warms up. */
  open(): Promise<Opened>;
}

/** A target judged: its subject against its anchor, as the goal reads it (a ratio or MB more). */
export interface Verdict {
  target: Target;
  relative: number;
  pass: boolean;
}

export interface Row {
  scenario: Scenario;
  samples: Partial<Record<SideName, number[]>>;
  medians: Partial<Record<SideName, number>>;
  /** One per target, in the scenario's order. */
  verdicts: Verdict[];
  checks: Check[];
  pass: boolean;
  seconds: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function relativeOf(goal: Goal, subject: number, anchor: number): number {
  return goal.kind === 'plus-at-most' ? subject - anchor : subject / anchor;
}

export function meets(goal: Goal, relative: number): boolean {
  if (goal.kind === 'report') return true;
  return goal.kind === 'ratio-at-least' ? relative >= goal.value : relative <= goal.value;
}

/** Every target of `scenario` judged on `medians` (on the per-pass ratios of `samples` when it is `paired`). */
export function judge(
  scenario: Scenario,
  medians: Partial<Record<SideName, number>>,
  samples?: Partial<Record<SideName, number[]>>,
): Verdict[] {
  return scenario.targets.map((target) => {
    const subject = medians[target.subject ?? 'armature'];
    const anchor = medians[target.anchor];
    if (subject === undefined || anchor === undefined) {
      throw new Error(
        `${scenario.id}: a target compares ${target.subject ?? 'armature'} with ${target.anchor}, which were not both measured`,
      );
    }
    const bySubject = samples?.[target.subject ?? 'armature'];
    const byAnchor = samples?.[target.anchor];
    const relative =
      scenario.paired && bySubject && byAnchor
        ? median(bySubject.map((value, pass) => relativeOf(target.goal, value, byAnchor[pass] as number)))
        : relativeOf(target.goal, subject, anchor);
    return { target, relative, pass: meets(target.goal, relative) };
  });
}

export async function runScenario(scenario: Scenario, passes: number): Promise<Row> {
  const started = performance.now();
  const opened = await scenario.open();
  const names = SIDES.filter((name) => opened.sides[name]);
  const samples: Partial<Record<SideName, number[]>> = Object.fromEntries(names.map((name) => [name, []]));
  let checks: Check[] = [];
  try {
    for (let pass = 0; pass < (scenario.passes ?? passes); pass++) {
      const order = [...names.slice(pass % names.length), ...names.slice(0, pass % names.length)];
      for (const name of order) {
        const sample = opened.sides[name] as Sample;
        samples[name]?.push(await sample());
      }
    }
    checks = (await opened.after?.()) ?? [];
  } finally {
    await opened.close();
  }
  const medians: Partial<Record<SideName, number>> = {};
  for (const name of names) medians[name] = median(samples[name] as number[]);
  const verdicts = judge(scenario, medians, samples);
  return {
    scenario,
    samples,
    medians,
    verdicts,
    checks,
    pass: verdicts.every((v) => v.pass) && checks.every((c) => c.pass),
    seconds: (performance.now() - started) / 1000,
  };
}
