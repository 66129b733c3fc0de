import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPlainToolResult } from '../src/engine/era-encoding.js';
import { plainToolResultText } from '../src/engine/plain-result-text.js';
import { wireMessages } from '../src/messages/wire-messages.js';
import { LineTransport } from '../src/transports/stdio/line-transport.js';

// The stdio answer of a plain tool result is written from a constant frame and its encoded texts
// (engine/plain-result-text.ts), and a chunk of short lines is decoded once (the line transport):
// both must give the bytes JSON.stringify and the line-by-line path give.

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom('\ud800', '\udc00', '"', '\\', '\n', '\u2028') }),
);
const plainResult = fc.record(
  {
    content: fc.array(fc.record({ type: fc.constant('text' as const), text }), { maxLength: 4 }),
    structuredContent: fc.option(fc.dictionary(fc.string(), fc.jsonValue()), { nil: undefined }),
    isError: fc.option(fc.boolean(), { nil: undefined }),
  },
  { requiredKeys: ['content'] },
);

describe('plainToolResultText', () => {
  it('writes the bytes JSON.stringify writes for every plain tool result', () => {
    fc.assert(
      fc.property(plainResult, (result) => {
        expect(isPlainToolResult(result)).toBe(true);
        expect(plainToolResultText(result)).toBe(JSON.stringify(result));
      }),
      { numRuns: 500 },
    );
  });

  it('leaves a structuredContent with its own toJSON to JSON.stringify (it would see another key)', () => {
    const structuredContent = { toJSON: (key: string) => ({ key }) };
    expect(plainToolResultText({ content: [], structuredContent })).toBeUndefined();
  });
});

describe('the line transport, a chunk of whole lines at once', () => {
  async function answersTo(chunks: readonly Buffer[]): Promise<{ received: unknown[]; written: string }> {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
    });
    const transport = new LineTransport(input, output);
    const received: unknown[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    for (const chunk of chunks) input.write(chunk);
    await new Promise((resolve) => setImmediate(resolve));
    await transport.close();
    return { received, written };
  }

  it('answers as line by line when a chunk holds invalid UTF-8, blank lines and a partial line', async () => {
    const ping = (id: number) => Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`);
    const bad = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":9,"method":"x","params":{"s":"'),
      Buffer.from([0xff]),
      Buffer.from('"}}\n'),
    ]);
    const together = await answersTo([
      Buffer.concat([ping(1), Buffer.from('\r\n  \n'), bad, ping(2), Buffer.from('{"jsonrpc":"2.0",')]),
      Buffer.from('"id":3,"method":"ping"}\n'),
    ]);
    const apart = await answersTo([
      ping(1),
      Buffer.from('\r\n'),
      Buffer.from('  \n'),
      bad,
      ping(2),
      Buffer.from('{"jsonrpc":"2.0",'),
      Buffer.from('"id":3,"method":"ping"}\n'),
    ]);
    expect(together.received.map((m) => (m as { id: number }).id)).toEqual([1, 2, 3]);
    expect(together).toEqual(apart);
    expect(together.written).toBe(
      `{"jsonrpc":"2.0","id":null,"error":${JSON.stringify({ code: -32700, message: wireMessages.notUtf8 })}}\n`,
    );
  });

  it('refuses a request id still in flight, telling the string "1" from the number 1', async () => {
    const { received, written } = await answersTo([
      Buffer.from(
        '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":"1","method":"ping"}\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
      ),
    ]);
    expect(received.map((m) => (m as { id: unknown }).id)).toEqual([1, '1']);
    expect(written).toMatch(/^\{"jsonrpc":"2.0","id":1,"error":\{"code":-32600,/);
  });
});
