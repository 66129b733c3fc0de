/**
 * The testing kit (@armature/testing) under the runtimes' own test runners, on the TypeScript
 * sources (this package's tsconfig.json has the decorator flags): `bun test` and `deno test` each
 * run a DTO check and the whole pipeline through the official client in memory, with a provider
 * replaced (test/runner-fixtures; tsc type-checks them, so deno test runs with --no-check).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runtimes } from './support/runtimes.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

/** The commands docs/runtimes.md shows, run in this package. */
const RUNNERS: Record<string, (binary: string) => string[]> = {
  bun: (bun) => [bun, 'test', './test/runner-fixtures/greeter.bun.ts'],
  deno: (deno) => [deno, 'test', '--no-check', '--allow-env', '--sloppy-imports', 'test/runner-fixtures/greeter.deno.ts'],
};

describe.each(runtimes())('$name test', (runtime) => {
  it('passes the three kit tests', () => {
    const [command, ...args] = RUNNERS[runtime.name]?.(runtime.binary) ?? [];
    // Deno colours its report whenever FORCE_COLOR is set, even to 0 (as .ci/run-tests.mjs sets it in CI).
    const { FORCE_COLOR: _force, ...env } = process.env;
    const run = spawnSync(command as string, args, { cwd: PACKAGE, encoding: 'utf8', timeout: 60_000, env: { ...env, NO_COLOR: '1' } });
    const output = run.stdout + run.stderr;
    expect(run.status, output).toBe(0);
    expect(output).toMatch(runtime.name === 'bun' ? /^ 3 pass\n 0 fail$/m : /^ok \| 3 passed \| 0 failed/m);
  });
});
