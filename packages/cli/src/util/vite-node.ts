import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export class ViteNodeMissingError extends Error {
  constructor(root: string) {
    super(
      `vite-node is not installed in ${root}. armature dev and inspect run the TypeScript sources with it, because ` +
        'tsx and esbuild emit no decorator metadata (DTO parameter types and constructor injection would be lost).\n' +
        'Fix: npm install --save-dev vite-node@6.0.0 vite@8.3.8',
    );
    this.name = 'ViteNodeMissingError';
  }
}

/**
 * Set by `armature dev` to the fd on which the runner writes one line once the entry has been
 * evaluated (the server is up); unset, the runner writes nothing (`inspect`).
 */
export const READY_FD_ENV = 'ARMATURE_DEV_READY_FD';

/** The script that runs an entry under vite-node with Node's own package resolution (see vite-node-runner.ts). */
export const VITE_NODE_RUNNER = fileURLToPath(new URL('./vite-node-runner.js', import.meta.url));

/** The folder of the vite-node package to use: the project's own pinned copy first, then the CLI's. */
export function resolveViteNode(root: string): string {
  const bases = [join(root, 'package.json'), fileURLToPath(import.meta.url)];
  for (const base of bases) {
    try {
      const dir = dirname(createRequire(base).resolve('vite-node/package.json'));
      if (existsSync(join(dir, 'dist', 'server.mjs'))) return dir;
    } catch {
      // not resolvable from this base; try the next
    }
  }
  throw new ViteNodeMissingError(root);
}

/**
 * `node <args>` that runs `entry` (with `args` as its process.argv) under the project's vite-node.
 * The same runner serves `dev` and `inspect`, so both load packages exactly as `node dist/...` does.
 */
export function viteNodeArgs(root: string, entry: string, args: readonly string[] = []): string[] {
  return [VITE_NODE_RUNNER, resolveViteNode(root), entry, ...args];
}
