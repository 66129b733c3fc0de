import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { armature, childEnv, packedInstall, tempDir } from './support/packed-project.js';

// armature new --runtime bun|deno, installed from the packed tarballs with npm, then started as the
// README says: `npm start` (the runtime runs src/main.ts, no build), and the client command of
// "Connect a client", run from another folder. Bun and Deno are this package's pinned
// devDependencies, put on PATH under their own names as a user's install would.

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const BINARIES = { bun: join(packageDir('bun'), 'bin', 'bun.exe'), deno: join(packageDir('deno'), 'deno') };

const base = tempDir('armature-e2e-runtime-');
const bin = join(base, 'bin');
mkdirSync(bin);
for (const [name, file] of Object.entries(BINARIES)) symlinkSync(file, join(bin, name));
const env = childEnv({ PATH: `${bin}:${process.env.PATH}` }) as Record<string, string>;

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** Lists and calls `greet` through the official client, then closes. */
async function greets(transport: StdioClientTransport | StreamableHTTPClientTransport): Promise<void> {
  const client = new Client({ name: 'e2e-runtime', version: '1.0.0' });
  await client.connect(transport);
  try {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['greet']);
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada', language: 'it' } });
    expect(result.structuredContent).toEqual({ greeting: 'Ciao, Ada!' });
  } finally {
    await client.close();
  }
}

describe.each(['bun', 'deno'] as const)('a project made by armature new --runtime %s (stdio), installed with npm', (runtime) => {
  it('serves the official client from npm start and from the README command, on the runtime', { timeout: 240_000 }, async () => {
    const name = `e2e-${runtime}`;
    const created = await armature(['new', name, '--runtime', runtime, '--pm', 'npm', '--yes', '--no-install'], base);
    expect(created.code, created.stderr).toBe(0);
    const root = join(base, name);
    await packedInstall(root, 'npm');

    await greets(new StdioClientTransport({ command: 'npm', args: ['start', '--silent'], cwd: root, env, stderr: 'pipe' }));

    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const config = /```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(config, 'README has the client configuration').toBeDefined();
    const server = JSON.parse(String(config).replaceAll(`/absolute/path/to/${name}`, root)).mcpServers[name] as {
      command: string;
      args: string[];
    };
    expect(server.command).toBe(runtime);
    await greets(new StdioClientTransport({ command: server.command, args: server.args, cwd: base, env, stderr: 'pipe' }));
  });
});

describe('a project made by armature new --runtime deno --transport http, installed with npm', () => {
  it('serves Streamable HTTP from npm start (deno run --allow-env --allow-net ...)', { timeout: 240_000 }, async () => {
    const created = await armature(
      ['new', 'e2e-deno-http', '--runtime', 'deno', '--transport', 'http', '--pm', 'npm', '--yes', '--no-install'],
      base,
    );
    expect(created.code, created.stderr).toBe(0);
    const root = join(base, 'e2e-deno-http');
    await packedInstall(root, 'npm');
    const server = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: { ...env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no endpoint line within 30 s:\n${output}`)), 30_000);
        const read = (chunk: Buffer) => {
          output += chunk.toString();
          const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
          if (found) {
            clearTimeout(timer);
            resolve(found);
          }
        };
        server.stdout.on('data', read);
        server.stderr.on('data', read);
        server.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
      });
      await greets(new StreamableHTTPClientTransport(new URL(url)));
    } finally {
      // npm start's process group: npm, its shell and deno.
      if (server.pid !== undefined && server.exitCode === null) process.kill(-server.pid, 'SIGKILL');
    }
  });
});
