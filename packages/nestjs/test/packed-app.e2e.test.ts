import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, packedInstall, run, tempDir } from '../../cli/test/support/packed-project.js';

// A Nest backend with its own rules (test/fixtures/packed-nest-app), as a user's project gets it:
// @armature/core and @armature/nestjs from their packed tarballs, Nest and the rest from the
// registry, compiled by the project's tsc. The matrix is chosen, not exhaustive (the in-process
// app-rules test runs every rule on both adapters and revisions): each Nest line's lowest and
// newest release, each built once, as CommonJS or as an ES module (alternating), and served on
// Express and on Fastify, both revisions; the stdio check runs on one build of each line.

const FIXTURE = fileURLToPath(new URL('./fixtures/packed-nest-app', import.meta.url));
const SECRET = 'packed-app-secret';

interface Build {
  /** Nest's common/core/platform-express version, and platform-fastify's (not every release has one; 11.0.0 and 11.0.1 name Nest 10 as their peer). */
  readonly nest: string;
  readonly fastify: string;
  readonly format: 'module' | 'commonjs';
  /** nestjs-cls 7 is for Nest 12 (its ES module build deep-imports Nest 12's files); 6.3.1 for Nest 11. */
  readonly cls: string;
  /** npm for the Nest release whose @nestjs/core has an install script (pnpm would want it approved). */
  readonly pm: 'npm' | 'pnpm';
  readonly stdio: boolean;
}

const BUILDS: Build[] = [
  { nest: '11.0.0', fastify: '11.0.3', format: 'commonjs', cls: '6.3.1', pm: 'npm', stdio: true },
  { nest: '11.2.10', fastify: '11.2.8', format: 'module', cls: '6.3.1', pm: 'pnpm', stdio: false },
  { nest: '12.0.1', fastify: '12.0.1', format: 'module', cls: '7.0.0', pm: 'pnpm', stdio: false },
  { nest: '12.5.1', fastify: '12.5.0', format: 'commonjs', cls: '7.0.0', pm: 'pnpm', stdio: true },
];

function manifest(build: Build): Record<string, unknown> {
  return {
    name: 'packed-nest-app',
    private: true,
    type: build.format,
    scripts: { build: 'tsc -p tsconfig.json' },
    dependencies: {
      '@armature/core': '*',
      '@armature/nestjs': '*',
      '@nestjs/common': build.nest,
      '@nestjs/core': build.nest,
      '@nestjs/passport': '12.0.0',
      '@nestjs/platform-express': build.nest,
      '@nestjs/platform-fastify': build.fastify,
      'class-transformer': '0.5.1',
      'class-validator': '0.15.1',
      'nestjs-cls': build.cls,
      passport: '0.7.0',
      'passport-jwt': '4.0.1',
      'reflect-metadata': '0.2.2',
      rxjs: '7.8.2',
      typedi: '0.10.0',
    },
    devDependencies: { '@types/node': '20.19.43', '@types/passport-jwt': '4.0.1', typescript: '7.0.2' },
  };
}

/** Starts the built app on a free port; resolves with its base URL once it listens. */
function startHttp(root: string, platform: 'express' | 'fastify'): { child: ChildProcess; url: Promise<string> } {
  const env = childEnv({ PORT: '0', PLATFORM: platform, JWT_SECRET: SECRET });
  const child = spawn(process.execPath, ['dist/main.js'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = new Promise<string>((found, fail) => {
    let text = '';
    const timer = setTimeout(() => fail(new Error(`no endpoint printed: ${text}`)), 60_000);
    child.stderr?.on('data', (chunk) => {
      text += chunk;
      const match = /REST on (\S+),/.exec(text);
      if (match) {
        clearTimeout(timer);
        found(match[1] as string);
      }
    });
  });
  return { child, url };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const closed = new Promise((done) => child.once('close', done));
  child.kill('SIGTERM');
  await closed;
}

async function mcp(url: string, modern: boolean, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'packed-nest', version: '1' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return client;
}

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

describe.each(BUILDS)('a Nest $nest app built as $format, installed from the packed packages', (build) => {
  let base: string;
  let root: string;

  beforeAll(async () => {
    base = tempDir('armature-e2e-nest-rules-');
    root = join(base, 'app');
    cpSync(FIXTURE, root, { recursive: true });
    writeFileSync(join(root, 'package.json'), `${JSON.stringify(manifest(build), null, 2)}\n`);
    await packedInstall(root, build.pm);
    const built = await run(build.pm, ['run', 'build'], root);
    expect(built.code, built.stdout + built.stderr).toBe(0);
  }, 300_000);

  // Removing an installed project takes seconds on a busy machine.
  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  }, 60_000);

  it.each(['express', 'fastify'] as const)(
    'on %s, both revisions: the REST token, the global guard and filter, and CLS apply to MCP',
    async (platform) => {
      const server = startHttp(root, platform);
      try {
        const url = await server.url;
        const token = jwt.sign({ sub: 'alice' }, SECRET, { expiresIn: '5m' });
        const alice = { authorization: `Bearer ${token}`, 'x-request-id': 'req-7' };
        expect((await fetch(`${url}/bank/me`)).status).toBe(401);
        expect(await (await fetch(`${url}/bank/me`, { headers: alice })).json()).toEqual({ id: 'alice' });
        expect((await fetch(`${url}/bank/me`, { headers: { ...alice, 'x-blocked': 'yes' } })).status).toBe(403);
        for (const modern of [false, true]) {
          const anonymous = await mcp(url, modern, {});
          try {
            expect((await anonymous.listTools()).tools.map((tool) => tool.name)).toEqual(['ping']);
            await expect(anonymous.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow('Unknown tool: "whoami"');
          } finally {
            await anonymous.close();
          }
          const blocked = await mcp(url, modern, { ...alice, 'x-blocked': 'yes' });
          try {
            expect((await blocked.listTools()).tools).toEqual([]);
          } finally {
            await blocked.close();
          }
          const client = await mcp(url, modern, alice);
          try {
            expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['ping', 'transfer', 'whoami']);
            const whoami = (await client.callTool({ name: 'whoami', arguments: {} })) as ToolResult;
            expect(whoami.content).toEqual([{ type: 'text', text: 'user alice, request id req-7' }]);
            const transfer = (await client.callTool({ name: 'transfer', arguments: { to: 'bob', amount: 130 } })) as ToolResult;
            expect({ content: transfer.content, isError: transfer.isError }).toEqual({
              content: [{ type: 'text', text: 'Insufficient funds: 30 EUR missing' }],
              isError: true,
            });
          } finally {
            await client.close();
          }
        }
      } finally {
        await stop(server.child);
      }
    },
    60_000,
  );

  // Declared only for the builds that run it (a skipped test would read as one left out).
  if (!build.stdio) return;
  it('over stdio, both revisions: the header-reading guards deny cleanly', async () => {
    for (const modern of [false, true]) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['dist/main.js', '--stdio'],
        cwd: root,
        env: childEnv({ JWT_SECRET: SECRET }) as Record<string, string>,
        stderr: 'pipe',
      });
      const stderr: string[] = [];
      transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
      const client = new Client({ name: 'packed-nest-stdio', version: '1' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
      await client.connect(transport);
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['ping']);
        await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow('Unknown tool: "whoami". Available tools: ping');
      } finally {
        await client.close();
      }
      expect(stderr.join('')).toBe('');
    }
  }, 90_000);
});
