import { PassThrough } from 'node:stream';
import { Server } from '@modelcontextprotocol/server';
import { IsInt } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMcpApp, McpServer, Tool } from '../src/index.js';
import { connectHttp } from './support/clients.js';

// An SDK release that renames a private member the request engine uses must not break a server: the
// seam (seams/sdk-internals.ts) finds it missing at start-up, says so once, and every request goes
// through the SDK's public request handling. Here `Server._wireCodec` is removed for the whole file
// (this file's own copy of the SDK: vitest isolates test files).

class Add {
  @IsInt() a!: number;
  @IsInt() b!: number;
}

@McpServer({ name: 'seam', version: '1.0.0' })
class SeamServer {
  @Tool({ description: 'adds two integers' })
  add(input: Add) {
    return input.a + input.b;
  }
}

const prototype = Object.getPrototypeOf(Server.prototype) as Record<string, unknown>;
const original = prototype._wireCodec;
const stderr: string[] = [];

beforeAll(() => {
  expect(typeof original).toBe('function');
  Object.defineProperty(Server.prototype, '_wireCodec', { value: undefined, configurable: true, writable: true });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr.push(String(chunk));
    return true;
  });
});

afterAll(() => {
  delete (Server.prototype as unknown as Record<string, unknown>)._wireCodec;
  vi.restoreAllMocks();
});

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('the SDK seam, when an SDK member it needs is missing', () => {
  it('serves stdio through the SDK path with the same answers, and says why once', async () => {
    const app = createMcpApp(SeamServer);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const handle = app.listenStdio({ stdin, stdout });
    const lines: string[] = [];
    stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    for (const message of [
      initialize,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add', arguments: { a: 'two', b: 3 } } },
      { jsonrpc: '2.0', id: 4, method: 'ping' },
    ]) {
      stdin.write(`${JSON.stringify(message)}\n`);
    }
    await vi.waitFor(() => expect(lines).toHaveLength(4), { timeout: 5_000 });
    // Answered concurrently: in id order.
    const byId = (line: string) => Number((JSON.parse(line) as { id: number }).id);
    expect(lines.slice(1).sort((x, y) => byId(x) - byId(y))).toEqual([
      '{"result":{"content":[{"type":"text","text":"5"}]},"jsonrpc":"2.0","id":2}',
      '{"result":{"content":[{"type":"text","text":"Invalid arguments for tool \\"add\\":\\na: must be integer"}],"isError":true},"jsonrpc":"2.0","id":3}',
      '{"result":{},"jsonrpc":"2.0","id":4}',
    ]);
    expect(app.stats.engine).toBe(0);
    await handle.close();
    await app.close();
    expect(stderr.filter((line) => line.includes('request engine is off'))).toEqual([
      "[armature] the request engine is off: Server._wireCodec is missing. Every request goes through the SDK's public request handling (correct, slower). Fix: install the @modelcontextprotocol/server version @armature/core pins, or update @armature/core.\n",
    ]);
  });

  it('serves 2026-07-28 and 2025-11-25 HTTP through the SDK path, and says nothing more', async () => {
    for (const modern of [true, false]) {
      const app = createMcpApp(SeamServer);
      const { client, close } = await connectHttp(app, { modern });
      expect(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).toMatchObject({
        content: [{ type: 'text', text: '42' }],
      });
      expect(app.stats.engine).toBe(0);
      await close();
      await app.close();
    }
    expect(stderr.filter((line) => line.includes('request engine is off'))).toHaveLength(1);
  });
});
