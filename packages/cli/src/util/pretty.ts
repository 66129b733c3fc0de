/**
 * Output that Biome's formatter leaves as it is, so a new project passes its own `lint` before
 * anything is installed: JSON with objects expanded and arrays on one line when they fit, and
 * Markdown tables with padded columns.
 */

const WIDTH = 100;

function jsonAt(value: unknown, indent: number): string {
  if (Array.isArray(value)) {
    const flat = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    const simple = value.every((v) => v === null || typeof v !== 'object');
    if (simple && indent + flat.length <= WIDTH) return flat;
    const pad = ' '.repeat(indent + 2);
    return `[\n${value.map((v) => `${pad}${jsonAt(v, indent + 2)}`).join(',\n')}\n${' '.repeat(indent)}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return '{}';
    const pad = ' '.repeat(indent + 2);
    return `{\n${entries.map(([k, v]) => `${pad}${JSON.stringify(k)}: ${jsonAt(v, indent + 2)}`).join(',\n')}\n${' '.repeat(indent)}}`;
  }
  return JSON.stringify(value);
}

/** JSON text with a final newline, in the layout Biome keeps. */
export function jsonText(value: unknown): string {
  return `${jsonAt(value, 0)}\n`;
}

/** A Markdown table with every column padded to its widest cell. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
