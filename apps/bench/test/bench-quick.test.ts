// The benchmark is a script, not a test: this only keeps it runnable. `--quick` must run every
// scenario (every server answering the same before timing), print each scenario's line with its
// goal and verdict, leave no DI scope open, and write the table and the chart between the markers
// of a copy of docs/performance.md. Verdicts are not asserted (timing is too noisy for CI).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RedisServer } from '@armature/test-redis';
import { describe, expect, it } from 'vitest';
import { REDIS_SKIPPED } from '../src/scenarios/redis-state.js';

const script = fileURLToPath(new URL('../dist/bench.js', import.meta.url));
const page = fileURLToPath(new URL('../../../docs/performance.md', import.meta.url));

const RATIO = '\\d+\\.\\d\\dx of (SDK v2|raw loop)';
const PLUS = '[+-]\\d+\\.\\d MB of SDK v2';
// The start-up scenarios judge the server armature build bundled, and their lines say so.
const BUNDLED = 'Armature bundled: ';
const VERDICT = '(PASS|FAIL)';
const LINES: [string, string, string][] = [
  ['stdio add', RATIO, '>= 2\\.00x'],
  ['stdio search', RATIO, '>= 1\\.50x'],
  ['http 2026 add', RATIO, '>= 3\\.00x'],
  ['in-memory add', RATIO, '>= 2\\.00x'],
  ['in-memory search', RATIO, '>= 2\\.00x'],
  ['cold start 2', BUNDLED + RATIO, '<= 1\\.10x'],
  ['cold start 500', BUNDLED + RATIO, '<= 1\\.10x'],
  ['tools/list 500', RATIO, '<= 1\\.10x'],
  ['idle RSS', BUNDLED + PLUS, '<= \\+10 MB'],
  ['RSS after 2,000 calls', PLUS, '<= \\+10 MB'],
];

describe('bench --quick', () => {
  it('runs every scenario, prints each goal with its verdict, and writes the docs table and chart', () => {
    expect(existsSync(script), `${script} is missing: build first (pnpm build)`).toBe(true);
    const docs = join(mkdtempSync(join(tmpdir(), 'armature-bench-')), 'performance.md');
    copyFileSync(page, docs);
    const run = spawnSync(process.execPath, [script, '--quick', `--write-docs=${docs}`], { encoding: 'utf8', timeout: 170_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);

    const summary = run.stdout.slice(run.stdout.indexOf('== summary =='));
    for (const [id, relative, goal] of LINES) {
      expect(summary).toMatch(new RegExp(`^${id}: ${relative} \\(goal ${goal}\\) ${VERDICT}`, 'm'));
    }
    // The Redis state lines: a ratio, no goal; or, without redis-server, the line saying they were skipped.
    const REDIS_LINES = ['redis 2026 add', 'redis session add'];
    if (RedisServer.installed()) {
      for (const id of REDIS_LINES)
        expect(summary).toMatch(new RegExp(`^${id}: \\d+\\.\\d\\dx of Armature in memory \\(goal report\\) n/a$`, 'm'));
    } else {
      expect(summary).toContain(REDIS_SKIPPED);
      for (const id of REDIS_LINES) expect(summary).not.toContain(`${id}:`);
    }
    expect(summary).toMatch(/^in-memory add: .*; Armature DI scopes left open: 0 \(must be 0\) PASS$/m);
    expect(summary).toMatch(
      /^RSS after 2,000 calls: .*; flat: Armature [+-]\d+\.\d MB from the 20-60% stretch to the last 40% \(SDK v2 [+-]\d+\.\d MB\) (PASS|FAIL)$/m,
    );

    const written = readFileSync(docs, 'utf8');
    const original = readFileSync(page, 'utf8');
    const between = (text: string) => text.slice(text.indexOf('<!-- bench-results:begin -->'), text.indexOf('<!-- bench-results:end -->'));
    expect(written.replace(between(written), ''), 'only the part between the markers changes').toBe(
      original.replace(between(original), ''),
    );
    expect(between(written)).toContain(
      '| scenario | Armature | Armature bundled | SDK v2 | SDK v1 | raw loop | Armature in memory | Armature vs anchor | goal | verdict |',
    );
    if (RedisServer.installed()) {
      for (const id of REDIS_LINES) expect(between(written)).toMatch(new RegExp(`^\\| ${id} \\| .* \\| report \\| n/a \\|$`, 'm'));
    }
    for (const [id] of LINES) expect(between(written)).toMatch(new RegExp(`^\\| ${id} \\| .* \\| ${VERDICT}`, 'm'));
    expect(between(written)).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" [^\n]*>\n[\s\S]*\n<\/svg>$/m);
    expect(between(written), 'no blank line inside the SVG (it would end the HTML block in Markdown)').not.toMatch(
      /<svg[\s\S]*\n\n[\s\S]*<\/svg>/,
    );
  });
});
