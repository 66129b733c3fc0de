// The command that runs a built server entry on Node, Bun or Deno. Bun and Deno are this package's
// pinned devDependencies (the `bun` and `deno` npm packages, whose postinstall puts the binary there).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type Runtime = 'node' | 'bun' | 'deno';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/**
 * Flags for every server Node runs, from `BENCH_NODE_FLAGS` (space-separated): e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` profiles the servers, which Node 20 refuses in `NODE_OPTIONS`.
 */
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');

/** `[command, ...args]` running `file` with `args` on `runtime`; Deno gets the environment and, for HTTP, loopback. */
export function runtimeArgv(runtime: Runtime, file: string, args: readonly string[] = []): [string, ...string[]] {
  if (runtime === 'bun') return [join(packageDir('bun'), 'bin', 'bun.exe'), file, ...args];
  if (runtime === 'deno') return [join(packageDir('deno'), 'deno'), 'run', '--allow-env', '--allow-net=127.0.0.1', file, ...args];
  return [process.execPath, ...nodeFlags, file, ...args];
}
