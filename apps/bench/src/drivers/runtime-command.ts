// The command that runs a built server entry on Node, Bun or Deno. Bun and Deno are this package's
// pinned devDependencies (the `bun` and `deno` npm packages, whose postinstall puts the binary there).
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type Runtime = 'node' | 'bun' | 'deno';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** `[command, ...args]` running `file` with `args` on `runtime`; Deno gets the environment and, for HTTP, loopback. */
export function runtimeArgv(runtime: Runtime, file: string, args: readonly string[] = []): [string, ...string[]] {
  if (runtime === 'bun') return [join(packageDir('bun'), 'bin', 'bun.exe'), file, ...args];
  if (runtime === 'deno') return [join(packageDir('deno'), 'deno'), 'run', '--allow-env', '--allow-net=127.0.0.1', file, ...args];
  return [process.execPath, file, ...args];
}
