import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARMATURE_BIN, CLI_ROOT, childEnv, tempDir } from './support/packed-project.js';

// `armature dev` (the built bin) on entries that cannot start: what it prints is the problems and
// their fixes, then its own line, and nothing else (no stack, no second copy of the problems).
// The project borrows this package's node_modules (@armature/core, class-transformer, vite-node).

let root: string;

beforeAll(() => {
  expect(existsSync(ARMATURE_BIN), 'packages/cli is built').toBe(true);
  root = tempDir('armature-dev-startup-');
  symlinkSync(join(CLI_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  mkdirSync(join(root, 'src'));
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'broken', private: true, type: 'module', dependencies: { '@armature/core': '*' } }),
  );
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: true, useDefineForClassFields: false },
      include: ['src'],
    }),
  );
  writeFileSync(join(root, 'src', 'no-server.ts'), "import { createMcpApp } from '@armature/core';\n\ncreateMcpApp([]).listenStdio();\n");
  // A DTO file evaluated before anything imported @armature/core: @Type reads metadata at once.
  writeFileSync(
    join(root, 'src', 'reminder.dto.ts'),
    "import { Type } from 'class-transformer';\n\nexport class Reminder {\n  @Type(() => Date)\n  due!: Date;\n}\n",
  );
  writeFileSync(
    join(root, 'src', 'type-first.ts'),
    "import { Reminder } from './reminder.dto.js';\nimport { createMcpApp } from '@armature/core';\n\nexport const app = [createMcpApp, Reminder];\n",
  );
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Runs `armature dev <entry>` until it reports that the entry exited; its stderr lines. */
async function devLines(entry: string, env: Record<string, string> = {}): Promise<string[]> {
  const child = spawn(process.execPath, [ARMATURE_BIN, 'dev', entry], {
    cwd: root,
    env: childEnv(env),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const closed = new Promise((done) => child.once('close', done));
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const deadline = Date.now() + 60_000;
  while (!stderr.includes('the server exited') && Date.now() < deadline && child.exitCode === null)
    await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGTERM');
  await closed;
  return stderr.trimEnd().split('\n');
}

describe('armature dev when the server cannot start', () => {
  it('prints the problems with their codes and fixes, once, without a stack', async () => {
    expect(await devLines('src/no-server.ts')).toEqual([
      '[armature] dev: src/no-server.ts with vite-node, restarting on changes in src, tsconfig.json, package.json',
      'Armature cannot start the MCP server: 1 problem in the decorated classes.',
      '  1. createMcpApp: no server class was given [ARM100]',
      '     Fix: createMcpApp(MyServer) or createMcpApp([A, B])',
      '[armature] the server exited (code 1); waiting for a change to restart',
    ]);
  }, 90_000);

  it('adds the stack with ARMATURE_DEBUG=1', async () => {
    const lines = await devLines('src/no-server.ts', { ARMATURE_DEBUG: '1' });
    expect(lines).toContain('  1. createMcpApp: no server class was given [ARM100]');
    expect(lines.filter((line) => /^\s+at /.test(line)).length).toBeGreaterThan(1);
  }, 90_000);

  it('names the cause and the fix when @Type runs before @armature/core is loaded', async () => {
    const lines = await devLines('src/type-first.ts');
    expect(lines).toHaveLength(5);
    expect(lines[1]).toBe('Armature cannot start the MCP server: 1 problem while loading the entry.');
    expect(lines[2]).toMatch(
      /^ {2}1\. start-up: Reflect\.getMetadata is not a function \(at \S*src\/reminder\.dto\.ts:\d+:\d+\): a decorator such as class-transformer's @Type ran before anything imported @armature\/core, which loads reflect-metadata \[ARM125\]$/,
    );
    expect(lines[3]).toBe(
      "     Fix: import '@armature/core' first in the entry file (src/main.ts), or at the top of the file that declares the DTO",
    );
    expect(lines[4]).toBe('[armature] the server exited (code 1); waiting for a change to restart');
  }, 90_000);
});

describe('armature inspect loads the entry as node does', () => {
  it('names the cause and the fix when @Type runs before @armature/core is loaded (ARM125), as dev and node do', async () => {
    const child = spawn(process.execPath, [ARMATURE_BIN, 'inspect', 'src/type-first.ts'], {
      cwd: root,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const code = await new Promise((done) => child.once('close', done));
    expect(code).not.toBe(0);
    expect(output).toMatch(/Reflect\.getMetadata is not a function \(at \S*src\/reminder\.dto\.ts:\d+:\d+\): .* \[ARM125\]/);
    expect(output).toContain("Fix: import '@armature/core' first in the entry file (src/main.ts)");
  }, 90_000);
});
