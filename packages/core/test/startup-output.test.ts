import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What a user sees when `node dist/main.js` cannot start: the built package (dist/index.js) run by
// a real Node process, its uncaught error printed by Node itself.
const CORE = fileURLToPath(new URL('../dist/index.js', import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'armature-startup-'));
  writeFileSync(join(dir, 'no-server.mjs'), `import { createMcpApp } from ${JSON.stringify(CORE)};\ncreateMcpApp([]).listenStdio();\n`);
  writeFileSync(
    join(dir, 'busy-port.mjs'),
    [
      `import { createMcpApp, McpServer } from ${JSON.stringify(CORE)};`,
      'class Server {}',
      "McpServer({ name: 'busy', version: '1.0.0' })(Server);",
      'await createMcpApp(Server).listenHttp({ port: Number(process.env.PORT) });',
      '',
    ].join('\n'),
  );
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function node(script: string, env: Record<string, string> = {}): Promise<{ code: number | null; lines: string[] }> {
  return new Promise((done) => {
    const { ARMATURE_DEBUG: _debug, NODE_OPTIONS: _options, ...rest } = process.env;
    const child = spawn(process.execPath, [join(dir, script)], { env: { ...rest, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => done({ code, lines: stderr.trimEnd().split('\n') }));
  });
}

describe('an uncaught start-up error under node', () => {
  it('prints the code, the problem and the fix, one frame, and no dump of the problems (10 lines)', async () => {
    const { code, lines } = await node('no-server.mjs');
    expect(code).toBe(1);
    // Node's pointer to the throw (3 lines and a blank one), our message, one frame, Node's version.
    expect(lines.slice(4, 7)).toEqual([
      'ArmatureBuildError: Armature cannot start the MCP server: 1 problem in the decorated classes.',
      '  1. createMcpApp: no server class was given [ARM100]',
      '     Fix: createMcpApp(MyServer) or createMcpApp([A, B])',
    ]);
    expect(lines.filter((line) => /^\s+at /.test(line))).toHaveLength(1);
    // Node's pointer shows the user's own call, not a line of Armature's compiled source.
    expect(lines.slice(0, 2)).toEqual([expect.stringMatching(/no-server\.mjs:2$/), 'createMcpApp([]).listenStdio();']);
    expect(lines.at(-3)).toMatch(/^\s+at .*no-server\.mjs:2:1$/);
    expect(lines.join('\n')).not.toContain('problems:');
    expect(lines.at(-1)).toMatch(/^Node\.js v/);
    expect(lines).toHaveLength(10);
  });

  it('prints the whole stack with ARMATURE_DEBUG=1', async () => {
    const { code, lines } = await node('no-server.mjs', { ARMATURE_DEBUG: '1' });
    expect(code).toBe(1);
    expect(lines).toContain('  1. createMcpApp: no server class was given [ARM100]');
    expect(lines.filter((line) => /^\s+at /.test(line)).length).toBeGreaterThan(3);
  });
});

describe('a decorator crash only a wrong tsconfig causes', () => {
  const crash = fileURLToPath(new URL('./fixtures/standard-decorator-crash.mjs', import.meta.url));
  const run = (env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stderr: string }>((done) => {
      const { ARMATURE_DEBUG: _debug, NODE_OPTIONS: _options, ...rest } = process.env;
      const child = spawn(process.execPath, [crash], { env: { ...rest, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.on('close', (code) => done({ code, stderr }));
    });

  it('names the missing experimentalDecorators and the fix (ARM127), without class-validator stack', async () => {
    const { code, stderr } = await run();
    expect(code).toBe(1);
    const lines = stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('ArmatureBuildError: Armature cannot start the MCP server: 1 problem in how the decorators were compiled.');
    expect(lines[1]).toMatch(
      /^ {2}1\. start-up: a class-validator decorator \(at file:\/\/.*standard-decorator-crash\.mjs:9:1\) was called as a standard \(TC39\) decorator, .* \[ARM127\]$/,
    );
    expect(lines[2]).toContain('Fix: set "experimentalDecorators": true and "emitDecoratorMetadata": true in the tsconfig.json');
    expect(lines).toHaveLength(3);
  });

  it('lets Node print the crash after the explanation with ARMATURE_DEBUG=1', async () => {
    const { code, stderr } = await run({ ARMATURE_DEBUG: '1' });
    expect(code).toBe(1);
    expect(stderr).toContain('[ARM127]');
    expect(stderr).toContain("TypeError: Cannot read properties of undefined (reading 'constructor')");
  });
});

describe('a busy port', () => {
  let taken: Server;
  let port: number;

  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((listening) => taken.listen(0, '127.0.0.1', listening));
    port = (taken.address() as { port: number }).port;
  });

  afterAll(() => new Promise<void>((closed) => taken.close(() => closed())));

  it('names the port and PORT as the fix, instead of a raw EADDRINUSE stack', async () => {
    const { code, lines } = await node('busy-port.mjs', { PORT: String(port) });
    expect(code).toBe(1);
    expect(lines.slice(4, 7)).toEqual([
      'ArmatureBuildError: Armature cannot start the MCP server: 1 problem with the HTTP port.',
      `  1. listenHttp: port ${port} on 127.0.0.1 is already in use (EADDRINUSE) [ARM124]`,
      `     Fix: stop what listens there (another server, or this one started twice), or use another port: PORT=${port + 1} when the entry reads process.env.PORT, as generated projects do`,
    ]);
    expect(lines.join('\n')).not.toContain('[cause]');
    expect(lines).toHaveLength(10);
  });
});
