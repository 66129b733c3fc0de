// CI runs the short form of the reliability script (built dist). Every figure must be measured
// and printed with its target, and every correctness check must hold (no answer lost or
// duplicated, every failure answered, timeouts and cancellations honoured, scopes disposed, every
// malformed input answered by the spec, the 413 and the notification valve doing their job): no
// figure may be FAIL. Timing and memory targets (ms to a 413, event-loop delay, /health during a
// flood, heap and memory growth: reliability's `checks.target`) are figures to read on a shared
// 2-core machine, not assertions (the brief keeps them out of the default suite): a figure that
// only missed one of them is MISSED and printed with the value and the target. docs/reliability.md
// holds the full run. The script kills its own server processes; the spawn itself is bounded by a
// timeout (the quick form takes about a minute alone, over two and a half on a loaded machine).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('reliability --quick', () => {
  it('measures all ten figures, each printed with its target; no correctness check fails', () => {
    expect(existsSync(script), `${script} is missing: build first (pnpm build)`).toBe(true);
    const run = spawnSync(process.execPath, [script, '--quick'], { encoding: 'utf8', timeout: 240_000, killSignal: 'SIGKILL' });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.signal, `the quick run was killed (over 240 s?):\n${output}`).toBeNull();
    const verdicts = [...run.stdout.matchAll(/^\[(\d+)\] .*$[\s\S]*?^ {4}verdict: {2}(\w+)/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(verdicts.map(([figure]) => figure)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const failed = verdicts.filter(([, verdict]) => verdict !== 'PASS' && verdict !== 'MISSED');
    expect(failed, `figures with a failed correctness check:\n${output}`).toEqual([]);
    for (const [figure] of verdicts) {
      expect(run.stdout, `figure ${figure} printed with its target`).toMatch(
        new RegExp(`^\\[${figure}\\] [\\s\\S]*?^ {4}target: {3}\\S`, 'm'),
      );
    }
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^reliability: \d+ passed, \d+ failed$/);
  });
});
