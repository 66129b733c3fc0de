import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

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

/** The vite-node CLI script, found from the project first (its own pinned copy), then from the CLI's. */
export function resolveViteNode(root: string): string {
  const bases = [join(root, 'package.json'), import.meta.url];
  for (const base of bases) {
    try {
      const manifest = createRequire(base).resolve('vite-node/package.json');
      const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> }).bin?.['vite-node'];
      const script = join(dirname(manifest), bin ?? 'dist/cli.mjs');
      if (existsSync(script)) return script;
    } catch {
      // not resolvable from this base; try the next
    }
  }
  throw new ViteNodeMissingError(root);
}
