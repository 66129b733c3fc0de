import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { armature, childEnv, installedArmature, packedInstall, projectTests, run, tempDir } from './support/packed-project.js';

// The pnpm half of the first hour (the npm half is generated-project.e2e.test.ts, in its own file
// so the two installs run side by side): armature new --pm pnpm, the @armature packages installed
// from their packed tarballs, then the project's own scripts, inspect --strict and a real HTTP call.

describe('a project made by armature new --transport http, installed with pnpm', () => {
  it('typechecks, tests, inspects clean and serves Streamable HTTP from dist/main.js', async () => {
    const base = tempDir('armature-e2e-http-');
    try {
      const created = await armature(['new', 'e2e-http', '--transport', 'http', '--pm', 'pnpm', '--yes', '--no-install'], base);
      expect(created.code, created.stderr).toBe(0);
      const root = join(base, 'e2e-http');
      await packedInstall(root, 'pnpm');
      for (const script of ['build', 'typecheck', 'lint']) {
        const result = await run('pnpm', ['run', script], root);
        expect(result.code, `pnpm run ${script}\n${result.stdout}${result.stderr}`).toBe(0);
      }
      const tests = await projectTests(root, 'pnpm');
      expect(tests.code, tests.stdout + tests.stderr).toBe(0);
      expect(Object.keys(tests.statuses).length).toBeGreaterThan(0);
      const inspect = await installedArmature(root, ['inspect', '--strict']);
      expect(inspect.code, inspect.stdout + inspect.stderr).toBe(0);
      expect(inspect.stdout).toContain('Lint: no findings');
      const server = spawn(process.execPath, ['dist/main.js'], {
        cwd: root,
        env: childEnv({ PORT: '0' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      try {
        const url = await new Promise<string>((found, fail) => {
          let text = '';
          const timer = setTimeout(() => fail(new Error(`no endpoint printed: ${text}`)), 30_000);
          server.stderr.on('data', (chunk) => {
            text += chunk;
            const match = /MCP endpoint: (\S+)/.exec(text);
            if (match) {
              clearTimeout(timer);
              found(match[1] as string);
            }
          });
        });
        const client = new Client({ name: 'e2e', version: '1.0.0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
        expect(result.structuredContent).toEqual({ greeting: 'Hello, Ada!' });
        await client.close();
      } finally {
        server.kill('SIGTERM');
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }, 240_000);
});
