import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DOCS_ROOT } from './support/markdown-includes.js';

// The picture of a tools/call's path in docs/architecture.md names modules of packages/core/src by
// folder (and sub-folder) and file: each must exist, so the picture cannot drift from the folders it shows.
it('names only modules that exist in the request path picture', () => {
  const picture = readFileSync(join(DOCS_ROOT, 'examples/architecture/request-path.txt'), 'utf8');
  // Folder/module names; a method name (tools/call) is not a module.
  const named = [...picture.matchAll(/\b[a-z]+(?:\/[a-z][a-z-]*)+\b/g)].map((m) => m[0]).filter((name) => name !== 'tools/call');
  expect(named.length).toBeGreaterThanOrEqual(10);
  const src = join(DOCS_ROOT, '..', 'packages', 'core', 'src');
  expect(named.filter((module) => !existsSync(join(src, `${module}.ts`)))).toEqual([]);
});
