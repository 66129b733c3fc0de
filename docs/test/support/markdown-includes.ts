import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

/** The docs package root, resolved from this file (a root `vitest run` has the repo root as cwd). */
export const DOCS_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A marker in a page and the block it vouches for.
 *
 * - `<!-- include: examples/x.ts#name -->` + a fenced block: the block equals region `name` of the file
 *   (`// #region name` ... `// #endregion`, indentation removed), or the whole file without `#name`.
 * - `<!-- output: examples/x.ts#key -->` + a fenced block: the block equals `outputs[key]` exported by
 *   the example, which its own `main()` checks against what the code really does.
 * - `<!-- output-begin: examples/x.ts#key -->` ... `<!-- output-end -->`: the same for raw Markdown (tables).
 */
export interface Marker {
  readonly page: string;
  readonly line: number;
  readonly kind: 'include' | 'output';
  readonly file: string;
  readonly key?: string;
  /**
   * `<!-- include: examples/x.ts#name with-imports -->`: the block starts with the import lines of
   * the file that the region uses, so that it can be pasted as it is (see regionWithImports).
   */
  readonly withImports?: boolean;
  /** The fence's language (`ts`, `json`, `text`), or `markdown` for output-begin/end. */
  readonly language: string;
  readonly body: string;
}

export interface PageScan {
  readonly markers: Marker[];
  readonly problems: string[];
}

const MARKER = /^<!-- (include|output|output-begin): ([^#\s]+)(?:#([\w.-]+))?( with-imports)? -->$/;
const FENCE = /^```(\S*)\s*$/;
/** Languages whose blocks cannot be executed; every other fenced block needs a marker. */
const FREE_LANGUAGES = new Set(['bash', 'sh', 'shell', 'console']);

export function listPages(): string[] {
  return readdirSync(DOCS_ROOT)
    .filter((name) => name.endsWith('.md'))
    .sort();
}

export function scanPage(page: string): PageScan {
  const lines = readFileSync(join(DOCS_ROOT, page), 'utf8').split('\n');
  const markers: Marker[] = [];
  const problems: string[] = [];
  const where = (index: number) => `${page}:${index + 1}`;

  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i] as string);
    if (marker) {
      const [, kind, file, key, withImports] = marker as unknown as [string, string, string, string | undefined, string | undefined];
      if (kind === 'output-begin') {
        const end = lines.indexOf('<!-- output-end -->', i + 1);
        if (end === -1) {
          problems.push(`${where(i)}: output-begin without <!-- output-end -->`);
          continue;
        }
        markers.push({
          page,
          line: i + 1,
          kind: 'output',
          file,
          key,
          language: 'markdown',
          body: trimBlankLines(lines.slice(i + 1, end)).join('\n'),
        });
        i = end;
        continue;
      }
      const open = FENCE.exec(lines[i + 1] ?? '');
      if (!open) {
        problems.push(`${where(i)}: the ${kind} marker must be followed directly by a fenced code block`);
        continue;
      }
      const close = findClosingFence(lines, i + 2);
      if (close === -1) {
        problems.push(`${where(i + 1)}: unclosed code block`);
        break;
      }
      markers.push({
        page,
        line: i + 1,
        kind: kind as 'include' | 'output',
        file,
        key,
        withImports: withImports !== undefined,
        language: open[1] ?? '',
        body: lines.slice(i + 2, close).join('\n'),
      });
      i = close;
      continue;
    }
    const fence = FENCE.exec(lines[i] as string);
    if (fence) {
      const language = fence[1] ?? '';
      const close = findClosingFence(lines, i + 1);
      if (close === -1) {
        problems.push(`${where(i)}: unclosed code block`);
        break;
      }
      if (!FREE_LANGUAGES.has(language)) {
        problems.push(
          `${where(i)}: a \`\`\`${language || '(no language)'} block without an include/output marker would drift from the code`,
        );
      }
      i = close;
    }
  }
  return { markers, problems };
}

function findClosingFence(lines: string[], from: number): number {
  for (let i = from; i < lines.length; i++) if ((lines[i] as string).trimEnd() === '```') return i;
  return -1;
}

function trimBlankLines(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] as string).trim() === '') start++;
  while (end > start && (lines[end - 1] as string).trim() === '') end--;
  return lines.slice(start, end);
}

const REGION_START = /^\s*\/\/ #region ([\w.-]+)\s*$/;
const REGION_END = /^\s*\/\/ #endregion(?: [\w.-]+)?\s*$/;

/**
 * Every `// #region name` of a source file, with its lines (nested region markers left out) and the
 * common indentation removed. Throws on unbalanced or duplicate regions.
 */
export function readRegions(file: string): Map<string, string> {
  const lines = readFileSync(join(DOCS_ROOT, file), 'utf8').split('\n');
  const open: Array<{ name: string; lines: string[] }> = [];
  const regions = new Map<string, string>();
  lines.forEach((line, index) => {
    const start = REGION_START.exec(line);
    if (start) {
      const name = start[1] as string;
      if (regions.has(name) || open.some((r) => r.name === name))
        throw new Error(`${file}:${index + 1}: region "${name}" is declared twice`);
      open.push({ name, lines: [] });
      return;
    }
    if (REGION_END.test(line)) {
      const region = open.pop();
      if (!region) throw new Error(`${file}:${index + 1}: #endregion without #region`);
      regions.set(region.name, dedent(region.lines).join('\n'));
      return;
    }
    for (const region of open) region.lines.push(line);
  });
  if (open.length > 0) throw new Error(`${file}: region "${open[0]?.name}" is never closed`);
  return regions;
}

/**
 * A region preceded by the import lines of its file that it uses (only the names it uses), as a
 * reader pasting it needs them: `import { a, b as c } from 'x';` (on one line or several) and
 * `import x from 'x';`.
 */
export function regionWithImports(file: string, region: string): string {
  // `a.name` is a property, `...name` a use; a name the region declares itself is its own.
  const declared = (name: string) => new RegExp(`\\b(?:class|function|const|let|interface|type|enum) ${name}\\b`).test(region);
  const used = (name: string) =>
    new RegExp(`(?<![\\w$])(?<![^.]\\.)${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(region) && !declared(name);
  const lines: string[] = [];
  const text = readFileSync(join(DOCS_ROOT, file), 'utf8');
  // The import statements at the top of the file, one or several lines each.
  for (const statement of text.matchAll(/^import (type )?(?:\{([^}]*)\}|(\w+)) from ('[^']+');$/gm)) {
    const [, type, named, plain, from] = statement as unknown as [
      string,
      string | undefined,
      string | undefined,
      string | undefined,
      string,
    ];
    if (plain !== undefined) {
      if (used(plain)) lines.push(`import ${plain} from ${from};`);
      continue;
    }
    const names = (named ?? '')
      .split(',')
      .map((spec) => spec.trim())
      .filter((spec) => spec !== '' && used((spec.split(' as ').pop() as string).replace(/^type /, '')));
    if (names.length > 0) lines.push(importLine(`import ${type ?? ''}{`, names, `} from ${from};`));
  }
  // What the file itself exports and the region uses without declaring it: the reader imports it
  // from the file the page showed it in.
  const exported = [...text.matchAll(/^export (?:async )?(?:class|function|const|let) (\w+)/gm)].map((m) => m[1] as string);
  const own = exported.filter(used).sort((a, b) => a.localeCompare(b, 'en')); // in the formatter's order
  if (own.length > 0) lines.push(importLine('import {', own, `} from './${file.split('/').pop()?.replace(/\.ts$/, '.js')}';`));
  return lines.length > 0 ? `${lines.join('\n')}\n\n${region}` : region;
}

/** The Markdown formatter's line width (biome.json): a longer import is written one name a line, as it writes it. */
const LINE_WIDTH = 140;

function importLine(open: string, names: string[], close: string): string {
  const line = `${open} ${names.join(', ')} ${close}`;
  return line.length <= LINE_WIDTH ? line : [open, ...names.map((name) => `  ${name},`), close].join('\n');
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((l) => l.trim() !== '').map((l) => (/^ */.exec(l) as RegExpExecArray)[0].length);
  const cut = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut).trimEnd());
}

/**
 * Table rows whose cell count differs from their header's: an unescaped `|` (even inside a code
 * span) splits a cell in GitHub's and VitePress's tables.
 */
export function splitTableRows(page: string): string[] {
  const lines = readFileSync(join(DOCS_ROOT, page), 'utf8').split('\n');
  const cells = (line: string) =>
    line
      .trim()
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/).length;
  const problems: string[] = [];
  let fenced = false;
  let header: number | undefined;
  lines.forEach((line, index) => {
    if (FENCE.test(line)) fenced = !fenced;
    if (fenced || !line.trimStart().startsWith('|')) {
      header = undefined;
      return;
    }
    header ??= cells(line);
    if (cells(line) !== header) problems.push(`${page}:${index + 1}: ${cells(line)} cells where the header has ${header}`);
  });
  return problems;
}

/** Relative Markdown links to files (`[x](other.md#part)`, `[x](examples/a.ts)`) that do not exist. */
export function brokenLinks(page: string, exists: (path: string) => boolean): string[] {
  const text = readFileSync(join(DOCS_ROOT, page), 'utf8');
  const broken: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = (match[1] as string).split('#')[0] as string;
    if (target === '' || /^[a-z]+:/i.test(target)) continue;
    if (!exists(join(DOCS_ROOT, target))) broken.push(`${page}: link to ${relative(DOCS_ROOT, join(DOCS_ROOT, target))} does not resolve`);
  }
  return broken;
}

/**
 * Rewrites the blocks of `page` from their sources (`UPDATE_DOCS=1`): for maintainers after a change
 * to an example. The check itself never rewrites anything.
 */
export async function syncPage(page: string): Promise<void> {
  const { writeFileSync } = await import('node:fs');
  const path = join(DOCS_ROOT, page);
  const lines = readFileSync(path, 'utf8').split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    out.push(line);
    const marker = MARKER.exec(line);
    if (!marker) continue;
    const [, kind, file, key, withImports] = marker as unknown as [string, string, string, string | undefined, string | undefined];
    const source = await sourceText(kind === 'include' ? 'include' : 'output', file, key, withImports !== undefined);
    if (kind === 'output-begin') {
      const end = lines.indexOf('<!-- output-end -->', i + 1);
      const current = lines.slice(i + 1, end);
      // Keep text that already matches (a formatter may have padded it).
      if (normalizeTables(trimBlankLines(current).join('\n')) === normalizeTables(source)) out.push(...current);
      else out.push(source);
      out.push('<!-- output-end -->');
      i = end;
      continue;
    }
    const close = findClosingFence(lines, i + 2);
    const current = lines.slice(i + 2, close);
    const json = FENCE.exec(lines[i + 1] as string)?.[1] === 'json';
    const same = json ? sameJson(current.join('\n'), source) : current.join('\n') === source;
    out.push(lines[i + 1] as string, ...(same ? current : [source]), '```');
    i = close;
  }
  writeFileSync(path, out.join('\n'));
}

/** The text a marker vouches for: a region (or whole file), or an example's `outputs[key]`. */
export async function sourceText(kind: 'include' | 'output', file: string, key: string | undefined, withImports = false): Promise<string> {
  if (kind === 'include') {
    if (key === undefined) return readFileSync(join(DOCS_ROOT, file), 'utf8').trimEnd();
    const region = readRegions(file).get(key) ?? '';
    return withImports ? regionWithImports(file, region) : region;
  }
  const module = (await import(join(DOCS_ROOT, file))) as { outputs?: Record<string, string> };
  return module.outputs?.[key as string] ?? '';
}

/** Markdown table rows without alignment padding, so a formatter that pads cells changes nothing. */
export function normalizeTables(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      line.startsWith('|')
        ? line
            .replace(/ *\| */g, ' | ')
            .replace(/ \| -+(?= \|)/g, ' | ---')
            .trim()
        : line,
    )
    .join('\n');
}

function sameJson(a: string, b: string): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(a), JSON.parse(b));
  } catch {
    return false;
  }
}
