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
// The start-up scenarios also judge the server armature build bundled, and their lines say so.
const BUNDLED = 'Armature bundled: ';
// ... beside the SDK's own server bundled the same way, their floor, reported without a goal.
const SDK_BUNDLED = 'SDK v2 bundled: ';
const VERDICT = '(PASS|FAIL)';
const ON_BUN = 'Armature on Bun: \\d+\\.\\d\\dx of Armature';
const ON_DENO = 'Armature on Deno: \\d+\\.\\d\\dx of Armature';
/** Each scenario's targets in order, as its summary line gives them: [relative, goal]. */
const LINES: [string, ...[string, string][]][] = [
  ['stdio add', [RATIO, '>= 2\\.00x'], [RATIO, '>= 0\\.80x']],
  ['stdio search', [RATIO, '>= 2\\.00x'], [RATIO, '>= 0\\.70x']],
  ['http 2026 add', [RATIO, '>= 3\\.00x'], [RATIO, '>= 0\\.50x']],
  // The same calls with a log level in each request's `_meta` (issue 35's notify pass).
  ['http 2026 add, logLevel', [RATIO, '>= 3\\.00x'], [RATIO, '>= 0\\.50x']],
  ['http session add', [RATIO, '>= 3\\.00x']],
  // The proxy's cost: the gateway against the server it proxies (issue 35: at least 0.35x).
  ['http proxy add', ['\\d+\\.\\d\\dx of Armature direct', '>= 0\\.35x']],
  ['in-memory add', [RATIO, '>= 2\\.00x']],
  ['in-memory search', [RATIO, '>= 2\\.00x']],
  ['telemetry cost add', ['\\d+\\.\\d\\dx of Armature telemetry off', '>= 0\\.98x']],
  // With the OpenTelemetry SDK registered (issue 36).
  ['telemetry on add', ['\\d+\\.\\d\\dx of Armature telemetry off', '>= 0\\.70x']],
  ['telemetry on search', ['\\d+\\.\\d\\dx of Armature telemetry off', '>= 0\\.80x']],
  ['telemetry metrics add', ['\\d+\\.\\d\\dx of Armature telemetry off', '>= 0\\.95x']],
  ['telemetry 1% add', ['\\d+\\.\\d\\dx of Armature telemetry off', '>= 0\\.95x']],
  ['cold start 2', [RATIO, '<= 1\\.30x'], [BUNDLED + RATIO, '<= 0\\.70x'], [SDK_BUNDLED + RATIO, 'report']],
  ['cold start 500', [RATIO, '<= 1\\.30x'], [BUNDLED + RATIO, '<= 0\\.80x'], [SDK_BUNDLED + RATIO, 'report']],
  ['tools/list 500', [RATIO, '<= 1\\.10x']],
  ['idle RSS', [PLUS, '<= \\+15 MB'], [BUNDLED + PLUS, '<= \\+10 MB']],
  ['RSS after 2,000 calls', [PLUS, '<= \\+10 MB']],
  // Peak RSS under sustained concurrent HTTP load (issue 35: at most the SDK's plus 10%).
  ['peak RSS http 2026', [RATIO, '<= 1\\.10x']],
  ['peak RSS http session', [RATIO, '<= 1\\.10x']],
  // Bun and Deno running the same server: ratios to Node, no goal.
  ...['runtime cold start', 'runtime stdio add', 'runtime http 2026 add'].map((id): [string, ...[string, string][]] => [
    id,
    [ON_BUN, 'report'],
    [ON_DENO, 'report'],
  ]),
];

describe('bench --quick', () => {
  it('runs every scenario, prints each goal with its verdict, and writes the docs table and chart', () => {
    expect(existsSync(script), `${script} is missing: build first (pnpm build)`).toBe(true);
    const docs = join(mkdtempSync(join(tmpdir(), 'armature-bench-')), 'performance.md');
    copyFileSync(page, docs);
    const run = spawnSync(process.execPath, [script, '--quick', `--write-docs=${docs}`], { encoding: 'utf8', timeout: 290_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);

    const summary = run.stdout.slice(run.stdout.indexOf('== summary =='));
    for (const [id, ...targets] of LINES) {
      const judged = targets.map(([relative, goal]) => `${relative} \\(goal ${goal}\\) ${goal === 'report' ? 'n/a' : VERDICT}`).join('; ');
      expect(summary).toMatch(new RegExp(`^${id}: ${judged}`, 'm'));
    }
    // The Redis state lines: sessions against a goal, the stateless line a ratio only; or, without
    // redis-server, the line saying they were skipped.
    const REDIS_LINES = ['redis 2026 add', 'redis session add'];
    const IN_MEMORY = '\\d+\\.\\d\\dx of Armature in memory';
    if (RedisServer.installed()) {
      expect(summary).toMatch(new RegExp(`^redis 2026 add: ${IN_MEMORY} \\(goal report\\) n/a$`, 'm'));
      expect(summary).toMatch(new RegExp(`^redis session add: ${IN_MEMORY} \\(goal >= 0\\.85x\\) ${VERDICT}$`, 'm'));
    } else {
      expect(summary).toContain(REDIS_SKIPPED);
      for (const id of REDIS_LINES) expect(summary).not.toContain(`${id}:`);
    }
    expect(summary).toMatch(/^in-memory add: .*; Armature DI scopes left open: 0 \(must be 0\) PASS$/m);
    expect(summary).toMatch(
      /^RSS after 2,000 calls: .*; flat: Armature -\d+\.\d\/\+\d+\.\d MB of its median after warm-up \(SDK v2 -\d+\.\d\/\+\d+\.\d MB; goal within 10 MB\) (PASS|FAIL)$/m,
    );

    const written = readFileSync(docs, 'utf8');
    const original = readFileSync(page, 'utf8');
    const between = (text: string) => text.slice(text.indexOf('<!-- bench-results:begin -->'), text.indexOf('<!-- bench-results:end -->'));
    expect(written.replace(between(written), ''), 'only the part between the markers changes').toBe(
      original.replace(between(original), ''),
    );
    // The table as Biome aligns it, its padding collapsed: one space around each cell.
    const table = between(written)
      .split('\n')
      .map((line) => (line.startsWith('|') ? line.replace(/ {2,}/g, ' ') : line))
      .join('\n');
    expect(table).toContain(
      '| scenario | Armature | Armature bundled | SDK v2 | SDK v2 bundled | SDK v1 | raw loop | Armature in memory | Armature on Bun | Armature on Deno | Armature telemetry off | Armature direct | Armature vs anchor | goal | verdict |',
    );
    if (RedisServer.installed()) {
      expect(table).toMatch(/^\| redis 2026 add \| .* \| report \| n\/a \|$/m);
      expect(table).toMatch(new RegExp(`^\\| redis session add \\| .* \\| >= 0\\.85x \\| ${VERDICT} \\|$`, 'm'));
    }
    for (const [id, ...targets] of LINES) {
      const verdicts = targets.map(([, goal]) => (goal === 'report' ? 'n/a' : VERDICT)).join('; ');
      expect(table).toMatch(new RegExp(`^\\| ${id} \\| .* \\| ${verdicts}`, 'm'));
    }
    expect(between(written)).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" [^\n]*>\n[\s\S]*\n<\/svg>$/m);
    expect(between(written), 'no blank line inside the SVG (it would end the HTML block in Markdown)').not.toMatch(
      /<svg[\s\S]*\n\n[\s\S]*<\/svg>/,
    );
  });
});
