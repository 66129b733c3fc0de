import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
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
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['greet', 'greet_person']);
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

/** The commands of the page's Inspector section as a shell runs them (`\` continuations joined). */
function inspectorCommands(): string[] {
  const page = readFileSync(join(DOCS_ROOT, 'getting-started.md'), 'utf8');
  const block = /```bash\n([\s\S]*?)```/.exec(page.slice(page.indexOf('## The Inspector CLI')))?.[1] ?? '';
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function shell(command: string, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    // npm_config_yes: npx installs the pinned Inspector without asking (a CI shell has no TTY anyway).
    const child = spawn('sh', ['-c', command], { cwd: project, env: { ...process.env, npm_config_yes: 'true' } });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

it('the Inspector CLI commands of the page work as written, a nested DTO included', async () => {
  const commands = inspectorCommands();
  expect(commands).toHaveLength(4);
  const results: unknown[] = [];
  // The first run installs the pinned Inspector into npm's cache (bounded); the others reuse it.
  for (const command of commands.filter((c) => !c.includes('--transport http'))) {
    const result = await shell(command, results.length === 0 ? 240_000 : 60_000);
    expect(result.code, `${command}\n${result.stderr}`).toBe(0);
    results.push(JSON.parse(result.stdout));
  }
  expect((results[0] as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['greet', 'greet_person']);
  expect((results[1] as { content: unknown }).content).toEqual([{ type: 'text', text: 'Ciao, Ada!' }]);
  expect((results[2] as { content: unknown }).content).toEqual([{ type: 'text', text: 'Hello, Ada Lovelace!' }]);

  // The HTTP line, against the server started as the comment says; only the port is the free one
  // this run got instead of 3000.
  const server = spawn(process.execPath, [entry, '--http'], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(server);
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    server.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /greeter: MCP endpoint at (\S+)/.exec(seen);
      if (match) resolve(match[1] as string);
    });
    server.once('exit', (code) => reject(new Error(`the server exited (${code}): ${seen}`)));
  });
  const http = commands.find((c) => c.includes('--transport http')) as string;
  const result = await shell(http.replace('http://127.0.0.1:3000/mcp', url), 60_000);
  server.kill();
  expect(result.code, result.stderr).toBe(0);
  expect((JSON.parse(result.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['greet', 'greet_person']);
}, 400_000);
