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

// The nestjs template needs Node 22.12+ (Nest 12's engines): on the Node 20 that runs this, the bin
// refuses it. What it writes on a supported Node is tested in packages/cli (cli.test.ts).
it('refuses --template nestjs on Node 20 before writing anything, saying it needs Node 22.12 (Nest 12) and how to proceed', () => {
  expect(process.versions.node.split('.')[0]).toBe('20');
  const result = run('nest-server', '--template', 'nestjs', '--yes', '--no-install');
  expect(result.status).toBe(1);
  const output = result.stdout + result.stderr;
  expect(output).toContain('the nestjs template needs Node 22.12 or later, not 23 (engines ^22.12.0 || >=24.0.0)');
  expect(output).toContain(`this is Node ${process.versions.node}, where npm install warns EBADENGINE`);
  expect(output).toContain('Nothing was written. Fix: run create again with Node 22.12+ or 24');
  expect(output).toContain('or leave --template out: the default template runs on Node 20.19+.');
  expect(existsSync(join(cwd, 'nest-server'))).toBe(false);
});

it('prints its own usage with --help', () => {
  const result = run('--help');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('--transport stdio|http');
  expect(result.stdout).toContain('--template default|nestjs');
  expect(result.stdout).toMatch(/^create-armature \S+: a new Armature MCP server project/);
  expect(result.stdout).toContain('npm create armature@latest <name>');
  expect(result.stdout).not.toContain('armature generate');
});

it('does not call the project ready when its install failed, and exits 1', () => {
  const result = spawnSync(process.execPath, [BIN, 'offline-server', '--yes', '--pm', 'npm'], {
    cwd,
    encoding: 'utf8',
    // npm fails at once offline with an empty cache for @armature/core; nothing is fetched.
    env: { ...process.env, CI: 'true', npm_config_offline: 'true', npm_config_cache: join(cwd, 'empty-npm-cache') },
    timeout: 60_000,
  });
  expect(result.status).toBe(1);
  expect(result.stdout + result.stderr).not.toContain('is ready');
  expect(result.stdout + result.stderr).toContain(
    'OfflineServer is written in offline-server but its dependencies are not installed: run npm install there first.',
  );
});
