import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DOCS_ROOT } from './support/markdown-includes.js';

// The repository README's example is docs/examples/readme/main.ts (its include marker says so): the
// block must equal the file, the file is compiled with plain tsc and run, and what the README says
// about it (the error text for a bad call) is checked against the running server.
const REPO_ROOT = join(DOCS_ROOT, '..');
const MARKER = '<!-- include: docs/examples/readme/main.ts -->';
const project = join(DOCS_ROOT, 'examples', 'readme');
const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
let child: ChildProcess | undefined;

/** The fenced block right after `from` (its language and body). */
function blockAfter(text: string, from: number): { language: string; body: string; end: number } {
  const open = text.indexOf('```', from);
  const newline = text.indexOf('\n', open);
  const close = text.indexOf('\n```', newline);
  return { language: text.slice(open + 3, newline).trim(), body: text.slice(newline + 1, close), end: close + 4 };
}

beforeAll(() => {
  rmSync(join(project, 'dist'), { recursive: true, force: true });
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(project, 'tsconfig.json')], { encoding: 'utf8' });
  expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
});

afterAll(() => {
  if (child && child.exitCode === null) child.kill();
});

it("README.md's example is docs/examples/readme/main.ts, exactly", () => {
  const at = readme.indexOf(MARKER);
  expect(at, `README.md has ${MARKER}`).toBeGreaterThan(-1);
  expect(readme.slice(at + MARKER.length, at + MARKER.length + 7), 'the marker is followed directly by the block').toBe('\n```ts\n');
  const block = blockAfter(readme, at);
  expect(block.body).toBe(readFileSync(join(project, 'main.ts'), 'utf8').trimEnd());
  expect(readme.match(/^```ts$/gm)?.length, 'README.md has one TypeScript block, the checked one').toBe(1);
});

it('the compiled example answers as README.md says', async () => {
  child = spawn(process.execPath, [join(project, 'dist', 'main.js')], {
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child?.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /MCP endpoint: (\S+)/.exec(seen);
      if (match) resolve(match[1] as string);
    });
    child?.once('exit', (code) => reject(new Error(`the README example exited (${code}): ${seen}`)));
  });
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

  // "A call with `{ ... }` never reaches the method; the client gets a tool error it can act on:" + the text block.
  const claim = /A call with `(\{[^`]+\})` never reaches the method/.exec(readme);
  expect(claim, 'README.md names the bad arguments').not.toBeNull();
  const badArguments = JSON.parse(claim?.[1] as string) as Record<string, unknown>;
  const shown = blockAfter(readme, claim?.index as number);
  expect(shown.language).toBe('text');

  for (const modern of [false, true]) {
    const client = new Client({ name: 'readme-check', version: '1.0.0' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      const logs: unknown[] = [];
      client.setNotificationHandler('notifications/message', (notification) => {
        logs.push(notification.params.data);
      });
      const ok = await client.callTool({
        name: 'search_issues',
        arguments: { repo: 'a/b', query: 'crash' },
        ...(modern ? { _meta: { 'io.modelcontextprotocol/logLevel': 'info' } } : {}),
      });
      expect(ok.structuredContent).toEqual({ repo: 'a/b', query: 'crash', limit: 10 });
      expect(logs).toEqual(['searching a/b']);

      const bad = await client.callTool({ name: 'search_issues', arguments: badArguments });
      expect(bad.isError).toBe(true);
      expect((bad.content as Array<{ text: string }>)[0]?.text).toBe(shown.body);
    } finally {
      await client.close();
    }
  }
});
