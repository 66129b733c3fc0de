import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Miniflare } from 'miniflare';
import { afterAll, expect, it } from 'vitest';
import { buildApp } from '../src/index.js';

// @armature/core loads @opentelemetry/api only once an app registered something with it. A Worker
// has no node_modules to load it from: its bundle (armature build --target workers) holds the API,
// imported before the first request that finds something registered. This Worker registers its
// tracer provider (its own, through the public API, recording the names of the spans ended) after
// it made the app, as a user's module order may; its bundle is served by workerd (miniflare) on 127.0.0.1.

const root = realpathSync(mkdtempSync(join(tmpdir(), 'armature-workers-telemetry-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const WORKER = `import { createMcpApp, McpServer, serveOnWorkers, Tool } from '@armature/core';
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

export default serveOnWorkers(() => {
  const app = createMcpApp(Traced);
  trace.setGlobalTracerProvider({ getTracer: () => tracer });
  return app;
});
`;

it('a Worker that registers a tracer provider after making its app gets the spans of its first call, with nothing said on stderr', {
  timeout: 180_000,
}, async () => {
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
  writeFileSync(join(root, 'src/worker.ts'), WORKER);
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
  const built = await buildApp({ cwd: root, target: 'workers' });

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
