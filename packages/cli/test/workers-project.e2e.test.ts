import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Miniflare } from 'miniflare';
import { afterAll, describe, expect, it } from 'vitest';
import { armature, packedInstall, projectTests, run, tempDir } from './support/packed-project.js';

// armature new --runtime workers, installed from the packed tarballs with npm, built and tested
// with its own scripts, then its bundle served as its wrangler.toml says by miniflare (workerd,
// the Workers runtime; wrangler dev serves the same module with the same settings) on 127.0.0.1.

const base = tempDir('armature-e2e-workers-');

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** A `key = value` line of the project's wrangler.toml, its value read as JSON (strings, arrays, booleans). */
function wranglerSetting(toml: string, key: string): unknown {
  const value = new RegExp(`^${key} = (.+)$`, 'm').exec(toml)?.[1];
  if (value === undefined) throw new Error(`wrangler.toml has no ${key}:\n${toml}`);
  return JSON.parse(value);
}

describe('a project made by armature new --runtime workers, installed with npm', () => {
  it('builds, typechecks, lints, passes its tests, and its Worker serves the client on 2026-07-28', { timeout: 300_000 }, async () => {
    const created = await armature(['new', 'e2e-workers', '--runtime', 'workers', '--pm', 'npm', '--yes', '--no-install'], base);
    expect(created.code, created.stderr).toBe(0);
    const root = join(base, 'e2e-workers');
    await packedInstall(root, 'npm');

    for (const script of ['build', 'typecheck', 'lint']) {
      const result = await run('npm', ['run', script], root, 180_000);
      expect(result.code, `npm run ${script}:\n${result.stdout}\n${result.stderr}`).toBe(0);
    }
    const tests = await projectTests(root, 'npm');
    expect(tests.code, `${tests.stdout}\n${tests.stderr}`).toBe(0);
    expect(Object.values(tests.statuses).length).toBeGreaterThan(0);
    expect(Object.values(tests.statuses).every((status) => status === 'passed')).toBe(true);

    const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
    expect(wranglerSetting(toml, 'no_bundle')).toBe(true);
    const worker = new Miniflare({
      // Listed rather than scanned, as wrangler's no_bundle uploads it: miniflare's scan refuses the
      // bundle's computed import() of an optional package, which stays a runtime import.
      modules: [{ type: 'ESModule', path: join(root, wranglerSetting(toml, 'main') as string) }],
      // Module names are paths from here: the project, as wrangler runs in it (not this test's folder).
      modulesRoot: root,
      compatibilityDate: wranglerSetting(toml, 'compatibility_date') as string,
      compatibilityFlags: wranglerSetting(toml, 'compatibility_flags') as string[],
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const endpoint = new URL('/mcp', await worker.ready);
      const client = new Client({ name: 'e2e-workers', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(endpoint));
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet']);
        const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada', language: 'it' } });
        expect(result.structuredContent).toEqual({ greeting: 'Ciao, Ada!' });
      } finally {
        await client.close();
      }
    } finally {
      await worker.dispose();
    }
  });
});
