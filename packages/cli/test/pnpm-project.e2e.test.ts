import { spawn } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { armature, childEnv, installedArmature, packedInstall, projectTests, run, tempDir } from './support/packed-project.js';

// The pnpm half of the first hour (the npm half is generated-project.e2e.test.ts, in its own file
// so the two installs run side by side): armature new --pm pnpm, the @armature packages installed
// from their packed tarballs, then the project's own scripts, inspect --strict and a real HTTP call.

describe('a project made by armature new --transport http, installed with pnpm', () => {
  it('typechecks, tests, inspects clean and serves Streamable HTTP from dist/main.js and from its armature build bundle', async () => {
    const base = tempDir('armature-e2e-http-');
    try {
      const created = await armature(['new', 'e2e-http', '--transport', 'http', '--pm', 'pnpm', '--yes', '--no-install'], base);
      expect(created.code, created.stderr).toBe(0);
      const root = join(base, 'e2e-http');
      await packedInstall(root, 'pnpm');
      // A tool with a hand-written schema: core loads Ajv for it at start-up, from its own folder,
      // which the bundle must still find in pnpm's layout.
      const serverFile = join(root, 'src/e2e-http/e2e-http.server.ts');
      const source = readFileSync(serverFile, 'utf8');
      writeFileSync(
        serverFile,
        source.replace(
          /\n}\n$/,
          `
  @Tool({
    description: 'Add one to a number. Use it when asked for the number after another.',
    annotations: { readOnlyHint: true },
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number', description: 'The number to add one to' } },
      required: ['a'],
      additionalProperties: false,
    },
  })
  add(input: { a: number }) {
    return { sum: input.a + 1 };
  }
}
`,
        ),
      );
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
      const built = await installedArmature(root, ['build']);
      expect(built.code, built.stdout + built.stderr).toBe(0);
      // Moved away from node_modules, the bundle (its folder: main.mjs and the files of the
      // libraries it loads lazily) cannot load Ajv for the hand-written schema: start-up says so
      // (ARM122), not that the schema is invalid.
      const moved = join(base, 'moved');
      cpSync(join(root, 'dist/bundle'), moved, { recursive: true });
      const away = await run(process.execPath, ['main.mjs'], moved, 30_000);
      expect(away.code).toBe(1);
      expect(away.stderr).toContain(
        "1. E2eHttpServer.add: `inputSchema` is checked with Ajv, which could not be loaded: Cannot find module 'ajv/dist/2020.js' [ARM122]\n" +
          '     Fix: install the dependencies of @armature/core again (it depends on ajv and ajv-formats); a bundle made by armature build runs next to the node_modules it was built from',
      );
      // The compiled server, then its bundle (pnpm's layout: nothing hoisted, so every import the
      // bundle leaves to node_modules must resolve from the files it came from).
      for (const entry of ['dist/main.js', 'dist/bundle/main.mjs']) {
        const server = spawn(process.execPath, [entry], {
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
              const match = /listening on (\S+)/.exec(text);
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
          expect(await client.callTool({ name: 'add', arguments: { a: 1 } })).toMatchObject({ structuredContent: { sum: 2 } });
          const refused = await client.callTool({ name: 'add', arguments: { a: 'one' } });
          expect(refused).toMatchObject({
            isError: true,
            content: [{ type: 'text', text: 'Invalid arguments for tool "add":\na: must be number' }],
          });
          await client.close();
        } finally {
          server.kill('SIGTERM');
        }
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }, 240_000);
});
