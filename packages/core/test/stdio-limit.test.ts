// The stdio size limit through the public API (issue 11, item 7): `listenStdio({ maxMessageBytes })`
// sets it, and a longer line is answered with the request's own id (read from the line's head), so
// the client does not wait forever; the connection goes on serving.
import { PassThrough } from 'node:stream';
import { IsString } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { createMcpApp, McpServer, Tool } from '../src/index.js';

@McpServer({ name: 'limited', version: '1.0.0' })
class LimitedServer {
  @Tool({ description: 'Answers pong', input: undefined })
  ping() {
    return 'pong';
  }
}

class Tagged {
  @IsString()
  tag!: string;

  @IsString()
  pad!: string;
}

const seen: string[] = [];

@McpServer({ name: 'ordered', version: '1.0.0' })
class OrderedServer {
  @Tool({ description: 'Notes the tag it was called with' })
  record(input: Tagged) {
    seen.push(input.tag);
    return input.tag;
  }
}

describe('listenStdio({ maxMessageBytes })', () => {
  it('answers a line over the limit -32600 with its own id, then serves the next request', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    let partial = '';
    stdout.on('data', (chunk: Buffer) => {
      partial += chunk.toString();
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) lines.push(JSON.parse(line));
    });
    const handle = createMcpApp(LimitedServer).listenStdio({ stdin, stdout, maxMessageBytes: 2_000 });
    try {
      stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })}\n`,
      );
      stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      const big = {
        jsonrpc: '2.0',
        id: 'sampling-answer',
        method: 'tools/call',
        params: { name: 'ping', arguments: { pad: 'x'.repeat(5_000) } },
      };
      stdin.write(`${JSON.stringify(big)}\n`);
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ping', arguments: {} } })}\n`);
      for (let i = 0; i < 100 && !lines.some((m) => m.id === 3); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(lines.filter((m) => m.id !== 1)).toEqual([
        {
          jsonrpc: '2.0',
          id: 'sampling-answer',
          error: { code: -32600, message: 'Invalid Request: a message must not exceed 2000 bytes' },
        },
        { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'pong' }] } },
      ]);
    } finally {
      await handle.close();
    }
  });

  it('handles a large line a step a turn, and the lines after it in their order', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const answered = new Map<unknown, Record<string, unknown>>();
    let partial = '';
    stdout.on('data', (chunk: Buffer) => {
      partial += chunk.toString();
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        const message = JSON.parse(line) as Record<string, unknown>;
        answered.set(message.id, message);
      }
    });
    seen.length = 0;
    const handle = createMcpApp(OrderedServer).listenStdio({ stdin, stdout });
    const call = (id: string, tag: string, pad: string) =>
      `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'record', arguments: { tag, pad } } })}\n`;
    try {
      stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })}\n`,
      );
      stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      // One write: a 900 KB line (handled over several turns), then two small ones, then another large one.
      stdin.write(
        call('big', 'big', 'x'.repeat(900_000)) + call('a', 'a', '') + call('b', 'b', '') + call('big2', 'big2', 'y'.repeat(600_000)),
      );
      stdin.write(call('c', 'c', ''));
      for (let i = 0; i < 250 && answered.size < 6; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen).toEqual(['big', 'a', 'b', 'big2', 'c']);
      for (const id of ['big', 'a', 'b', 'big2', 'c']) {
        expect(answered.get(id)).toEqual({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: id }] } });
      }
    } finally {
      await handle.close();
    }
  });
});
