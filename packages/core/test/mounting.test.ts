import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsNumber } from 'class-validator';
import express from 'express';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { Context, createMcpApp, McpServer, Tool } from '../src/index.js';
import { rawHttp } from './support/raw-http.js';

class AddInput {
  @IsNumber()
  a!: number;
  @IsNumber()
  b!: number;
}

@McpServer({ name: 'mounted', version: '1.0.0' })
class MountedServer {
  @Tool({ description: 'add' })
  add(input: AddInput) {
    return input.a + input.b;
  }

  @Tool({ description: 'takes a while' })
  async slow(ctx: Context) {
    slow.started();
    await slow.finish;
    return ctx.signal.aborted ? 'aborted' : 'finished';
  }
}

/** The `slow` call, held by the test: it says when it is running, and finishes when told to. */
const slow = {
  started: (): void => undefined,
  running: Promise.resolve(),
  release: (): void => undefined,
  finish: Promise.resolve(),
};
function holdSlowCall(): void {
  slow.running = new Promise((resolve) => {
    slow.started = resolve;
  });
  slow.finish = new Promise((resolve) => {
    slow.release = resolve;
  });
}

async function exercise(url: string, modern: boolean) {
  const client = new Client({ name: 'mount-test', version: '1' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
  const version = client.getNegotiatedProtocolVersion();
  await client.close();
  return { version, text: (result.content as Array<{ text: string }>)[0]?.text };
}

describe('mounting the handler in existing servers', () => {
  it('node:http', async () => {
    const handler = createMcpApp(MountedServer).httpHandler();
    const server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/anything`;
    try {
      expect(await exercise(url, false)).toEqual({ version: '2025-11-25', text: '42' });
      expect(await exercise(url, true)).toEqual({ version: '2026-07-28', text: '42' });
    } finally {
      await handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('Express 5, with express.json() in front (the parsed body is used)', async () => {
    const handler = createMcpApp(MountedServer).httpHandler();
    const app = express();
    app.use(express.json({ limit: '4mb' }));
    app.all('/mcp', (req, res) => void handler(req, res, req.body));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    try {
      expect(await exercise(url, false)).toEqual({ version: '2025-11-25', text: '42' });
      expect(await exercise(url, true)).toEqual({ version: '2026-07-28', text: '42' });
    } finally {
      await handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('Fastify 5 (the raw request and response, Fastify parsing the JSON)', async () => {
    const handler = createMcpApp(MountedServer).httpHandler();
    const fastify = Fastify();
    fastify.all('/mcp', async (request, reply) => {
      reply.hijack();
      await handler(request.raw, reply.raw, request.body);
    });
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/mcp`;
    try {
      expect(await exercise(url, false)).toEqual({ version: '2025-11-25', text: '42' });
      expect(await exercise(url, true)).toEqual({ version: '2026-07-28', text: '42' });
    } finally {
      await handler.close();
      await fastify.close();
    }
  });
});

describe('health and graceful shutdown', () => {
  it('health answers 200, then 503 while shutting down; a running call finishes before the server closes', async () => {
    const app = createMcpApp(MountedServer);
    const listener = await app.listenHttp({ port: 0 });
    const health = listener.url.replace('/mcp', '/health');
    expect((await rawHttp(health, { method: 'GET' })).status).toBe(200);

    const client = new Client({ name: 'shutdown', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    holdSlowCall();
    const running = client.callTool({ name: 'slow', arguments: {} });
    // Shut down only once the call is running (a fixed wait lost that race on a loaded machine),
    // with a deadline far longer than the call needs: the call decides when the server closes.
    await slow.running;
    let closed = false;
    const shutdown = app.shutdown(60_000).then(() => {
      closed = true;
    });
    // Absence after a wait: a slow machine only makes an early close less likely, never more.
    await new Promise((r) => setTimeout(r, 100));
    expect(closed, 'the server waits for the running call').toBe(false);
    slow.release();
    const result = await running;
    expect((result.content as Array<{ text: string }>)[0]?.text).toBe('finished');
    await shutdown;
    await expect(rawHttp(health, { method: 'GET' })).rejects.toThrow();
    await client.close().catch(() => undefined);
  });

  it('ready answers 200 while the app can serve, and says why not while it shuts down', async () => {
    const app = createMcpApp(MountedServer);
    const listener = await app.listenHttp({ port: 0 });
    const answer = await rawHttp(listener.url.replace('/mcp', '/ready'), { method: 'GET' });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: '{"status":"ready"}' });
    expect(await app.notReady()).toBeUndefined();
    const shutdown = app.shutdown(5_000);
    expect(await app.notReady()).toBe('shutting down');
    await shutdown;
  });

  // The fixture's deadline is 60 s, four times this test's timeout: an idle server that waited
  // out its deadline instead of closing at once fails here, however slow the machine.
  it('a served process shuts down on SIGTERM and exits 0, without waiting out its deadline when idle', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/http-server.mjs', import.meta.url));
    const child = spawn(process.execPath, [fixture], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          const match = /listening (\S+)/.exec(c.toString());
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', () => reject(new Error('exited early')));
      });
      expect((await rawHttp(url.replace('/mcp', '/health'), { method: 'GET' })).status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 15_000);
});
