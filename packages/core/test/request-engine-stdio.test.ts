import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createSdkServer } from '../src/engine/sdk-server.js';
import { Context, createMcpApp, McpServer, Tool } from '../src/index.js';
import type { AppRuntime } from '../src/runtime/app-runtime.js';
import { serveOverStdio } from '../src/transports/stdio/stdio.js';
import { EngineTools } from './support/engine-tools.js';

// The request engine (tools/call, tools/list, ping on 2025-11-25 connections) must answer exactly
// what the SDK path answers: the same lines, byte for byte, in the same order.

@McpServer({ name: 'direct', version: '1.0.0' })
class DirectServer extends EngineTools {
  @Tool({ description: 'logs and reports progress' })
  async chatty(ctx: Context) {
    await ctx.log.info('starting', { step: 1 });
    await ctx.progress(1, 2, 'half');
    await ctx.log.debug('filtered out by the level');
    await ctx.progress(2, 2);
    return 'done';
  }
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** The requests both servers get, one at a time, each answered before the next is sent. */
const requests: object[] = [
  { jsonrpc: '2.0', id: 2, method: 'ping' },
  { jsonrpc: '2.0', id: 'p', method: 'ping', params: { _meta: { note: 1 } } },
  { jsonrpc: '2.0', id: 3, method: 'tools/list' },
  { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 'bogus' } },
  { jsonrpc: '2.0', id: 5, method: 'logging/setLevel', params: { level: 'info' } },
  { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
  { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'add', arguments: { a: 'two', b: 3, c: 1 } } },
  { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'add' } },
  { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'search', arguments: { query: 'lamp' } } },
  { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'annotated', arguments: {} } },
  { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'whole', arguments: {} } },
  { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'invalid', arguments: {} } },
  { jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name: 'refuse', arguments: {} } },
  { jsonrpc: '2.0', id: 14, method: 'tools/call', params: { name: 'crash', arguments: {} } },
  { jsonrpc: '2.0', id: 15, method: 'tools/call', params: { name: 'nope', arguments: {} } },
  { jsonrpc: '2.0', id: 16, method: 'tools/call', params: { name: 'chatty', arguments: {}, _meta: { progressToken: 'tok' } } },
  { jsonrpc: '2.0', id: 17, method: 'tools/call', params: { name: 'chatty', arguments: {} } },
  // A key that would reach the prototype, as JSON.parse makes it (an own property).
  JSON.parse(
    '{"jsonrpc":"2.0","id":"proto","method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3,"__proto__":{"polluted":true}}}}',
  ),
  // Shapes the request engine leaves to the SDK: its schema decides, on both servers alike.
  { jsonrpc: '2.0', id: 18, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 }, extra: true } },
  { jsonrpc: '2.0', id: 19, method: 'tools/call', params: { name: 42 } },
  { jsonrpc: '2.0', id: 20, method: 'tools/call', params: { name: 'add', arguments: [1, 2] } },
  { jsonrpc: '2.0', id: 21, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 }, _meta: { progressToken: 1.5 } } },
  { jsonrpc: '2.0', id: 22, method: 'tools/list', params: { cursor: 7 } },
];

const cursor = (offset: number) => Buffer.from(`o${offset}`).toString('base64url');
/** Every page of the list (3 tools a page), each twice: the second answer comes from the kept page. */
const pages = [undefined, cursor(3), cursor(6)].flatMap((at, i) =>
  [0, 1].map((again) => ({ jsonrpc: '2.0', id: `page-${i}-${again}`, method: 'tools/list', params: at ? { cursor: at } : {} })),
);
/** Cursors no page hands out: an offset between pages, one past the end, a canonical one spelt otherwise. */
const madeUpCursors = [cursor(4), cursor(300), `${cursor(3)}=`].map((at, i) => ({
  jsonrpc: '2.0',
  id: `made-up-${i}`,
  method: 'tools/list',
  params: { cursor: at },
}));
/** After `crash` is disabled, the pages change. */
const afterChange = [undefined, cursor(3), cursor(6)].map((at, i) => ({
  jsonrpc: '2.0',
  id: `changed-${i}`,
  method: 'tools/list',
  params: at ? { cursor: at } : {},
}));

/** Every line one server writes for the conversation, as written, and how many requests the request engine answered. */
async function conversation(direct: boolean): Promise<{ lines: string[]; served: number }> {
  const app = createMcpApp(DirectServer, { onError: () => undefined, exposeErrors: true, pageSize: 3 });
  const runtime = (app as unknown as { runtime: AppRuntime }).runtime;
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const handle = serveOverStdio((wire) => createSdkServer(runtime, 'connection', direct ? { wire } : { engine: false }), { stdin, stdout });
  const lines: string[] = [];
  let buffer = '';
  let waiting: { id: unknown; done: () => void } | undefined;
  stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      lines.push(line);
      if (waiting && (JSON.parse(line) as { id?: unknown }).id === waiting.id) waiting.done();
    }
  });
  const send = (message: object) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${JSON.stringify(message)}`)), 5_000);
      waiting = {
        id: (message as { id: unknown }).id,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      stdin.write(`${JSON.stringify(message)}\n`);
    });
  await send(initialize);
  stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  for (const request of [...requests, ...pages, ...madeUpCursors]) await send(request);
  app.tools.disable('crash');
  for (const request of afterChange) await send(request);
  await handle.close();
  await app.close();
  return { lines, served: app.stats.engine };
}

/**
 * The requests of the conversation the request engine answers: all but the five odd shapes,
 * logging/setLevel and the `__proto__` key (refused by the line transport before either path).
 */
const SERVED_DIRECTLY = requests.length - 7 + pages.length + madeUpCursors.length + afterChange.length;

describe('the request engine', () => {
  it('answers every request over stdio exactly as the SDK path does, byte for byte', async () => {
    const { lines: viaSdk, served: servedWithout } = await conversation(false);
    const { lines: direct, served } = await conversation(true);
    expect(direct).toEqual(viaSdk);
    // The comparison is between the two paths: every plain ping, tools/list and tools/call was
    // answered by the request engine (the odd shapes, ids 18-22, by the SDK), none without it.
    expect(servedWithout).toBe(0);
    expect(served).toBe(SERVED_DIRECTLY);
    // The conversation covers what it claims: results, tool errors, JSON-RPC errors, notifications.
    const text = viaSdk.join('\n');
    expect(viaSdk).toContain('{"result":{"content":[{"type":"text","text":"5"}]},"jsonrpc":"2.0","id":6}');
    // The SDK's parser used to drop the key silently (the call answered 5) where the request engine refused it.
    expect(viaSdk).toContain(
      '{"jsonrpc":"2.0","id":"proto","error":{"code":-32600,"message":"Invalid Request: the message has a \\"__proto__\\" key, which could reach an object\'s prototype; remove it"}}',
    );
    expect(text).toContain('"method":"notifications/progress","params":{"progressToken":"tok","progress":1,"total":2,"message":"half"}');
    expect(text).toContain('"method":"notifications/message","params":{"level":"info","data":{"message":"starting","data":{"step":1}}}');
    expect(text).not.toContain('filtered out by the level');
    expect(text).toContain('"id":12,"error":{"code":-32602,"message":"Invalid tools/call result:');
    expect(text).toContain('"isError":true');
    // Pages, kept or not, and the change between them.
    const names = (id: string) => {
      const line = viaSdk.find((l) => l.includes(`"id":"${id}"`)) ?? '';
      return (JSON.parse(line) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    };
    expect(names('page-0-1')).toEqual(['add', 'search', 'annotated']);
    expect(names('page-2-1')).toEqual(['crash', 'chatty']);
    expect(names('made-up-0')).toEqual(['invalid', 'refuse', 'crash']);
    expect(names('made-up-1')).toEqual([]);
    expect(names('changed-2')).toEqual(['chatty']);
  });

  it('stops a cancelled call: its signal aborts and no answer is sent', async () => {
    let aborted: unknown;
    @McpServer({ name: 'slow', version: '1.0.0' })
    class SlowServer {
      @Tool({ description: 'waits until cancelled' })
      wait(ctx: Context) {
        return new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            aborted = ctx.signal.reason;
            resolve('too late');
          });
        });
      }
    }
    const app = createMcpApp(SlowServer);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await app.createServer().connect(serverSide);
    const client = new Client({ name: 'c', version: '1' });
    await client.connect(clientSide);
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 50));
    controller.abort('changed my mind');
    await expect(call).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 50));
    expect(aborted).toBe('changed my mind');
    await client.close();
    await app.close();
  });

  it('aborts the calls still running when the connection closes, as the SDK does for its own', async () => {
    let reason: unknown;
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    @McpServer({ name: 'closing', version: '1.0.0' })
    class ClosingServer {
      @Tool({ description: 'waits for its signal' })
      wait(ctx: Context) {
        started();
        return new Promise((resolve) => {
          ctx.signal.addEventListener('abort', () => {
            reason = ctx.signal.reason;
            resolve('stopped');
          });
        });
      }
    }
    const app = createMcpApp(ClosingServer);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    app.listenStdio({ stdin, stdout });
    const initialized = new Promise((resolve) => stdout.once('data', resolve));
    stdin.write(`${JSON.stringify(initialize)}\n`);
    // The call goes out once the connection is established, as a client sends it (the request engine serves it).
    await initialized;
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait', arguments: {} } })}\n`);
    await running;
    stdin.end();
    for (let i = 0; i < 50 && reason === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    expect((reason as Error).message).toBe('Connection closed');
    await app.close();
  });

  it('answers what a frozen result holds now, not what it held at an earlier call', async () => {
    const block = { type: 'text', text: '' };
    const shared = Object.freeze({ content: [block] });
    let calls = 0;
    @McpServer({ name: 'frozen', version: '1.0.0' })
    class FrozenServer {
      @Tool({ description: 'the same frozen result, its block changed each call' })
      count() {
        block.text = String(++calls);
        return shared;
      }
    }
    const app = createMcpApp(FrozenServer);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: string[] = [];
    stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const handle = app.listenStdio({ stdin, stdout });
    const answered = async (id: number) => {
      for (let i = 0; i < 100 && !lines.some((l) => l.includes(`"id":${id}}`)); i++) await new Promise((r) => setTimeout(r, 10));
      return lines.find((l) => l.includes(`"id":${id}}`));
    };
    stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })}\n`,
    );
    await answered(1);
    stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const count = async (id: number) => {
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'count' } })}\n`);
      return answered(id);
    };
    expect(await count(2)).toBe('{"result":{"content":[{"type":"text","text":"1"}]},"jsonrpc":"2.0","id":2}');
    expect(await count(3)).toBe('{"result":{"content":[{"type":"text","text":"2"}]},"jsonrpc":"2.0","id":3}');
    await handle.close();
    await app.close();
  });
});
