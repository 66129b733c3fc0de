import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';

// The bin `npm create armature@latest` runs, built (the root test command builds first).
const BIN = fileURLToPath(new URL('../dist/create-armature.js', import.meta.url));
const cwd = mkdtempSync(join(tmpdir(), 'create-armature-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const run = (...args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', npm_config_user_agent: 'pnpm/12.4.2 node/v20' },
  });

it('scaffolds a project without asking anything with --yes', () => {
  const result = run('my-server', '--yes', '--no-install');
  expect(result.status, result.stderr).toBe(0);
  const root = join(cwd, 'my-server');
  for (const file of [
    'package.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'vitest.config.ts',
    'biome.json',
    '.gitignore',
    'README.md',
    'src/main.ts',
    'src/app.ts',
    'src/my/my.server.ts',
    'src/my/dto/greet.input.ts',
    'src/my/dto/greet.output.ts',
    'test/my/my.server.test.ts',
    'test/my/dto/greet.input.test.ts',
    'test/my/my.pipeline.test.ts',
  ]) {
    expect(existsSync(join(root, file)), file).toBe(true);
  }
  expect(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name).toBe('my-server');
  // The package manager that ran `create` is the default (pnpm here, from npm_config_user_agent).
  expect(result.stdout).toContain('pnpm install');
});

it('refuses to overwrite the project it made, and says how to proceed', () => {
  const result = run('my-server', '--yes', '--no-install');
  expect(result.status).toBe(1);
  expect(result.stdout + result.stderr).toContain(
    'Nothing was written. Choose another name, empty the folder, or use --force to overwrite them.',
  );
});

it('prints its usage', () => {
  const result = run('--help');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('--transport stdio|http');
});
