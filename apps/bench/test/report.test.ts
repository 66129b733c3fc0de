// The verdicts and what the run writes, on fixed figures: the arithmetic every PASS/FAIL rests on.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Goal, median, meets, type Row, relativeOf, type Scenario } from '../src/harness.js';
import { markdownTable, summaryLine, svgChart, writeBetweenMarkers } from '../src/report.js';

function row(
  id: string,
  unit: Scenario['unit'],
  goal: Goal,
  medians: Row['medians'],
  anchor: Scenario['anchor'] = 'sdk',
  subject: Scenario['subject'] = 'armature',
): Row {
  const scenario: Scenario = { id, title: id, unit, anchor, subject, goal, open: () => Promise.reject(new Error('not run')) };
  const relative = relativeOf(goal, medians[subject] as number, medians[anchor] as number);
  return { scenario, samples: {}, medians, relative, checks: [], pass: meets(goal, relative), seconds: 0 };
}

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
});

describe('what a run prints and writes', () => {
  const rows = [
    row('stdio add', 'calls/s', { kind: 'ratio-at-least', value: 2 }, { armature: 5000, sdk: 2000, sdkV1: 2500, raw: 40000 }),
    row('tools/list 500', 'ms', { kind: 'ratio-at-most', value: 1.1 }, { armature: 12, sdk: 20, raw: 10 }, 'raw'),
    row('idle RSS', 'MB', { kind: 'plus-at-most', value: 10 }, { armature: 99, sdk: 68 }),
    row('cold start 2', 'ms', { kind: 'ratio-at-most', value: 1.1 }, { armature: 600, bundled: 320, sdk: 360 }, 'sdk', 'bundled'),
    row('redis 2026 add', 'calls/s', { kind: 'report' }, { armature: 800, memory: 1000 }, 'memory'),
  ];

  it('prints one summary line per scenario with the goal and the verdict', () => {
    expect(rows.map(summaryLine)).toEqual([
      'stdio add: 2.50x of SDK v2 (goal >= 2.00x) PASS',
      'tools/list 500: 1.20x of raw loop (goal <= 1.10x) FAIL',
      'idle RSS: +31.0 MB of SDK v2 (goal <= +10 MB) FAIL',
      'cold start 2: Armature bundled: 0.89x of SDK v2 (goal <= 1.10x) PASS',
      'redis 2026 add: 0.80x of Armature in memory (goal report) n/a',
    ]);
  });

  it('writes a Markdown table with a column per side, empty where a side was not measured', () => {
    expect(markdownTable(rows).split('\n')).toEqual([
      '| scenario | Armature | Armature bundled | SDK v2 | SDK v1 | raw loop | Armature in memory | Armature vs anchor | goal | verdict |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      '| stdio add | 5,000/s |  | 2,000/s | 2,500/s | 40,000/s |  | 2.50x of SDK v2 | >= 2.00x | PASS |',
      '| tools/list 500 | 12.0 ms |  | 20.0 ms |  | 10.0 ms |  | 1.20x of raw loop | <= 1.10x | FAIL |',
      '| idle RSS | 99.0 MB |  | 68.0 MB |  |  |  | +31.0 MB of SDK v2 | <= +10 MB | FAIL |',
      '| cold start 2 | 600 ms | 320 ms | 360 ms |  |  |  | Armature bundled: 0.89x of SDK v2 | <= 1.10x | PASS |',
      '| redis 2026 add | 800/s |  |  |  |  | 1,000/s | 0.80x of Armature in memory | report | n/a |',
    ]);
  });

  it('draws a bar per measured side and a goal mark per scenario that has a goal, with no blank line inside the SVG', () => {
    const svg = svgChart(rows);
    expect(svg.match(/<rect [^>]*><title>/g)).toHaveLength(4 + 3 + 2 + 3 + 2);
    expect(svg.match(/stroke="#dc2626" stroke-width="2"\/>/g)).toHaveLength(4 + 1); // + the legend's; none for the report line
    expect(svg).toContain('<title>Armature bundled: 320 ms (1.13x the anchor, higher is better)</title>');
    expect(svg).toContain('<title>Armature: 800/s (0.80x the anchor, higher is better)</title>');
    expect(svg).toContain('<title>Armature: 5,000/s (2.50x the anchor, higher is better)</title>');
    expect(svg).toContain('<title>Armature: 12.0 ms (0.83x the anchor, higher is better)</title>');
    expect(svg).not.toMatch(/\n\s*\n/);
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
