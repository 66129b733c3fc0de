import type { Transport } from './project-files.js';
import { RUNTIME_TESTED } from './versions.js';

/**
 * What runs the server: Node (the tsc build, bundled), Bun or Deno (the TypeScript sources), or
 * Cloudflare Workers (the tsc build, bundled for workerd by `armature build --target workers`).
 */
export type Runtime = 'node' | 'bun' | 'deno' | 'workers';
export const RUNTIMES: readonly Runtime[] = ['node', 'bun', 'deno', 'workers'];

/**
 * How Bun or Deno runs the project's `src/main.ts` as it is: both transpile TypeScript with
 * decorator metadata when tsconfig.json sets experimentalDecorators and emitDecoratorMetadata.
 * Bun reads tsconfig.json from the current folder only, so a client starting it elsewhere passes
 * `--cwd`; Deno finds it beside the entry, and needs `--sloppy-imports` for the `./x.js`
 * specifiers of `./x.ts` files (NodeNext style) and permissions (core reads NODE_ENV; HTTP listens).
 */
export interface SourceRuntime {
  readonly title: string;
  readonly tested: string;
  /** The `dev` script: restart on every save. */
  readonly dev: string;
  /** The `start` script. */
  readonly start: string;
  /** The command a client runs to start the server, from any folder. */
  clientCommand(root: string): [string, ...string[]];
}

export function sourceRuntime(runtime: 'bun' | 'deno', transport: Transport): SourceRuntime {
  if (runtime === 'bun') {
    return {
      title: 'Bun',
      tested: RUNTIME_TESTED.bun,
      dev: 'bun --watch src/main.ts',
      start: 'bun src/main.ts',
      clientCommand: (root) => ['bun', '--cwd', root, 'src/main.ts'],
    };
  }
  const flags = ['--allow-env', ...(transport === 'http' ? ['--allow-net'] : []), '--sloppy-imports'];
  return {
    title: 'Deno',
    tested: RUNTIME_TESTED.deno,
    dev: `deno run --watch ${flags.join(' ')} src/main.ts`,
    start: `deno run ${flags.join(' ')} src/main.ts`,
    clientCommand: (root) => ['deno', 'run', ...flags, `${root}/src/main.ts`],
  };
}
