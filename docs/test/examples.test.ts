import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DOCS_ROOT } from './support/markdown-includes.js';

// Every top-level example is a self-checking pair: main() serves the example, connects the official
// v2 client and throws when an output differs from what the guide claims.
const examples = readdirSync(join(DOCS_ROOT, 'examples'))
  .filter((name) => name.endsWith('.ts'))
  .sort();

it('there are examples to run', () => {
  expect(examples.length).toBeGreaterThan(0);
});

it.each(examples)('examples/%s checks itself', async (name) => {
  const module = (await import(join(DOCS_ROOT, 'examples', name))) as { main?: () => Promise<void> };
  expect(module.main, `examples/${name} exports main()`).toBeTypeOf('function');
  await (module.main as () => Promise<void>)();
});
