// CI runs the short form of the reliability script (built dist). Figures about correctness (no
// answer lost or duplicated, every failure answered, timeouts and cancellations honoured, the heap
// flat, every malformed input answered by the spec) must pass. Figures 3, 7 and 10 are timing and
// memory targets (ms to a 413, ms of event-loop delay, /health during a notification flood; the
// flood's memory and waiting are also asserted by packages/core/test/backpressure.test.ts): on a shared 2-core machine they are
// figures to read, not assertions (the brief keeps speed targets out of tests), so the test
// requires them to be measured and printed with their target; docs/reliability.md holds the full
// run. The script kills its own server processes; the spawn itself is bounded by a timeout (the
// quick form takes about a minute alone, and over two and a half on a shared, loaded 2-core machine).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('reliability --quick', () => {
  it('measures all ten figures; every correctness figure passes', () => {
    expect(existsSync(script), `${script} is missing: build first (pnpm build)`).toBe(true);
    const run = spawnSync(process.execPath, [script, '--quick'], { encoding: 'utf8', timeout: 240_000, killSignal: 'SIGKILL' });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.signal, `the quick run was killed (over 240 s?):\n${output}`).toBeNull();
    const verdicts = [...run.stdout.matchAll(/^\[(\d+)\] .*$[\s\S]*?^ {4}verdict: {2}(\w+)/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(verdicts.map(([figure]) => figure)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const TIMING_FIGURES = new Set([3, 7, 10]);
    const failed = verdicts.filter(([figure, verdict]) => verdict !== 'PASS' && !TIMING_FIGURES.has(figure as number));
    expect(failed, `correctness figures not passing:\n${output}`).toEqual([]);
    for (const figure of TIMING_FIGURES) {
      expect(run.stdout, `figure ${figure} printed with its target`).toMatch(
        new RegExp(`^\\[${figure}\\] [\\s\\S]*?^ {4}target: {3}\\S`, 'm'),
      );
    }
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^reliability: \d+ passed, \d+ failed$/);
  });
});
