/**
 * Bun and Deno as installed by `pnpm install` (the pinned `bun` and `deno` devDependencies; their
 * postinstall, allowed in pnpm-workspace.yaml, puts the native binary in the package), and how each
 * runs a built entry: the exact commands docs/runtimes.md shows.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HttpServer, killStarted, startServerProcess } from '../../../conformance-server/test/support/processes.js';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** The conformance server, built (`node dist/main.js [--stdio]`): stdio, and HTTP on node:http. */
export const CONFORMANCE_MAIN = fileURLToPath(new URL('../../../conformance-server/dist/main.js', import.meta.url));
/** This package's entry: the same app on Bun.serve / Deno.serve. */
export const NATIVE_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface Runtime {
  readonly name: 'bun' | 'deno';
  readonly binary: string;
  /** The argv that runs a built JavaScript entry with `args`. */
  run(entry: string, ...args: string[]): [string, ...string[]];
}

function binary(path: string, name: string): string {
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: ${name}'s postinstall did not run (pnpm-workspace.yaml must allow its build)`);
  }
  return path;
}

export function runtimes(): Runtime[] {
  const bun = binary(join(packageDir('bun'), 'bin', 'bun.exe'), 'bun');
  const deno = binary(join(packageDir('deno'), 'deno'), 'deno');
  return [
    { name: 'bun', binary: bun, run: (entry, ...args) => [bun, entry, ...args] },
    // Environment access for the app's dependencies (debug reads every variable); reading files for
    // the skills the conformance server serves (read once at start-up); the network for HTTP only.
    {
      name: 'deno',
      binary: deno,
      run: (entry, ...args) => [
        deno,
        'run',
        '--allow-env',
        '--allow-read',
        ...(args.includes('--stdio') ? [] : ['--allow-net=127.0.0.1']),
        entry,
        ...args,
      ],
    },
  ];
}

/** Starts `argv` with PORT=0 and waits for the `MCP endpoint at URL` line it prints. */
export function startHttpServer(argv: readonly [string, ...string[]], timeoutMs = 20_000): Promise<HttpServer> {
  return startServerProcess(argv, { timeoutMs, env: { NO_COLOR: '1' } });
}

export { type HttpServer, killStarted };
