import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ARMATURE_BIN, childEnv, tempDir } from './support/packed-project.js';

// `armature dev` (the built bin) on a tiny project whose entry appends the value it imported to
// log.txt, outside the watched src/. Every kind of save must restart it, and each restart must be
// announced once the new server is up. Each wait is bounded; none measures time.

let root: string;

beforeAll(() => {
  expect(existsSync(ARMATURE_BIN), 'packages/cli is built').toBe(true);
  root = tempDir('armature-dev-watch-');
  mkdirSync(join(root, 'src'));
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'watched', private: true, type: 'module', dependencies: { '@armature/core': '*' } }),
  );
  writeFileSync(join(root, 'src', 'value.ts'), "export const value = 'v0';\n");
  writeFileSync(
    join(root, 'src', 'main.ts'),
    [
      "import { appendFileSync } from 'node:fs';",
      "import { value } from './value.js';",
      '',
      "appendFileSync(new URL('../log.txt', import.meta.url), value + '\\n');",
      "appendFileSync(new URL('../env.txt', import.meta.url), String(process.env.ARMATURE_EXPOSE_ERRORS) + '\\n');",
      'setInterval(() => undefined, 60_000);',
      '',
    ].join('\n'),
  );
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

async function until(what: string, check: () => boolean, output: () => string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; armature dev printed:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

it('restarts on saves by rename (several in a row), writes, delete and re-create, and new files, naming the real file', async () => {
  const child = spawn(process.execPath, [ARMATURE_BIN, 'dev'], { cwd: root, env: childEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const log = () => (existsSync(join(root, 'log.txt')) ? readFileSync(join(root, 'log.txt'), 'utf8').trim().split('\n') : []);
  const value = join(root, 'src', 'value.ts');
  let ups = 0;
  /** Waits for the next "up again" line and for the restarted entry to have logged `expected`. */
  const restarted = async (expected: string) => {
    ups += 1;
    await until(
      `restart ${ups}`,
      () => count(stderr, '[armature] the server is up again') >= ups,
      () => stderr,
    );
    await until(
      `log ${expected}`,
      () => log().at(-1) === expected,
      () => `${stderr}\nlog.txt: ${log().join(',')}`,
    );
  };
  try {
    await until(
      'the first start',
      () => stderr.includes('[armature] the server is up\n'),
      () => stderr,
    );
    expect(log()).toEqual(['v0']);
    // Callers of the dev server read the messages of unexpected errors: core's exposeErrors defaults to true.
    expect(readFileSync(join(root, 'env.txt'), 'utf8')).toBe('1\n');

    // An editor's atomic save (and sed -i): write a temporary file, rename it over the real one.
    for (const version of ['v1', 'v2', 'v3', 'v4']) {
      writeFileSync(join(root, 'src', '.value.ts.tmp'), `export const value = '${version}';\n`);
      renameSync(join(root, 'src', '.value.ts.tmp'), value);
      await restarted(version);
    }
    expect(count(stderr, '[armature] src/value.ts changed: restarting')).toBe(4);
    expect(stderr).not.toContain('.tmp');

    // A plain write, after the renames: the replaced file is still watched.
    writeFileSync(value, "export const value = 'v5';\n");
    await restarted('v5');

    // Delete, then create again.
    unlinkSync(value);
    await until(
      'the restart after the delete',
      () => count(stderr, 'changed: restarting') >= 6,
      () => stderr,
    );
    writeFileSync(value, "export const value = 'v6';\n");
    await until(
      'log v6',
      () => log().at(-1) === 'v6',
      () => `${stderr}\nlog.txt: ${log().join(',')}`,
    );

    // A new file in a new folder, imported by an edit of value.ts.
    const upsBefore = count(stderr, '[armature] the server is up again');
    mkdirSync(join(root, 'src', 'more'));
    writeFileSync(join(root, 'src', 'more', 'extra.ts'), "export const extra = 'v7';\n");
    await until(
      'the restart for the new file',
      () => stderr.includes('src/more/extra.ts changed: restarting'),
      () => stderr,
    );
    await until(
      'the server up after the new file',
      () => count(stderr, '[armature] the server is up again') > upsBefore,
      () => stderr,
    );
    writeFileSync(value, "export { extra as value } from './more/extra.js';\n");
    await until(
      'log v7',
      () => log().at(-1) === 'v7',
      () => `${stderr}\nlog.txt: ${log().join(',')}`,
    );
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('close', r));
    }
  }
}, 180_000);
