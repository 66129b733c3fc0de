/**
 * Small, careful edits of TypeScript source without a parser (TypeScript 7 has no JS API): find a
 * class body, add a member, merge named imports, add an element to an exported array. Brackets
 * inside strings, template literals and comments are skipped.
 */

export class SourceEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceEditError';
  }
}

/** Index of the bracket closing the one at `open`, skipping strings, templates and comments. */
export function matchingBracket(source: string, open: number): number {
  const pairs: Record<string, string> = { '{': '}', '[': ']', '(': ')' };
  const stack: string[] = [];
  // Template literals nest: `${ ... }` opens code inside a string; track where each one started.
  const templates: number[] = [];
  for (let i = open; i < source.length; i++) {
    const ch = source[i] as string;
    const next = source[i + 1];
    if (ch === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
      continue;
    }
    if (ch === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 1;
      continue;
    }
    if (ch === "'" || ch === '"') {
      i = skipQuoted(source, i, ch);
      continue;
    }
    if (ch === '`') {
      i = skipTemplate(source, i, templates, stack);
      continue;
    }
    if (ch === '}' && templates.length > 0 && templates[templates.length - 1] === stack.length) {
      templates.pop();
      i = skipTemplate(source, i, templates, stack);
      continue;
    }
    if (pairs[ch]) {
      stack.push(pairs[ch] as string);
      continue;
    }
    if (ch === '}' || ch === ']' || ch === ')') {
      if (stack.pop() !== ch) throw new SourceEditError(`unbalanced "${ch}" at offset ${i}`);
      if (stack.length === 0) return i;
    }
  }
  throw new SourceEditError(`no bracket closes the one at offset ${open}`);
}

function skipQuoted(source: string, start: number, quote: string): number {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === quote || source[i] === '\n') return i;
  }
  return source.length;
}

/** From a backtick (or the `}` ending a `${}`), to the closing backtick or the next `${`. */
function skipTemplate(source: string, start: number, templates: number[], stack: string[]): number {
  for (let i = start + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === '`') return i;
    else if (source[i] === '$' && source[i + 1] === '{') {
      templates.push(stack.length);
      return i + 1;
    }
  }
  return source.length;
}

/** Where the body of `class Name` starts (`{`) and ends (`}`). */
export function findClassBody(source: string, className: string): { open: number; close: number } | undefined {
  const pattern = new RegExp(`\\bclass\\s+${className}\\b[^{]*\\{`, 'g');
  const match = pattern.exec(source);
  if (!match) return undefined;
  const open = match.index + match[0].length - 1;
  return { open, close: matchingBracket(source, open) };
}

/** Adds `member` (written at column 0, indented here by two spaces) as the last member of the class. */
export function addClassMember(source: string, className: string, member: string): string {
  const body = findClassBody(source, className);
  if (!body) throw new SourceEditError(`class ${className} was not found`);
  const inside = source.slice(body.open + 1, body.close);
  const indented = member
    .trimEnd()
    .split('\n')
    .map((line) => (line === '' ? '' : `  ${line}`))
    .join('\n');
  const kept = inside.trimEnd();
  const separator = kept.trim() === '' ? '\n' : `${kept}\n\n`;
  return `${source.slice(0, body.open + 1)}${separator}${indented}\n${source.slice(body.close)}`;
}

/** True when the class already has a member called `name` (a method or property). */
export function classHasMember(source: string, className: string, name: string): boolean {
  const body = findClassBody(source, className);
  if (!body) return false;
  return new RegExp(`^\\s*(?:(?:public|private|protected|static|async|readonly|override)\\s+)*${name}\\s*[(<:=!?]`, 'm').test(
    source.slice(body.open + 1, body.close),
  );
}

const IMPORT = /^import\s+(type\s+)?\{([^}]*)\}\s+from\s+(['"])([^'"]+)\3;?[ \t]*$/gm;

/** How Biome orders named imports: case-insensitively, capitals first on a tie. */
export function compareNames(a: string, b: string): number {
  const x = a.replace(/^type\s+/, '');
  const y = b.replace(/^type\s+/, '');
  const lower = x.toLowerCase().localeCompare(y.toLowerCase(), 'en');
  if (lower !== 0) return lower;
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Makes `names` available from `from`: merged into an existing `import { ... } from 'from'`, or
 * added as a new import after the last import of the file.
 */
export function ensureNamedImports(source: string, from: string, names: readonly string[]): string {
  IMPORT.lastIndex = 0;
  for (let match = IMPORT.exec(source); match; match = IMPORT.exec(source)) {
    if (match[1] || match[4] !== from) continue;
    const existing = (match[2] as string)
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    const bare = new Set(existing.map((n) => n.replace(/^type\s+/, '')));
    const missing = names.filter((n) => !bare.has(n));
    if (missing.length === 0) return source;
    const merged = [...existing, ...missing].sort(compareNames);
    const line = `import { ${merged.join(', ')} } from '${from}';`;
    return source.slice(0, match.index) + line + source.slice(match.index + match[0].length);
  }
  const line = `import { ${[...names].sort(compareNames).join(', ')} } from '${from}';`;
  const imports = [...source.matchAll(/^import[\s\S]*?from\s+['"][^'"]+['"];?[ \t]*$/gm)];
  const last = imports[imports.length - 1];
  if (!last) return `${line}\n\n${source}`;
  const end = (last.index as number) + last[0].length;
  return `${source.slice(0, end)}\n${line}${source.slice(end)}`;
}

/** Adds `element` to `export const name = [ ... ]` (kept on one line when short). */
export function addToExportedArray(source: string, name: string, element: string): string {
  const match = new RegExp(`export\\s+const\\s+${name}\\b[^=]*=\\s*\\[`).exec(source);
  if (!match) throw new SourceEditError(`\`export const ${name} = [...]\` was not found`);
  const open = match.index + match[0].length - 1;
  const close = matchingBracket(source, open);
  const items = source
    .slice(open + 1, close)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  if (items.includes(element)) return source;
  items.push(element);
  return `${source.slice(0, open + 1)}${items.join(', ')}${source.slice(close)}`;
}
