// The verdicts and what the run writes, on fixed figures: the arithmetic every PASS/FAIL rests on.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Goal, judge, median, meets, type Row, relativeOf, type Scenario, type Target } from '../src/harness.js';
import { markdownTable, summaryLine, svgChart, writeBetweenMarkers } from '../src/report.js';
import { processScenarios } from '../src/scenarios/stdio.js';
import { QUICK } from '../src/settings.js';

/** The repository's Biome, which lints docs/performance.md. */
const BIOME = createRequire(import.meta.url).resolve('@biomejs/biome/bin/biome');

function row(id: string, unit: Scenario['unit'], targets: Scenario['targets'], medians: Row['medians']): Row {
  const scenario: Scenario = { id, title: id, unit, targets, open: () => Promise.reject(new Error('not run')) };
  const verdicts = judge(scenario, medians);
  return { scenario, samples: {}, medians, verdicts, checks: [], pass: verdicts.every((v) => v.pass), seconds: 0 };
}
const at = (anchor: Target['anchor'], goal: Goal, subject?: Target['subject']): Target => ({
  anchor,
  goal,
  ...(subject ? { subject } : {}),
});

describe('verdicts', () => {
  it('takes the median of an odd and an even count', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('compares throughput as a ratio at least, time as a ratio at most, memory as MB more at most', () => {
    const throughput: Goal = { kind: 'ratio-at-least', value: 2 };
    expect(meets(throughput, relativeOf(throughput, 2000, 1000))).toBe(true);
    expect(meets(throughput, relativeOf(throughput, 1999, 1000))).toBe(false);
    const time: Goal = { kind: 'ratio-at-most', value: 1.1 };
    expect(meets(time, relativeOf(time, 440, 400))).toBe(true);
    expect(meets(time, relativeOf(time, 441, 400))).toBe(false);
    const memory: Goal = { kind: 'plus-at-most', value: 10 };
    expect(relativeOf(memory, 78, 68)).toBe(10);
    expect(meets(memory, 10)).toBe(true);
    expect(meets(memory, 10.1)).toBe(false);
  });

  it('judges every target of a scenario on the same medians, and refuses a target whose sides were not measured', () => {
    const scenario: Scenario = {
      id: 'stdio add',
      title: 'stdio add',
      unit: 'calls/s',
      targets: [at('sdk', { kind: 'ratio-at-least', value: 2 }), at('raw', { kind: 'ratio-at-least', value: 0.8 })],
      open: () => Promise.reject(new Error('not run')),
    };
    expect(judge(scenario, { armature: 5000, sdk: 2000, raw: 7000 }).map((v) => [v.relative.toFixed(3), v.pass])).toEqual([
      ['2.500', true],
      ['0.714', false],
    ]);
    expect(() => judge(scenario, { armature: 5000, sdk: 2000 })).toThrow(
      'stdio add: a target compares armature with raw, which were not both measured',
    );
  });

  it('judges a paired scenario on the median of its per-pass ratios, so that load drifting between passes cancels out', () => {
    const scenario: Scenario = {
      id: 'telemetry cost add',
      title: 'telemetry cost add',
      unit: 'calls/s',
      targets: [at('untraced', { kind: 'ratio-at-least', value: 0.98 })],
      paired: true,
      open: () => Promise.reject(new Error('not run')),
    };
    // A busy machine halves both sides in the last passes: each pass's ratio is 0.99, the ratio of the medians 0.5.
    const samples = { armature: [990, 990, 495, 495, 495], untraced: [1000, 1000, 1000, 500, 500] };
    const medians = { armature: median(samples.armature), untraced: median(samples.untraced) };
    expect(judge({ ...scenario, paired: false }, medians, samples)[0]?.relative).toBeCloseTo(0.495, 3);
    expect(judge(scenario, medians, samples).map((v) => [v.relative.toFixed(3), v.pass])).toEqual([['0.990', true]]);
  });

  it('judges the cold start lines on their per-pass ratios: on a shared machine a start mostly waits for a core', () => {
    // The SDK's starts move from 433 to 1,055 ms with the load; the bundle starts in 0.78x of the
    // SDK's time in each pass but one, where the load came between them.
    const sdk = [433, 1055, 708, 590, 900];
    const bundled = [338, 823, 927, 460, 702];
    // The SDK's own server bundled, the floor the bundled line is reported beside.
    const samples = { armature: sdk.map((ms) => ms * 2), bundled, sdk, sdkBundled: sdk.map((ms) => ms * 0.65) };
    const medians = {
      armature: median(samples.armature),
      bundled: median(bundled),
      sdk: median(sdk),
      sdkBundled: median(samples.sdkBundled),
    };
    const starts = processScenarios(QUICK).filter((s) => s.id.startsWith('cold start '));
    expect(starts.map((s) => s.id)).toEqual(['cold start 2', 'cold start 500']);
    for (const scenario of starts) {
      expect(judge(scenario, medians, samples).map((v) => v.relative.toFixed(2))).toEqual(['2.00', '0.78', '0.65']);
    }
    // The ratio of the medians would have put the bundle at 0.99x.
    expect((median(bundled) / median(sdk)).toFixed(2)).toBe('0.99');
  });
});

describe('what a run prints and writes', () => {
  const rows = [
    row('stdio add', 'calls/s', [at('sdk', { kind: 'ratio-at-least', value: 2 }), at('raw', { kind: 'ratio-at-least', value: 0.8 })], {
      armature: 5000,
      sdk: 2000,
      sdkV1: 2500,
      raw: 40000,
    }),
    row('tools/list 500', 'ms', [at('raw', { kind: 'ratio-at-most', value: 1.1 })], { armature: 12, sdk: 20, raw: 10 }),
    row('idle RSS', 'MB', [at('sdk', { kind: 'plus-at-most', value: 15 }), at('sdk', { kind: 'plus-at-most', value: 10 }, 'bundled')], {
      armature: 99,
      bundled: 70,
      sdk: 68,
    }),
    row(
      'cold start 2',
      'ms',
      [at('sdk', { kind: 'ratio-at-most', value: 1.3 }), at('sdk', { kind: 'ratio-at-most', value: 0.8 }, 'bundled')],
      { armature: 400, bundled: 320, sdk: 360 },
    ),
    row('redis 2026 add', 'calls/s', [at('memory', { kind: 'report' })], { armature: 800, memory: 1000 }),
    row('runtime cold start', 'ms', [at('armature', { kind: 'report' }, 'bun'), at('armature', { kind: 'report' }, 'deno')], {
      armature: 500,
      bun: 300,
      deno: 320,
    }),
  ];

  it('prints one summary line per scenario with the goal and the verdict', () => {
    expect(rows.map(summaryLine)).toEqual([
      'stdio add: 2.50x of SDK v2 (goal >= 2.00x) PASS; 0.13x of raw loop (goal >= 0.80x) FAIL',
      'tools/list 500: 1.20x of raw loop (goal <= 1.10x) FAIL',
      'idle RSS: +31.0 MB of SDK v2 (goal <= +15 MB) FAIL; Armature bundled: +2.0 MB of SDK v2 (goal <= +10 MB) PASS',
      'cold start 2: 1.11x of SDK v2 (goal <= 1.30x) PASS; Armature bundled: 0.89x of SDK v2 (goal <= 0.80x) FAIL',
      'redis 2026 add: 0.80x of Armature in memory (goal report) n/a',
      'runtime cold start: Armature on Bun: 0.60x of Armature (goal report) n/a; Armature on Deno: 0.64x of Armature (goal report) n/a',
    ]);
  });

  it('writes a Markdown table with a column per side, empty where a side was not measured', () => {
    // A separator of any length reads as `---`.
    const cellsOf = (line: string) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim().replace(/^-+$/, '---'));
    expect(markdownTable(rows).split('\n').map(cellsOf)).toEqual(
      [
        '| scenario | Armature | Armature bundled | SDK v2 | SDK v2 bundled | SDK v1 | raw loop | Armature in memory | Armature on Bun | Armature on Deno | Armature telemetry off | Armature direct | Armature vs anchor | goal | verdict |',
        '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
        '| stdio add | 5,000/s |  | 2,000/s |  | 2,500/s | 40,000/s |  |  |  |  |  | 2.50x of SDK v2; 0.13x of raw loop | >= 2.00x; >= 0.80x | PASS; FAIL |',
        '| tools/list 500 | 12.0 ms |  | 20.0 ms |  |  | 10.0 ms |  |  |  |  |  | 1.20x of raw loop | <= 1.10x | FAIL |',
        '| idle RSS | 99.0 MB | 70.0 MB | 68.0 MB |  |  |  |  |  |  |  |  | +31.0 MB of SDK v2; Armature bundled: +2.0 MB of SDK v2 | <= +15 MB; <= +10 MB | FAIL; PASS |',
        '| cold start 2 | 400 ms | 320 ms | 360 ms |  |  |  |  |  |  |  |  | 1.11x of SDK v2; Armature bundled: 0.89x of SDK v2 | <= 1.30x; <= 0.80x | PASS; FAIL |',
        '| redis 2026 add | 800/s |  |  |  |  |  | 1,000/s |  |  |  |  | 0.80x of Armature in memory | report | n/a |',
        '| runtime cold start | 500 ms |  |  |  |  |  |  | 300 ms | 320 ms |  |  | Armature on Bun: 0.60x of Armature; Armature on Deno: 0.64x of Armature | report; report | n/a; n/a |',
      ].map(cellsOf),
    );
  });

  it('writes the table as Biome formats it, so the page it lands in stays lint-clean', () => {
    const table = `${markdownTable(rows)}\n`;
    const biome = execFileSync(process.execPath, [BIOME, 'format', '--stdin-file-path=table.md'], { input: table, encoding: 'utf8' });
    expect(biome).toBe(table);
  });

  it('draws a bar per measured side and a goal mark per target that has a goal, with no blank line inside the SVG', () => {
    const svg = svgChart(rows);
    expect(svg.match(/<rect [^>]*><title>/g)).toHaveLength(4 + 3 + 3 + 3 + 2 + 3);
    expect(svg.match(/stroke="#dc2626" stroke-width="2"\/>/g)).toHaveLength(2 + 1 + 2 + 2 + 1); // + the legend's; none for the report line
    expect(svg).toContain('<title>Armature bundled: 320 ms (1.13x the anchor, higher is better)</title>');
    expect(svg).toContain('<title>Armature: 800/s (0.80x the anchor, higher is better)</title>');
    expect(svg).toContain('<title>Armature: 5,000/s (2.50x the anchor, higher is better)</title>');
    expect(svg).toContain('<title>Armature: 12.0 ms (0.83x the anchor, higher is better)</title>');
    expect(svg).not.toMatch(/\n\s*\n/);
  });

  it("places a target's goal against another anchor on the chart's scale (the first target's anchor)", () => {
    // stdio add: the chart's 1x is the SDK (2,000/s); 0.8x of the loop's 40,000/s is 32,000/s, 16x the SDK.
    const svg = svgChart(rows.slice(0, 1));
    const tick = (t: number) => new RegExp(`<line x1="([\\d.]+)"[^>]*/><text [^>]*>${t}x</text>`).exec(svg)?.[1];
    const marks = [...svg.matchAll(/<line x1="([\d.]+)" x2="[\d.]+" y1="\d+" y2="\d+" stroke="#dc2626"/g)].map((m) => m[1]);
    expect(marks.slice(1)).toEqual([tick(2), tick(16)]); // after the legend's: 2x the SDK, then 0.8x of the loop
  });

  it('replaces only what stands between the markers, and refuses a page without them', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'armature-report-')), 'page.md');
    writeFileSync(file, '# Page\n\n<!-- bench-results:begin -->\nold\n<!-- bench-results:end -->\n\nafter\n');
    writeBetweenMarkers(file, 'new');
    expect(readFileSync(file, 'utf8')).toBe('# Page\n\n<!-- bench-results:begin -->\n\nnew\n\n<!-- bench-results:end -->\n\nafter\n');
    writeFileSync(file, '# Page\n');
    expect(() => writeBetweenMarkers(file, 'new')).toThrow(
      `${file}: no <!-- bench-results:begin --> ... <!-- bench-results:end --> markers to write between`,
    );
  });
});
