// The benchmark is a script, not a test: this only keeps it runnable. `--quick` must finish, print
// every summary line, and leave no DI scope open. Ratios are not asserted (too noisy for CI).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../dist/bench.js', import.meta.url));

describe('bench --quick', () => {
  it('runs every scenario and prints the summary', () => {
    expect(existsSync(script), `${script} is missing: build first (pnpm build)`).toBe(true);
    const run = spawnSync(process.execPath, ['--expose-gc', script, '--quick'], { encoding: 'utf8', timeout: 110_000 });
    expect(run.status, run.stderr).toBe(0);
    const summary = run.stdout.slice(run.stdout.indexOf('== summary =='));
    for (const label of [
      'in-memory sequential',
      'in-memory 32 concurrent',
      'in-memory server-only sequential',
      'http 2025-11-25 sequential',
      'http 2025-11-25 32 concurrent',
      'http 2026-07-28 sequential',
      'http 2026-07-28 32 concurrent',
    ]) {
      expect(summary).toMatch(new RegExp(`^ratio armature/bare \\(${label}\\): \\d+\\.\\d\\dx \\(goal >= 0\\.90x\\)$`, 'm'));
    }
    expect(summary).toMatch(/^tools\/list server-only latency, 500 vs 1 tools: armature \d+\.\d\dx, bare SDK \d+\.\d\dx$/m);
    expect(summary).toMatch(/^armature liveScopes after 5,000 calls: 0 \(must be 0\)$/m);
    expect(summary).toMatch(/^armature heap after GC, 1,000 -> 5,000 calls: .* \([+-]\d+\.\d%\)$/m);
  });
});
