import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectOverStdio } from '../examples/getting-started.js';
import { DOCS_ROOT } from './support/markdown-includes.js';

// The getting-started project compiled the way the guide says (plain tsc with its tsconfig.json),
// then run as a real process: over stdio, and over HTTP with --http.
const project = join(DOCS_ROOT, 'examples', 'getting-started');
const entry = join(project, 'dist', 'main.js');
const children: ChildProcess[] = [];

beforeAll(() => {
  rmSync(join(project, 'dist'), { recursive: true, force: true });
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(project, 'tsconfig.json')], { encoding: 'utf8' });
  expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill();
});

it('the compiled server answers over stdio', async () => {
  const client = await connectOverStdio(entry);
  try {
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['greet']);
    expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toEqual({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
  } finally {
    await client.close();
  }
});

it('the compiled server answers over HTTP with --http', async () => {
  const child = spawn(process.execPath, [entry, '--http'], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /greeter: MCP endpoint at (\S+)/.exec(seen);
      if (match) resolve(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${seen}`)));
  });
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada', language: 'it' } })).toEqual({
      content: [{ type: 'text', text: 'Ciao, Ada!' }],
    });
  } finally {
    await client.close();
    child.kill();
  }
});
