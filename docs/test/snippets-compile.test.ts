import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DOCS_ROOT, listPages, scanPage } from './support/markdown-includes.js';

// Each TypeScript block of every page compiled as a reader would paste it: the block alone, in a
// file of its own next to the example it comes from (so its relative imports resolve the way they
// would beside the reader's files), with the decorator flags of getting-started.md. A block that
// uses a name it neither declares nor imports fails; pages.test.ts already checks that each block
// equals its source, so this is about what the page shows. Regions show their imports with an
// `include: ...#name with-imports` marker.
//
// What a block may use without declaring it, and nothing else:
// - the reader's own `client` and `app` (READERS_OWN), made on getting-started.md;
// - in a block whose paragraph right before it says it continues (CONTINUES), the names declared
//   at the top level of the earlier TypeScript blocks of the same page, as if pasted below them.
//
// Left out, with their reason: performance.md and reliability.md show the benchmark's and the
// reliability app's own server fixtures (regions of apps/bench/src/servers/*.ts and
// apps/reliability/src/server/fixture.ts) as those files are, to say exactly what was measured, not
// code to paste; their imports and helpers are in those files, which are compiled and run there.
// runtimes.md shows the Bun.serve / Deno.serve calls of apps/runtimes/src/native-listener.ts as they
// are: they use Bun's and Deno's globals, which have no types in a Node project; apps/runtimes
// compiles that file (with its own declarations of those globals) and runs it under both runtimes.
export const PAGES_PASTED = listPages().filter((page) => !['performance.md', 'reliability.md', 'runtimes.md'].includes(page));

/**
 * Names a block may use as the reader's own, when it neither declares nor imports them: the
 * connected client ("Connecting a client") and the app (`const app = createMcpApp(...)`) of
 * getting-started.md.
 */
const READERS_OWN: Record<string, string> = {
  client: "import type { Client } from '@modelcontextprotocol/client';\ndeclare const client: Client;",
  app: "import type { McpApp } from '@armature/core';\ndeclare const app: McpApp;",
};

/** The paragraph before a block says the block goes on from the blocks above it. */
const CONTINUES = /\bcontinu(?:es|ing)\b/i;

const written: string[] = [];

/** A block that shows methods of a server class (a method after its decorators) is pasted into the reader's class. */
function asPasted(body: string): string {
  const lines = body.split('\n');
  const firstCode = lines.findIndex(
    (line) => line.trim() !== '' && !/^import\b/.test(line) && !/^\s*(?:\/\/|from\b|[\w{},\s]*\} from)/.test(line),
  );
  if (firstCode === -1) return body;
  const rest = lines.slice(firstCode);
  const firstNonDecorator = rest.find((line) => line.trim() !== '' && !line.trim().startsWith('@') && !line.trim().startsWith('//'));
  const isMethod = firstNonDecorator !== undefined && /^(?:async\s+)?[a-z_]\w*\s*\(/.test(firstNonDecorator.trim());
  if (!isMethod) return body;
  return [...lines.slice(0, firstCode), 'export class YourServer {', ...rest, '}'].join('\n');
}

/** A name used in a block, not as a property or inside a string (`...name` is a use). */
const uses = (body: string, name: string) => new RegExp(`(?<![\\w$'"])(?<![^.]\\.)${name}(?![\\w$'"])`).test(body);

/** The block declares or imports `name` itself (at any depth: a local shadows ours). */
function declares(body: string, name: string): boolean {
  return new RegExp(
    `(?:\\b(?:const|let|var|class|function|interface|type|enum)\\s+${name}\\b)|(?:\\b(?:const|let|var)\\s*\\{[^}]*\\b${name}\\b[^}]*\\})|(?:^import\\b[^;]*\\b${name}\\b[^;]*from)`,
    'm',
  ).test(body);
}

/** The names a block declares at its top level (column 0), as a later block pasted below it sees them. */
function topLevelNames(body: string): string[] {
  const names: string[] = [];
  for (const line of body.split('\n')) {
    const single = /^(?:export )?(?:declare )?(?:async )?(?:const|let|var|class|function|interface|type|enum) (\w+)/.exec(line);
    if (single) names.push(single[1] as string);
    const destructured = /^(?:export )?(?:const|let) \{ ([^}]+) \} =/.exec(line);
    if (destructured)
      for (const part of (destructured[1] as string).split(',')) names.push((part.split(':').pop() as string).replace('...', '').trim());
  }
  return names.filter((name) => /^\w+$/.test(name));
}

/** The paragraph right before line `line` (1-based) of a page: the prose that introduces its block. */
function paragraphBefore(page: string, line: number): string {
  const lines = readFileSync(join(DOCS_ROOT, page), 'utf8').split('\n');
  let end = line - 1; // the marker's index
  while (end > 0 && (lines[end - 1] as string).trim() === '') end--;
  let start = end;
  while (start > 0 && (lines[start - 1] as string).trim() !== '') start--;
  return lines.slice(start, end).join(' ');
}

afterAll(() => {
  for (const file of written) rmSync(file, { force: true });
});

it('compiles every TypeScript block of every page (but the three above) as pasted', () => {
  const snippets = new Map<string, string>();
  for (const page of PAGES_PASTED) {
    const earlier: Array<{ file: string; names: string[]; body: string; continued: Set<string> }> = [];
    for (const marker of scanPage(page).markers) {
      if (marker.language !== 'ts') continue;
      const file = join(DOCS_ROOT, dirname(marker.file), `.pasted-${page.replace(/\.md$/, '')}-${marker.line}.ts`);
      const body = asPasted(marker.body);
      const prelude: string[] = [];
      const free = (name: string) => uses(marker.body, name) && !declares(marker.body, name);
      if (CONTINUES.test(paragraphBefore(page, marker.line))) {
        const taken = new Set<string>();
        for (const block of [...earlier].reverse()) {
          const names = block.names.filter((name) => !taken.has(name) && free(name));
          for (const name of names) {
            taken.add(name);
            block.continued.add(name);
          }
          let from = relative(dirname(file), block.file).replace(/\.ts$/, '.js');
          if (!/^\.\.?\//.test(from)) from = `./${from}`;
          if (names.length > 0) prelude.push(`import { ${names.join(', ')} } from '${from}';`);
        }
      }
      for (const [name, declaration] of Object.entries(READERS_OWN))
        if (free(name) && !prelude.some((line) => new RegExp(`\\b${name}\\b`).test(line))) prelude.push(declaration);
      earlier.push({ file, names: topLevelNames(body), body: `${prelude.join('\n')}\n${body}\n`, continued: new Set() });
      snippets.set(relative(DOCS_ROOT, file), `${page}:${marker.line} (${marker.file}${marker.key ? `#${marker.key}` : ''})`);
    }
    // The names a later block continues with are exported by the block that declares them.
    for (const block of earlier) {
      const exported = [...block.continued].filter(
        (name) => !new RegExp(`^export (?:declare )?(?:async )?\\w+ ${name}\\b`, 'm').test(block.body),
      );
      writeFileSync(block.file, `${block.body}${exported.length > 0 ? `export { ${exported.join(', ')} };\n` : ''}`);
      written.push(block.file);
    }
  }
  expect(snippets.size).toBeGreaterThan(5);
  const config = join(DOCS_ROOT, '.pasted-tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: './tsconfig.json',
      // Every pasted block is a module of its own, as a file of the reader's project is.
      compilerOptions: { noEmit: true, moduleDetection: 'force', noUnusedLocals: false },
      include: [],
      files: [...snippets.keys()],
    }),
  );
  written.push(config);
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', config, '--pretty', 'false'], { cwd: DOCS_ROOT, encoding: 'utf8' });
  const problems = `${result.stdout}${result.stderr}`
    .split('\n')
    .filter((line) => /^\S.*\.ts\(\d+,\d+\): error/.test(line))
    .map((line) => {
      const file = line.slice(0, line.indexOf('('));
      return `${snippets.get(file) ?? file}: ${line.slice(line.indexOf(': error') + 2)}`;
    });
  expect(problems).toEqual([]);
}, 120_000);
