import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_ROOT, enginesOutside, run, tempDir } from './support/packed-project.js';

// `npm install @armature/openapi`, as a user of Node 20 runs it: from the packed tarball (workspace
// ranges resolved), its dependencies from the registry. npm warns EBADENGINE when a dependency
// wants a newer Node (swagger-parser 13.1.0 wanted 22.19); and every installed package's engines
// must cover the range @armature/openapi declares, so that range is true on every Node it names.

const OPENAPI_ROOT = join(CLI_ROOT, '..', 'openapi');

describe('@armature/openapi installed with npm', () => {
  it('prints no EBADENGINE, and its engines are covered by every package it installs', async () => {
    const dir = tempDir('armature-openapi-install-');
    try {
      const packed = await run('pnpm', ['pack', '--pack-destination', dir], OPENAPI_ROOT, 60_000);
      const tarball = packed.stdout.trim().split('\n').pop() ?? '';
      expect(tarball, packed.stdout + packed.stderr).toMatch(/\.tgz$/);
      const project = join(dir, 'project');
      mkdirSync(project);
      writeFileSync(
        join(project, 'package.json'),
        `${JSON.stringify({ private: true, dependencies: { '@armature/openapi': `file:${tarball.startsWith('/') ? tarball : join(dir, tarball)}` } }, null, 2)}\n`,
      );
      const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], project, 180_000);
      expect(install.code, install.stdout + install.stderr).toBe(0);
      expect(install.stdout + install.stderr).not.toContain('EBADENGINE');
      const declared = (JSON.parse(readFileSync(join(OPENAPI_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
      expect(enginesOutside(project, declared)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
