// CI runs the short form of the reliability script (built dist) and requires every figure to
// pass. The script kills its own server processes; the spawn itself is bounded by a timeout.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('reliability --quick', () => {
  it('measures all eight figures and every one passes', () => {
    expect(existsSync(script), `${script} is missing: build first (pnpm build)`).toBe(true);
    const run = spawnSync(process.execPath, [script, '--quick'], { encoding: 'utf8', timeout: 110_000, killSignal: 'SIGKILL' });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.signal, `the quick run was killed (over 110 s?):\n${output}`).toBeNull();
    const verdicts = [...run.stdout.matchAll(/^\[(\d)\] .*$[\s\S]*?^ {4}verdict: {2}(\w+)/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(verdicts.map(([figure]) => figure)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const failed = verdicts.filter(([, verdict]) => verdict !== 'PASS');
    expect(failed, `figures not passing:\n${output}`).toEqual([]);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('reliability: 8 passed, 0 failed');
    expect(run.status, output).toBe(0);
  });
});
