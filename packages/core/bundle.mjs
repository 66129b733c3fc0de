// Second step of `pnpm build`, after tsc: joins the ESM modules tsc wrote into dist/ into one
// dist/index.js. Node 20 has no compile cache, so every module of a package is resolved, read and
// linked at each start; one file instead of about ninety saves about half of @armature/core's load
// time at a cold start (measured: 65-74 ms -> 31-34 ms, 0.7 MB less resident). The declarations
// tsc wrote (dist/**/*.d.ts) stay as they are: the package's exports and types do not change.
// Dependencies stay imports (nothing from node_modules is copied in).
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const dist = fileURLToPath(new URL('./dist/', import.meta.url));

const bundled = await build({
  input: join(dist, 'index.js'),
  platform: 'node',
  // Bare specifiers (dependencies, peer dependencies, node: built-ins) are the user's install's.
  external: (id) => !id.startsWith('.') && !id.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(id),
  // Every module keeps its top-level code: only unused exports are dropped.
  treeshake: { moduleSideEffects: true },
  write: false,
  output: {
    format: 'esm',
    sourcemap: true,
    // ASCII (a single non-ASCII character makes V8 hold and scan the module as two-byte text) and
    // no JSDoc (it is in the declarations): less to read at each start. Annotations stay, for the
    // bundlers that take this file in.
    charset: 'ascii',
    comments: { legal: true, annotation: true, jsdoc: false },
  },
});

// The per-module JavaScript tsc emitted is in the bundle now: remove it, keep the declarations.
for (const entry of await readdir(dist, { recursive: true, withFileTypes: true })) {
  if (entry.isFile() && (entry.name.endsWith('.js') || entry.name.endsWith('.js.map'))) {
    await rm(join(entry.parentPath, entry.name));
  }
}

const names = bundled.output.map((file) => file.fileName).sort();
if (names.join() !== 'index.js,index.js.map') throw new Error(`bundle.mjs: expected index.js and its map, got ${names.join(', ')}`);
for (const file of bundled.output) await writeFile(join(dist, file.fileName), file.type === 'chunk' ? file.code : file.source);
