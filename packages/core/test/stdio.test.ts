import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { IsInt } from 'class-validator';
import { describe, expect, it, vi } from 'vitest';
import { createMcpApp, McpServer, Tool } from '../src/index.js';
import { LineTransport } from '../src/transports/stdio/line-transport.js';

class Square {
  @IsInt()
  n!: number;
}

@McpServer({ name: 'stdio', version: '1.0.0' })
class StdioServer {
  @Tool({ description: 'square a number' })
  square(input: Square) {
    return input.n * input.n;
  }
}

function pipePair() {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const app = createMcpApp(StdioServer);
  const handle = app.listenStdio({ stdin: toServer, stdout: fromServer });
  const lines: unknown[] = [];
  let buffer = '';
  fromServer.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, i)));
      buffer = buffer.slice(i + 1);
    }
  });
  return { toServer, fromServer, lines, handle };
}

describe('stdio line transport', () => {
  it('answers bad JSON -32700, batches and non-JSON-RPC values -32600, and keeps serving', async () => {
    const { toServer, lines, handle } = pipePair();
    toServer.write('{not json\n');
    toServer.write('[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n');
    toServer.write('{"jsonrpc":"2.0","id":7,"method":42}\n');
    toServer.write('"just a string"\n');
    toServer.write('\n');
    toServer.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
    );
    await vi.waitFor(() => expect(lines).toHaveLength(5), { timeout: 10_000 });
    expect(lines.slice(0, 4)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not valid JSON' } },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: batches are not supported; send one JSON-RPC message per line' },
      },
      { jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 request or notification' } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 request or notification' } },
    ]);
    expect(lines[4]).toMatchObject({ id: 1, result: { serverInfo: { name: 'stdio' } } });
    await handle.close();
  });

  it('answers an over-long line -32600 (with the id read from its head) without buffering it, then goes on', async () => {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const out: string[] = [];
    fromServer.on('data', (c: Buffer) => out.push(c.toString()));
    const transport = new LineTransport(toServer, fromServer, { maxMessageBytes: 1024 });
    const received: unknown[] = [];
    transport.onmessage = (m) => received.push(m);
    await transport.start();
    // Split across chunks, as a pipe delivers it.
    toServer.write(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(800)}`);
    toServer.write(`${'y'.repeat(800)}"}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    await vi.waitFor(
      () => {
        expect(received).toHaveLength(1);
        expect(out.join('')).toMatch(/\n$/);
      },
      { timeout: 10_000 },
    );
    expect(out.join('')).toBe(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Invalid Request: a message must not exceed 1024 bytes' } })}\n`,
    );
    expect(received).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
    await transport.close();
  });

  it('refuses a nesting or size bomb before parsing it, answering the right id', async () => {
    const { toServer, lines, handle } = pipePair();
    const deep = `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"square","arguments":{"n":${'['.repeat(200_000)}${']'.repeat(200_000)}}}}`;
    const wide = `{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"square","arguments":{"n":[${new Array(30_000).fill(1).join(',')}]}}}`;
    toServer.write(`${deep}\n${wide}\n`);
    await vi.waitFor(() => expect(lines).toHaveLength(2), { timeout: 10_000 });
    expect(lines).toEqual([
      { jsonrpc: '2.0', id: 41, error: { code: -32600, message: 'Invalid Request: the message is nested deeper than 64 levels' } },
      { jsonrpc: '2.0', id: 'w', error: { code: -32600, message: 'Invalid Request: the message holds more than 25000 values' } },
    ]);
    await handle.close();
  });

  it('serves both protocol revisions: the v2 client negotiates 2026-07-28 or stays on 2025-11-25', async () => {
    for (const mode of ['auto', 'legacy'] as const) {
      const { toServer, fromServer, handle } = pipePair();
      // Our line transport works on the client side of the pipe too.
      const client = new Client({ name: 'pipe', version: '1' }, mode === 'auto' ? { versionNegotiation: { mode: 'auto' } } : {});
      await client.connect(new LineTransport(fromServer, toServer));
      expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'auto' ? '2026-07-28' : '2025-11-25');
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['square']);
      expect((await client.callTool({ name: 'square', arguments: { n: 7 } })).content).toEqual([{ type: 'text', text: '49' }]);
      await client.close();
      await handle.close();
    }
  });
});

describe('a spawned stdio server', () => {
  const fixture = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));

  it('keeps stdout for protocol messages (stray console.log goes to stderr) and exits once stdin closes, without waiting for a running call', async () => {
    const child = spawn(process.execPath, [fixture], { stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: string[] = [];
    const stderr: string[] = [];
    child.stdout.on('data', (c: Buffer) => stdout.push(c.toString()));
    child.stderr.on('data', (c: Buffer) => stderr.push(c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow', arguments: {} } });
      await vi.waitFor(() => expect(stdout.join('')).toContain('"id":2'), { timeout: 10_000 });
      const lines = stdout.join('').trim().split('\n');
      for (const line of lines) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
      expect(lines.map((l) => JSON.parse(l).id)).toEqual([1, 2]);
      expect(JSON.parse(lines[1] as string).result.content).toEqual([{ type: 'text', text: 'hi' }]);
      expect(stderr.join('')).toContain('console.log from a handler');
      expect(stderr.join('')).toContain('process.stdout.write from a handler');

      // Call 3 sleeps 60 s (a live timer): a server that waited for it would outlast this test.
      child.stdin.end();
      const code = await exited;
      expect(code).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 20_000);
});
