/**
 * TypeScript sources run as they are (no tsc) by Bun and Deno: both transpile them with decorator
 * metadata when the project's tsconfig.json sets `experimentalDecorators` and
 * `emitDecoratorMetadata` (Deno also needs `--sloppy-imports` for the `./x.js` specifiers of
 * `./x.ts` files that tsc/NodeNext projects write). Each case is a fresh project folder: the
 * fixture's sources, a package.json, the tsconfig.json under test, and this package's node_modules.
 * Without `emitDecoratorMetadata` the server refuses to start and says what is missing, naming each
 * class and method (ARM200, ARM400); without `experimentalDecorators`, it names the standard
 * decorators and the fix (ARM127).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { runtimes } from './support/runtimes.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/greeter', import.meta.url));
const NODE_MODULES = fileURLToPath(new URL('../node_modules', import.meta.url));
const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A project folder holding the fixture's sources in src/, with `compilerOptions` as its tsconfig.json's. */
function project(compilerOptions: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), 'armature-ts-sources-'));
  folders.push(root);
  cpSync(FIXTURE, join(root, 'src'), { recursive: true });
  symlinkSync(NODE_MODULES, join(root, 'node_modules'), 'dir');
  const dependencies = { '@armature/core': '*', 'class-validator': '*', typedi: '*' };
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'greeter', private: true, type: 'module', dependencies }));
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions }));
  return root;
}

/** How each runtime runs `src/main.ts` (the commands docs/runtimes.md shows). */
const SOURCE_RUN: Record<string, (binary: string) => string[]> = {
  bun: (bun) => [bun, 'src/main.ts'],
  deno: (deno) => [deno, 'run', '--allow-env', '--sloppy-imports', 'src/main.ts'],
};

describe.each(runtimes())('$name runs src/main.ts', (runtime) => {
  const [command, ...args] = SOURCE_RUN[runtime.name]?.(runtime.binary) ?? [];
  /** Runs the project made with `compilerOptions` to its exit (it is expected to refuse to start). */
  const startRefused = (compilerOptions: Record<string, unknown>) =>
    spawnSync(command as string, args, {
      cwd: project(compilerOptions),
      input: '',
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, NO_COLOR: '1' },
    });

  it('with experimentalDecorators and emitDecoratorMetadata: the DTO schema and constructor injection work', async () => {
    const cwd = project({ experimentalDecorators: true, emitDecoratorMetadata: true });
    const client = new Client({ name: 'ts-sources', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: command as string, args, cwd, stderr: 'pipe' }));
    try {
      const { tools } = await client.listTools();
      expect(tools).toEqual([
        expect.objectContaining({
          name: 'greet',
          inputSchema: expect.objectContaining({ properties: { name: expect.objectContaining({ type: 'string', minLength: 1 }) } }),
        }),
      ]);
      expect((await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).content).toEqual([
        { type: 'text', text: 'Hello, Ada!' },
      ]);
      const invalid = await client.callTool({ name: 'greet', arguments: { name: '' } });
      expect(invalid.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('without emitDecoratorMetadata: refuses to start, naming each class and method and the missing setting', () => {
    const run = startRefused({ experimentalDecorators: true });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('GreeterServer.greet: no decorator metadata was emitted for this method');
    expect(run.stderr).toContain('[ARM200]');
    expect(run.stderr).toContain('GreeterServer: the constructor takes 1 parameter(s) but no decorator metadata was emitted');
    expect(run.stderr).toContain('[ARM400]');
    expect(run.stderr).toContain('"emitDecoratorMetadata": true');
  });

  it('with neither setting: names the standard decorators and the fix (ARM127), not a crash inside class-validator', () => {
    const run = startRefused({});
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/was called as a standard \(TC39\) decorator, .* \[ARM127\]/);
    expect(run.stderr).toContain('Fix: set "experimentalDecorators": true and "emitDecoratorMetadata": true');
    expect(run.stderr).not.toMatch(/reading 'constructor'|evaluating 'object\.constructor'/);
  });
});
