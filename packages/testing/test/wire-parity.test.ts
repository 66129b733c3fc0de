import { fileURLToPath } from 'node:url';
import { createMcpApp } from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { createTestingApp, wireDates } from '../src/index.js';
// @ts-expect-error: a plain-JavaScript fixture, also run by node over stdio
import { ShopServer } from './fixtures/shop-server.mjs';

const fixture = fileURLToPath(new URL('./fixtures/shop-server.mjs', import.meta.url));

/** What a tool call answers, over each way a client reaches the server. */
const transports: Record<string, (args: Record<string, unknown>) => Promise<unknown>> = {
  async 'the testing kit'(args) {
    const t = await createTestingApp({ servers: [ShopServer] }).compile();
    try {
      return await t.callTool('checkout', args);
    } finally {
      await t.close();
    }
  },
  async stdio(args) {
    const client = new Client({ name: 'wire-parity', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixture, '--stdio'], stderr: 'ignore' }));
    try {
      return await client.callTool({ name: 'checkout', arguments: args });
    } finally {
      await client.close();
    }
  },
  async 'Streamable HTTP'(args) {
    const listener = await createMcpApp(ShopServer, { logger: false }).listenHttp({ port: 0, host: '127.0.0.1' });
    const client = new Client({ name: 'wire-parity', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
      return await client.callTool({ name: 'checkout', arguments: args });
    } finally {
      await client.close().catch(() => undefined);
      await listener.close();
    }
  },
};

describe('the testing kit returns what the wire returns', () => {
  for (const [name, call] of Object.entries(transports)) {
    it(`${name}: an omitted list-of-DTOs default arrives as CartLine instances; a Date comes back as its ISO string`, async () => {
      const result = (await call({ customer: 'ada' })) as { structuredContent?: unknown; isError?: boolean };
      expect(result.isError).toBeUndefined();
      expect(result.structuredContent).toEqual({ lines: ['CartLine 42 x2'], placed: '2026-01-02T03:04:05.000Z' });
      const sent = (await call({ customer: 'ada', items: [{ product_id: 7 }] })) as { structuredContent?: unknown };
      expect(sent.structuredContent).toEqual({ lines: ['CartLine 7 x1'], placed: '2026-01-02T03:04:05.000Z' });
    }, 30_000);
  }

  it('a test comparing a result with a Date fails saying why (wireDates)', async () => {
    expect.addEqualityTesters([wireDates]);
    const result = await transports['the testing kit']!({ customer: 'ada' });
    const placed = new Date('2026-01-02T03:04:05.000Z');
    expect(() => expect(result).toMatchObject({ structuredContent: { placed } })).toThrow(
      'a Date was compared with the string "2026-01-02T03:04:05.000Z": tool results hold what a client receives, and JSON carries a Date as its ISO string. Compare with the string: \'2026-01-02T03:04:05.000Z\' (date.toISOString())',
    );
    expect(result).toMatchObject({ structuredContent: { placed: placed.toISOString() } });
  });
});
