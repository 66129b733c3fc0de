import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { LineTransport } from '../src/transports/stdio/line-transport.js';

/** A line transport on a pipe pair, with every raw output line and every delivered message. */
async function openTransport(options: { maxMessageBytes?: number } = {}) {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  let output = '';
  fromServer.on('data', (c: Buffer) => {
    output += c.toString('utf8');
  });
  const transport = new LineTransport(toServer, fromServer, options);
  const received: unknown[] = [];
  transport.onmessage = (m) => received.push(m);
  await transport.start();
  return { toServer, transport, received, lines: () => output.split('\n').filter(Boolean) };
}

describe('stdio: odd input is answered, never guessed at', () => {
  it('answers a line that is not valid UTF-8 with -32700 instead of replacing the bytes', async () => {
    const { toServer, transport, received, lines } = await openTransport();
    // "\xff" is never valid UTF-8; decoding it leniently would turn it into U+FFFD and run the call.
    toServer.write(
      Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"'), Buffer.from([0xff]), Buffer.from('"}}\n')]),
    );
    toServer.write('{"jsonrpc":"2.0","id":4,"method":"ping"}\n');
    await vi.waitFor(
      () => {
        expect(received).toHaveLength(1);
        expect(lines()).toHaveLength(1);
      },
      { timeout: 10_000 },
    );
    expect(lines()).toEqual([
      JSON.stringify({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: the line is not valid UTF-8; send JSON text encoded as UTF-8' },
      }),
    ]);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 4, method: 'ping' }]);
    await transport.close();
  });

  it('refuses an id beyond the safe integer range, echoing it exactly as written (not rounded)', async () => {
    const { toServer, transport, received, lines } = await openTransport();
    toServer.write('{"jsonrpc":"2.0","id":1152921504606846977,"method":"ping","params":{"id":5}}\n');
    await vi.waitFor(() => expect(lines()).toHaveLength(1), { timeout: 10_000 });
    expect(lines()).toEqual([
      '{"jsonrpc":"2.0","id":1152921504606846977,"error":{"code":-32600,"message":"Invalid Request: the id 1152921504606846977 is not an integer between -(2^53-1) and 2^53-1; use a smaller integer or a string id"}}',
    ]);
    expect(received).toEqual([]);
    await transport.close();
  });

  it('answers an over-long line with the id read from its head', async () => {
    const { toServer, transport, lines } = await openTransport({ maxMessageBytes: 1_000 });
    toServer.write(`{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"pad":"${'x'.repeat(5_000)}"}}\n`);
    await vi.waitFor(() => expect(lines()).toHaveLength(1), { timeout: 10_000 });
    expect(lines().map((l) => JSON.parse(l))).toEqual([
      { jsonrpc: '2.0', id: 'big-1', error: { code: -32600, message: 'Invalid Request: a message must not exceed 1000 bytes' } },
    ]);
    await transport.close();
  });

  it('refuses a request reusing the id of one still in flight, and takes the id again once answered', async () => {
    const { toServer, transport, received, lines } = await openTransport();
    toServer.write('{"jsonrpc":"2.0","id":9,"method":"ping"}\n{"jsonrpc":"2.0","id":9,"method":"tools/list"}\n');
    await vi.waitFor(
      () => {
        expect(received).toHaveLength(1);
        expect(lines()).toHaveLength(1);
      },
      { timeout: 10_000 },
    );
    expect(received).toEqual([{ jsonrpc: '2.0', id: 9, method: 'ping' }]);
    expect(lines().map((l) => JSON.parse(l))).toEqual([
      {
        jsonrpc: '2.0',
        id: 9,
        error: { code: -32600, message: 'Invalid Request: a request with id 9 is still in flight; use a new id for each request' },
      },
    ]);
    await transport.send({ jsonrpc: '2.0', id: 9, result: {} });
    toServer.write('{"jsonrpc":"2.0","id":9,"method":"tools/list"}\n');
    await vi.waitFor(() => expect(received).toHaveLength(2), { timeout: 10_000 });
    expect(received).toHaveLength(2);
    await transport.close();
  });
});

describe('stdio: a spawned server with a request id reused while the first call runs', () => {
  const fixture = fileURLToPath(new URL('./fixtures/stdio-server.mjs', import.meta.url));

  it('answers the duplicate -32600 and the first call alone gets its result', async () => {
    const child = spawn(process.execPath, [fixture], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    try {
      const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'second' } } });
      send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'after cancel' } } });
      await vi.waitFor(() => expect((stdout.match(/"id":2/g) ?? []).length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
      const answers = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((m) => m.id === 2);
      expect(answers).toEqual([
        {
          jsonrpc: '2.0',
          id: 2,
          error: { code: -32600, message: 'Invalid Request: a request with id 2 is still in flight; use a new id for each request' },
        },
        { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'after cancel' }] } },
      ]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 20_000);
});
