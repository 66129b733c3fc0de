import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DOCS_ROOT, listPages, scanPage } from './support/markdown-includes.js';

// Each TypeScript block of these pages compiled as a reader would paste it: the block alone, in a
// file of its own next to the example it comes from (so its relative imports resolve the way they
// would beside the reader's files), with the decorator flags of getting-started.md. A block that
// uses a name it neither declares nor imports fails; pages.test.ts already checks that each block
// equals its source, so this is about what the page shows. Regions show their imports with an
// `include: ...#name with-imports` marker. The pages not listed are not checked yet: cli.md shows
// calls of the CLI's functions inside a larger flow; nestjs.md (43 errors: its regions show no
// imports) and the other guides belong to other areas and can join by adding the markers.
export const PAGES_PASTED = listPages();

const written: string[] = [];

/** A block that shows methods of a server class (a method after its decorators) is pasted into the reader's class. */
function asPasted(body: string): string {
  const lines = body.split('\n');
  const firstCode = lines.findIndex((line) => line.trim() !== '' && !/^import\b/.test(line) && !/^\s*(?:\/\/|from\b|[\w{},\s]*\} from)/.test(line));
  if (firstCode === -1) return body;
  const rest = lines.slice(firstCode);
  const firstNonDecorator = rest.find((line) => line.trim() !== '' && !line.trim().startsWith('@') && !line.trim().startsWith('//'));
  const isMethod = firstNonDecorator !== undefined && /^(?:async\s+)?[a-z_]\w*\s*\(/.test(firstNonDecorator.trim());
  if (!isMethod) return body;
  return [...lines.slice(0, firstCode), 'export class YourServer {', ...rest, '}'].join('\n');
}

afterAll(() => {
  for (const file of written) rmSync(file, { force: true });
});

it('compiles every TypeScript block of the listed pages as pasted', () => {
  const snippets = new Map<string, string>();
  for (const page of PAGES_PASTED) {
    for (const marker of scanPage(page).markers) {
      if (marker.language !== 'ts') continue;
      const file = join(DOCS_ROOT, dirname(marker.file), `.pasted-${page.replace(/\.md$/, '')}-${marker.line}.ts`);
      // `client`, in a block that does not make one, is the connected client the pages show first
      // (getting-started.md, "Connecting a client"): declared, as the reader's own is.
      const usesClient = /(?<![\w.])client\./.test(marker.body) && !/(?:const|let) (?:\{ )?client\b/.test(marker.body);
      const prelude = usesClient ? "import type { Client } from '@modelcontextprotocol/client';\ndeclare const client: Client;\n" : '';
      writeFileSync(file, `${prelude}${asPasted(marker.body)}\n`);
      written.push(file);
      snippets.set(relative(DOCS_ROOT, file), `${page}:${marker.line} (${marker.file}${marker.key ? `#${marker.key}` : ''})`);
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
