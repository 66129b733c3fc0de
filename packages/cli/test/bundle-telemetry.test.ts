import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';

// @armature/core loads @opentelemetry/api only once an app registered something with it. A Node
// bundle (armature build) runs next to node_modules and requires it from there; a Worker has none:
// its bundle (--target workers) holds the API, imported before the first request that finds
// something registered. The app registers its tracer provider (its own, through the public API,
// recording the names of the spans ended) after it made the app, as a user's module order may; the
// Worker's bundle is served by workerd (miniflare) on 127.0.0.1, the Node bundle over stdio.

const root = realpathSync(mkdtempSync(join(tmpdir(), 'armature-workers-telemetry-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const APP = `import { createMcpApp, type McpApp, McpServer, Tool } from '@armature/core';
import { type Span, type Tracer, trace } from '@opentelemetry/api';

const ended: string[] = [];
function span(name: string): Span {
  const self = {
    spanContext: () => ({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 }),
    isRecording: () => true,
    setAttribute: () => self,
    setAttributes: () => self,
    addEvent: () => self,
    addLink: () => self,
    addLinks: () => self,
    setStatus: () => self,
    updateName: () => self,
    recordException: () => undefined,
    end: () => void ended.push(name),
  };
  return self as unknown as Span;
}
const tracer = { startSpan: (name: string) => span(name) } as unknown as Tracer;

@McpServer({ name: 'traced', version: '1.0.0' })
class Traced {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }

  @Tool({ description: 'The names of the spans ended so far' })
  spans() {
    return ended.join(',') || 'none';
  }
}

/** The app, with a tracer provider registered after it was made (as a user's module order may do). */
export function tracedApp(): McpApp {
  const app = createMcpApp(Traced);
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  return app;
}
`;

const WORKER = `import { serveOnWorkers } from '@armature/core';
import { tracedApp } from './app.js';

export default serveOnWorkers(() => tracedApp());
`;

const MAIN = `import { tracedApp } from './app.js';

tracedApp().listenStdio();
`;

beforeAll(() => {
  const core = dirname(createRequire(import.meta.url).resolve('@armature/core/package.json'));
  // The API's exports do not list its package.json: the copy core depends on, beside core.
  const api = realpathSync(join(core, 'node_modules/@opentelemetry/api'));
  mkdirSync(join(root, 'node_modules/@armature'), { recursive: true });
  mkdirSync(join(root, 'node_modules/@opentelemetry'), { recursive: true });
  symlinkSync(core, join(root, 'node_modules/@armature/core'));
  symlinkSync(api, join(root, 'node_modules/@opentelemetry/api'));
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'traced', type: 'module', dependencies: { '@armature/core': '0.1.0' } }),
  );
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src/app.ts'), APP);
  writeFileSync(join(root, 'src/worker.ts'), WORKER);
  writeFileSync(join(root, 'src/main.ts'), MAIN);
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        useDefineForClassFields: false,
        skipLibCheck: true,
        rootDir: 'src',
        outDir: 'dist',
        types: [],
      },
      include: ['src'],
    }),
  );
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, encoding: 'utf8' });
  expect(compiled.status, compiled.stdout + compiled.stderr).toBe(0);
}, 120_000);

it('a Worker that registers a tracer provider after making its app gets the spans of its first call, with nothing said on stderr', {
  timeout: 180_000,
}, async () => {
  const built = await buildApp({ cwd: root, entry: 'dist/worker.js', target: 'workers' });

  let output = '';
  const worker = new Miniflare({
    modules: [{ type: 'ESModule', path: join(root, built.entry) }],
    modulesRoot: root,
    // As armature new writes wrangler.toml.
    compatibilityDate: '2026-07-01',
    compatibilityFlags: ['nodejs_compat'],
    host: '127.0.0.1',
    port: 0,
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      for (const stream of [stdout, stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
    },
  });
  try {
    const client = new Client({ name: 'workers-telemetry', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', await worker.ready)));
    try {
      await client.callTool({ name: 'ping', arguments: {} });
      const spans = await client.callTool({ name: 'spans', arguments: {} });
      expect((spans.content as { text: string }[])[0]?.text.split(',')).toEqual(
        expect.arrayContaining(['tools/call ping', 'execute_tool ping']),
      );
    } finally {
      await client.close();
    }
  } finally {
    await worker.dispose();
  }
  expect(output).not.toContain('[armature]');
});

/** One JSON-RPC line to the stdio server, and the answer with its id. */
async function ask(child: ChildProcessWithoutNullStreams, lines: AsyncIterator<string>, id: number, method: string, params: unknown) {
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  for (;;) {
    const next = await lines.next();
    if (next.done) throw new Error(`the server closed its stdout before answering ${method}`);
    const message = JSON.parse(next.value) as { id?: number; result?: { content?: { text: string }[] } };
    if (message.id === id) return message.result;
  }
}

it('so does a Node bundle, which requires the API from node_modules once the provider is registered', { timeout: 180_000 }, async () => {
  const built = await buildApp({ cwd: root, entry: 'dist/main.js' });
  const child = spawn(process.execPath, [built.entry], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  try {
    await ask(child, lines, 1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'node-telemetry', version: '1.0.0' },
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    await ask(child, lines, 2, 'tools/call', { name: 'ping', arguments: {} });
    const spans = await ask(child, lines, 3, 'tools/call', { name: 'spans', arguments: {} });
    expect(spans?.content?.[0]?.text.split(',')).toEqual(expect.arrayContaining(['tools/call ping', 'execute_tool ping']));
  } finally {
    child.kill();
  }
  expect(stderr).not.toContain('[armature] OpenTelemetry');
  expect(stderr).not.toContain('[armature] telemetry');
});
