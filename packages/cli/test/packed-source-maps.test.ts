import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { packWorkspace, run, tempDir } from './support/packed-project.js';

// A stack trace through an installed @armature package (node --enable-source-maps, a debugger)
// resolves only if every source a shipped map names is in the map (sourcesContent) or in the
// tarball. The packages ship dist/ only, so the maps carry their sources.

const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function mapsUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.map'))
    .map((entry) => join(entry.parentPath, entry.name));
}

it('every source map in every packed package resolves to its sources', async () => {
  const tarballs = await packWorkspace();
  const unresolved: string[] = [];
  let maps = 0;
  for (const [name, tarball] of Object.entries(tarballs)) {
    const dir = tempDir(`armature-unpacked-${name}-`);
    dirs.push(dir);
    const untar = await run('tar', ['-xzf', tarball, '-C', dir], dir);
    expect(untar.code, untar.stderr).toBe(0);
    for (const file of mapsUnder(join(dir, 'package'))) {
      maps += 1;
      const map = JSON.parse(readFileSync(file, 'utf8')) as {
        sources: string[];
        sourceRoot?: string;
        sourcesContent?: Array<string | null>;
      };
      map.sources.forEach((source, index) => {
        const inline = typeof map.sourcesContent?.[index] === 'string';
        if (!inline && !existsSync(resolve(dirname(file), map.sourceRoot ?? '', source))) {
          unresolved.push(`${name}: ${file.slice(dir.length + 1)} -> ${source}`);
        }
      });
    }
  }
  expect(maps).toBeGreaterThan(10);
  expect(unresolved.slice(0, 10)).toEqual([]);
}, 180_000);
