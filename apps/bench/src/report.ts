// What a run prints and writes: the console table, the summary lines, the Markdown table and the
// SVG chart for docs/performance.md (replaced between its markers).
import { readFileSync, writeFileSync } from 'node:fs';
import { type Goal, type Row, SIDE_TITLES, SIDES, type SideName, type Verdict } from './harness.js';

const int = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function fmtValue(unit: Row['scenario']['unit'], value: number | undefined): string {
  if (value === undefined) return '';
  if (unit === 'calls/s') return `${int.format(Math.round(value))}/s`;
  if (unit === 'ms') return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ms`;
  return `${value.toFixed(1)} MB`;
}

export function fmtRelative(goal: Goal, relative: number): string {
  return goal.kind === 'plus-at-most' ? `${relative >= 0 ? '+' : ''}${relative.toFixed(1)} MB` : `${relative.toFixed(2)}x`;
}

export function fmtGoal(goal: Goal): string {
  if (goal.kind === 'report') return 'report';
  if (goal.kind === 'ratio-at-least') return `>= ${goal.value.toFixed(2)}x`;
  if (goal.kind === 'ratio-at-most') return `<= ${goal.value.toFixed(2)}x`;
  return `<= +${goal.value} MB`;
}

const verdict = ({ target, pass }: Verdict) => (target.goal.kind === 'report' ? 'n/a' : pass ? 'PASS' : 'FAIL');
/** "0.92x of SDK v2", naming the judged side when it is not Armature as run from tsc's output. */
const vsAnchor = ({ target, relative }: Verdict) => {
  const subject = target.subject ?? 'armature';
  const of = `${fmtRelative(target.goal, relative)} of ${SIDE_TITLES[target.anchor]}`;
  return subject === 'armature' ? of : `${SIDE_TITLES[subject]}: ${of}`;
};
const checkText = (row: Row) => row.checks.map((c) => `${c.text} ${c.pass ? 'PASS' : 'FAIL'}`);

/** A row's cells; a scenario of several targets lists them in each of the last three cells, in order, `; ` between. */
function cells(row: Row): string[] {
  const { scenario, verdicts } = row;
  return [
    scenario.id,
    ...SIDES.map((side) => fmtValue(scenario.unit, row.medians[side])),
    verdicts.map(vsAnchor).join('; '),
    verdicts.map((v) => fmtGoal(v.target.goal)).join('; '),
    [...verdicts.map(verdict), ...checkText(row)].join('; '),
  ];
}

const HEADER = ['scenario', ...SIDES.map((side) => SIDE_TITLES[side]), 'Armature vs anchor', 'goal', 'verdict'];

/** A plain, aligned text table (first column left-aligned, the rest right-aligned). */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cs: readonly string[]) =>
    cs
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function consoleTable(rows: readonly Row[]): string {
  // The last column is often long: keep it out of the alignment.
  const body = rows.map((row) => cells(row));
  return table(
    HEADER.slice(0, -1),
    body.map((c) => c.slice(0, -1)),
  )
    .split('\n')
    .map((line, i) => (i === 0 ? `${line}  verdict` : i === 1 ? line : `${line}  ${body[i - 2]?.at(-1) ?? ''}`))
    .join('\n');
}

/**
 * One line per scenario, the form the quick test reads: `<id>: <relative> of <anchor> (goal <goal>) PASS|FAIL`,
 * then `; ` and the same for each further target, then the checks.
 */
export function summaryLine(row: Row): string {
  const targets = row.verdicts.map((v) => `${vsAnchor(v)} (goal ${fmtGoal(v.target.goal)}) ${verdict(v)}`);
  return `${row.scenario.id}: ${[...targets, ...checkText(row)].join('; ')}`;
}

export function samplesLine(row: Row): string {
  const parts = SIDES.filter((side) => row.samples[side]).map(
    (side) => `${SIDE_TITLES[side]} ${(row.samples[side] as number[]).map((v) => fmtValue(row.scenario.unit, v)).join(' ')}`,
  );
  return `samples: ${parts.join(' | ')} (took ${row.seconds.toFixed(1)} s)`;
}

/** A Markdown table aligned as Biome formats one (every cell padded to its column, at least `---`), so that docs/performance.md stays lint-clean. */
export function markdownTable(rows: readonly Row[]): string {
  const body = rows.map((row) => cells(row));
  const widths = HEADER.map((h, i) => Math.max(3, [...h].length, ...body.map((r) => [...(r[i] ?? '')].length)));
  const pad = (cell: string, i: number) => cell + ' '.repeat((widths[i] as number) - [...cell].length);
  const line = (cs: readonly string[]) => `| ${cs.map(pad).join(' | ')} |`;
  return [line(HEADER), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

// ---- the chart: per scenario, each side's speed relative to the anchor (higher is better), log scale

const COLORS: Record<SideName, string> = {
  armature: '#2563eb',
  bundled: '#1e3a8a',
  sdk: '#6b7280',
  sdkBundled: '#374151',
  sdkV1: '#c4b5fd',
  raw: '#10b981',
  memory: '#93c5fd',
  bun: '#f59e0b',
  deno: '#0f766e',
  untraced: '#a855f7',
  direct: '#f472b6',
};
const LOW = 1 / 8;
const HIGH = 16;
const WIDTH = 760;
const LABEL = 170;
const RIGHT = 740;
const BAR = 12;

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The chart's 1x: the first target's anchor. */
const chartAnchor = (row: Row) => row.scenario.targets[0].anchor;

/** Higher is better for every scenario: calls/s over `anchor`'s, or `anchor`'s ms or MB over this side's. */
function better(row: Row, side: SideName, anchor: SideName = chartAnchor(row)): number | undefined {
  const value = row.medians[side];
  const base = row.medians[anchor] as number;
  if (value === undefined) return undefined;
  return row.scenario.unit === 'calls/s' ? value / base : base / value;
}

/**
 * A target's goal on the same scale as `better` against the chart's anchor (none for a target that
 * only reports): on its own anchor's scale, then moved by that anchor's place on the chart.
 */
function goalMark(row: Row, { anchor, goal }: Verdict['target']): number | undefined {
  if (goal.kind === 'report') return undefined;
  const base = row.medians[anchor] as number;
  const own = goal.kind === 'ratio-at-least' ? goal.value : goal.kind === 'ratio-at-most' ? 1 / goal.value : base / (base + goal.value);
  return own * (better(row, anchor) as number);
}

export function svgChart(rows: readonly Row[]): string {
  const x = (value: number) => {
    const clamped = Math.min(HIGH, Math.max(LOW, value));
    return LABEL + ((Math.log2(clamped) - Math.log2(LOW)) / (Math.log2(HIGH) - Math.log2(LOW))) * (RIGHT - LABEL);
  };
  // Legend entries side by side, each as wide as its title (about 7 px a character at 12 px), on as
  // many rows as they need; the bars start below them.
  const legend: string[] = [];
  let [left, top] = [LABEL, 8];
  const entry = (width: number) => {
    if (left + width > WIDTH) [left, top] = [LABEL, top + 20];
    const at = left;
    left += width;
    return at;
  };
  for (const side of SIDES) {
    const at = entry(30 + SIDE_TITLES[side].length * 7);
    legend.push(
      `<rect x="${at}" y="${top}" width="12" height="12" fill="${COLORS[side]}"/><text x="${at + 16}" y="${top + 10}" font-size="12">${SIDE_TITLES[side]}</text>`,
    );
  }
  const goalAt = entry(110);
  legend.push(
    `<line x1="${goalAt}" x2="${goalAt}" y1="${top - 2}" y2="${top + 14}" stroke="#dc2626" stroke-width="2"/><text x="${goalAt + 6}" y="${top + 10}" font-size="12">Armature goal</text>`,
  );
  const parts: string[] = [];
  let y = top + 36;
  for (const row of rows) {
    const sides = SIDES.filter((side) => row.medians[side] !== undefined);
    const height = sides.length * (BAR + 2);
    parts.push(
      `<text x="${LABEL - 8}" y="${y + height / 2}" text-anchor="end" font-size="12">${escapeXml(row.scenario.id)}</text>`,
      `<text x="${LABEL - 8}" y="${y + height / 2 + 13}" text-anchor="end" font-size="10" fill="#6b7280">vs ${SIDE_TITLES[chartAnchor(row)]}</text>`,
    );
    const judged = row.scenario.targets.map((target) => target.subject ?? 'armature');
    sides.forEach((side, i) => {
      const value = better(row, side) as number;
      const top = y + i * (BAR + 2);
      const [from, to] = [x(1), x(value)].sort((a, b) => a - b) as [number, number];
      parts.push(
        `<rect x="${from.toFixed(1)}" y="${top}" width="${Math.max(1, to - from).toFixed(1)}" height="${BAR}" fill="${COLORS[side]}"><title>${escapeXml(
          `${SIDE_TITLES[side]}: ${fmtValue(row.scenario.unit, row.medians[side])} (${value.toFixed(2)}x the anchor, higher is better)`,
        )}</title></rect>`,
      );
      const clamped = value > HIGH || value < LOW;
      if (judged.includes(side) || clamped) {
        const after = value >= 1 ? Math.min(to + 4, RIGHT - 30) : Math.max(from - 4, LABEL + 30);
        parts.push(
          `<text x="${after.toFixed(1)}" y="${top + BAR - 2}" text-anchor="${value >= 1 ? 'start' : 'end'}" font-size="10">${value.toFixed(2)}x</text>`,
        );
      }
      for (const target of row.scenario.targets) {
        const goal = goalMark(row, target);
        if ((target.subject ?? 'armature') !== side || goal === undefined) continue;
        const mark = x(goal);
        parts.push(
          `<line x1="${mark.toFixed(1)}" x2="${mark.toFixed(1)}" y1="${top - 2}" y2="${top + BAR + 2}" stroke="#dc2626" stroke-width="2"/>`,
        );
      }
    });
    y += height + 10;
  }
  const ticks = [0.125, 0.25, 0.5, 1, 2, 4, 8, 16].map(
    (t) =>
      `<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${top + 28}" y2="${y}" stroke="${t === 1 ? '#111827' : '#e5e7eb'}"/>` +
      `<text x="${x(t).toFixed(1)}" y="${y + 14}" text-anchor="middle" font-size="11">${t < 1 ? `1/${1 / t}` : t}x</text>`,
  );
  legend.push(
    `<text x="${(LABEL + RIGHT) / 2}" y="${y + 30}" text-anchor="middle" font-size="11" fill="#374151">speed relative to the anchor (1x), log scale: higher is better</text>`,
  );
  const height = y + 40;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="Each side's speed relative to the anchor, log scale, higher is better" font-family="sans-serif">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    ...ticks,
    ...legend,
    ...parts,
    '</svg>',
  ].join('\n');
}

export const DOCS_BEGIN = '<!-- bench-results:begin -->';
export const DOCS_END = '<!-- bench-results:end -->';

/** Replaces what stands between the markers of `file` with `content`. */
export function writeBetweenMarkers(file: string, content: string): void {
  const page = readFileSync(file, 'utf8');
  const begin = page.indexOf(DOCS_BEGIN);
  const end = page.indexOf(DOCS_END);
  if (begin === -1 || end < begin) throw new Error(`${file}: no ${DOCS_BEGIN} ... ${DOCS_END} markers to write between`);
  writeFileSync(file, `${page.slice(0, begin + DOCS_BEGIN.length)}\n\n${content}\n\n${page.slice(end)}`);
}
