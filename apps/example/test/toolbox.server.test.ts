import type { Context } from '@armature/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExampleApp } from '../src/app.js';
import { CountDownInput } from '../src/toolbox.dto.js';
import { ToolboxServer } from '../src/toolbox.server.js';
import { connectInMemory, type InMemoryConnection } from './support/in-memory.js';
import { decodePng } from './support/png.js';
import { lastToolCall } from './support/traffic.js';

const app = createExampleApp();
let conn: InMemoryConnection;

beforeAll(async () => {
  conn = await connectInMemory(app);
});
afterAll(async () => {
  await conn?.close();
});

function textOf(result: { content?: unknown }): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  return content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n');
}

describe('tools/list', () => {
  it('lists every example tool, in declaration order, toolbox first', async () => {
    const { tools } = await conn.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add', 'count_down', 'render_swatch', 'count_words', 'get_price', 'quote_order']);
  });

  it('advertises add with the DTO schema, the @Field descriptions and readOnlyHint', async () => {
    const { tools } = await conn.client.listTools();
    const add = tools.find((tool) => tool.name === 'add');
    expect(add).toEqual({
      name: 'add',
      description: 'Adds two numbers and returns the sum.',
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          a: { type: 'number', description: 'The first addend' },
          b: { type: 'number', description: 'The second addend' },
        },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    });
  });

  it('advertises the property initialisers of count_down as defaults, so nothing is required', async () => {
    const { tools } = await conn.client.listTools();
    const schema = tools.find((tool) => tool.name === 'count_down')?.inputSchema;
    expect(schema?.properties).toEqual({
      steps: { type: 'integer', minimum: 1, maximum: 1000, default: 5, description: 'How many steps to count down' },
      delayMs: { type: 'integer', minimum: 0, maximum: 10_000, default: 200, description: 'Pause between two steps, in milliseconds' },
    });
    expect(schema?.required).toBeUndefined();
  });

  it('advertises the hand-written schema of count_words as written', async () => {
    const { tools } = await conn.client.listTools();
    expect(tools.find((tool) => tool.name === 'count_words')?.inputSchema).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, description: 'The text to count' },
        top: { type: 'integer', minimum: 1, maximum: 20, default: 3, description: 'How many of the most frequent words to list' },
      },
      required: ['text'],
      additionalProperties: false,
    });
  });
});

describe('add', () => {
  it('returns the sum as one text block', async () => {
    const result = await conn.client.callTool({ name: 'add', arguments: { a: 1.5, b: -4 } });
    expect(result).toEqual({ content: [{ type: 'text', text: '-2.5' }] });
  });

  it('names every bad field, one line each, and does not run the method', async () => {
    const result = await conn.client.callTool({ name: 'add', arguments: { a: 'two', c: 1 } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      [
        'Invalid arguments for tool "add":',
        // class-validator reports unknown properties before the declared ones.
        'c: unknown property; remove it',
        'a: must be a number conforming to the specified constraints',
        'b: must be a number conforming to the specified constraints',
      ].join('\n'),
    );
  });

  it('does not convert numeric strings (no implicit conversion)', async () => {
    const result = await conn.client.callTool({ name: 'add', arguments: { a: '2', b: 3 } });
    expect(textOf(result)).toBe('Invalid arguments for tool "add":\na: must be a number conforming to the specified constraints');
  });
});

describe('count_down', () => {
  it('reports progress against the request token, logs, and returns at the end', async () => {
    const seen: number[] = [];
    const result = await conn.client.callTool(
      { name: 'count_down', arguments: { steps: 3, delayMs: 0 } },
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(result).toEqual({ content: [{ type: 'text', text: 'Lift-off after 3 steps' }] });
    const token = lastToolCall(conn.traffic, 'count_down').params?._meta?.progressToken;
    expect(token).toBeDefined();
    expect(conn.traffic.progressFor(token)).toEqual([
      { progress: 0, total: 3, message: '3 to go' },
      { progress: 1, total: 3, message: '2 to go' },
      { progress: 2, total: 3, message: '1 to go' },
    ]);
    expect(seen).toEqual([0, 1, 2]);
    const logs = conn.traffic.received.filter((m) => m.method === 'notifications/message').map((m) => m.params?.data);
    expect(logs).toContain('count_down: 3 steps of 0 ms');
  });

  it('applies the default steps when the argument is absent', async () => {
    const result = await conn.client.callTool({ name: 'count_down', arguments: { delayMs: 0 } });
    expect(textOf(result)).toBe('Lift-off after 5 steps');
  });

  it('stops at once when cancelled: the call rejects, no response comes, and the connection stays up', async () => {
    const abort = new AbortController();
    const call = conn.client.callTool(
      { name: 'count_down', arguments: { steps: 50, delayMs: 10_000 } },
      { signal: abort.signal, onprogress: () => abort.abort('user cancelled') },
    );
    await expect(call).rejects.toThrow();
    const id = lastToolCall(conn.traffic, 'count_down').id;
    expect(conn.traffic.sent).toContainEqual(
      expect.objectContaining({ method: 'notifications/cancelled', params: expect.objectContaining({ requestId: id }) }),
    );
    // The method is parked in a 10 s sleep: its DI scope closes only when it returns, so a scope
    // count back at 0 within a second proves the sleep was cut short.
    await expect.poll(() => app.stats.liveScopes, { timeout: 1_000, interval: 20 }).toBe(0);
    await conn.client.ping();
    expect(conn.traffic.received.filter((m) => m.id === id)).toEqual([]);
  });

  it('as a plain method: rejects on abort and sends no progress after it', async () => {
    const abort = new AbortController();
    const progress: number[] = [];
    const ctx = {
      signal: abort.signal,
      meta: {},
      requestId: 1,
      log: { info: async () => undefined },
      progress: async (value: number) => {
        progress.push(value);
        abort.abort();
      },
    } as unknown as Context;
    const started = Date.now();
    await expect(new ToolboxServer().countDown(Object.assign(new CountDownInput(), { steps: 50, delayMs: 10_000 }), ctx)).rejects.toThrow(
      /aborted/i,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(progress).toEqual([0]);
  });
});

describe('render_swatch', () => {
  it('returns a caption and a valid PNG of the asked size, every pixel the asked colour', async () => {
    const result = await conn.client.callTool({ name: 'render_swatch', arguments: { color: '#FF8800', size: 4 } });
    const [caption, picture] = result.content as [{ type: 'text'; text: string }, { type: 'image'; data: string; mimeType: string }];
    expect(caption).toEqual({ type: 'text', text: 'A 4x4 swatch of #ff8800' });
    expect(picture.type).toBe('image');
    expect(picture.mimeType).toBe('image/png');
    const png = decodePng(Buffer.from(picture.data, 'base64'));
    expect(png).toMatchObject({ width: 4, height: 4, bitDepth: 8, colorType: 2 });
    expect(png.pixels).toHaveLength(16);
    expect(new Set(png.pixels.map((p) => p.join(',')))).toEqual(new Set(['255,136,0']));
  });

  it('uses the default size of 8', async () => {
    const result = await conn.client.callTool({ name: 'render_swatch', arguments: { color: '#000000' } });
    const picture = (result.content as Array<{ type: string; data?: string }>)[1];
    expect(decodePng(Buffer.from(picture?.data ?? '', 'base64'))).toMatchObject({ width: 8, height: 8 });
  });

  it('explains a bad colour with the DTO message', async () => {
    const result = await conn.client.callTool({ name: 'render_swatch', arguments: { color: 'orange', size: 0 } });
    expect(textOf(result)).toBe(
      ['Invalid arguments for tool "render_swatch":', 'color: must be a colour written #rrggbb', 'size: must not be less than 1'].join(
        '\n',
      ),
    );
  });
});

describe('count_words (raw JSON Schema)', () => {
  it('receives the checked plain JSON with the schema default applied', async () => {
    const result = await conn.client.callTool({ name: 'count_words', arguments: { text: 'The cat saw the other cat. The end!' } });
    const expected = {
      words: 8,
      distinct: 5,
      top: [
        { word: 'the', count: 3 },
        { word: 'cat', count: 2 },
        { word: 'end', count: 1 },
      ],
    };
    expect(result.structuredContent).toEqual(expected);
    expect(JSON.parse(textOf(result))).toEqual(expected);
  });

  it('reports schema violations in the same format as DTO tools', async () => {
    const result = await conn.client.callTool({ name: 'count_words', arguments: { text: '', top: 50, extra: true } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      [
        'Invalid arguments for tool "count_words":',
        'extra: unknown property; remove it',
        'text: must NOT have fewer than 1 characters',
        'top: must be <= 20',
      ].join('\n'),
    );
  });
});
