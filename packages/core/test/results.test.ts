import { Exclude } from 'class-transformer';
import { IsIn, IsInt, IsString } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audio, createMcpApp, embeddedResource, image, McpServer, resourceLink, Tool, text } from '../src/index.js';
import { type Connected, connectInMemory } from './support/clients.js';

class Price {
  @IsString()
  sku!: string;
  @IsInt()
  cents!: number;
  @IsIn(['EUR'])
  currency!: string;
}

class Account {
  @IsString()
  name = 'ada';
  @Exclude()
  password = 'secret';
}

const returns: Record<string, () => unknown> = {
  string: () => 'hello',
  object: () => ({ a: 1, nested: { b: [1, 2] } }),
  array: () => [1, 'two', { three: 3 }],
  empty_array: () => [],
  number: () => 42,
  boolean: () => true,
  null: () => null,
  undefined: () => undefined,
  block: () => text('one block'),
  blocks: () => [text('Here is the chart:'), image(new Uint8Array([137, 80, 78, 71]), 'image/png')],
  result: () => ({ content: [text('custom')], structuredContent: { x: 1 }, _meta: { trace: 't1' } }),
  result_error: () => ({ content: [text('application failure')], isError: true }),
  content_empty: () => ({ content: [] }),
  content_data: () => ({ content: ['not', 'blocks'] }),
  instance: () => new Account(),
  date: () => new Date('2026-01-02T03:04:05.000Z'),
  bigint: () => 10n,
};

@McpServer({ name: 'results', version: '1.0.0' })
class ResultServer {
  @Tool({ description: 'returns a value chosen by name', inputSchema: { type: 'object', properties: { kind: { type: 'string' } } } })
  give(input: { kind: string }) {
    return returns[input.kind]?.();
  }

  @Tool({ description: 'audio, link and embedded resource helpers' })
  helpers() {
    return [
      audio('UklGRg==', 'audio/wav'),
      resourceLink('file:///q3.csv', 'q3.csv', { mimeType: 'text/csv' }),
      embeddedResource('test://doc', 'hello', { mimeType: 'text/plain' }),
      embeddedResource('test://bin', new Uint8Array([1, 2, 3]), { mimeType: 'application/octet-stream' }),
    ];
  }

  @Tool({ description: 'price', output: () => Price, inputSchema: { type: 'object', properties: { kind: { type: 'string' } } } })
  price(input: { kind: string }) {
    switch (input.kind) {
      case 'ok':
        return { sku: 'A1', cents: 250, currency: 'EUR' };
      case 'extra':
        return { sku: 'A1', cents: 250, currency: 'EUR', internal: 'cost=100' };
      case 'wrong':
        return { sku: 'A1', cents: 'cheap', currency: 'USD' };
      case 'result':
        return { content: [text('see structured')], structuredContent: { sku: 'B2', cents: 1, currency: 'EUR' } };
      case 'error':
        return { content: [text('out of stock')], isError: true };
      default:
        return undefined;
    }
  }

  @Tool({
    description: 'raw output schema',
    outputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'], additionalProperties: false },
    inputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  })
  total(input: { ok: boolean }) {
    return input.ok ? { total: 3 } : { total: 'three' };
  }
}

let connection: Connected;
beforeAll(async () => {
  connection = await connectInMemory(createMcpApp(ResultServer));
});
afterAll(() => connection.close());

const give = (kind: string) => connection.client.callTool({ name: 'give', arguments: { kind } });

describe('return values become CallToolResults by the seeds rules', () => {
  it('string -> one text block', async () => {
    expect(await give('string')).toEqual({ content: [{ type: 'text', text: 'hello' }] });
  });

  it('object -> structuredContent plus its JSON as text', async () => {
    expect(await give('object')).toEqual({
      content: [{ type: 'text', text: '{"a":1,"nested":{"b":[1,2]}}' }],
      structuredContent: { a: 1, nested: { b: [1, 2] } },
    });
  });

  it('array, number, boolean, null -> JSON text only', async () => {
    expect(await give('array')).toEqual({ content: [{ type: 'text', text: '[1,"two",{"three":3}]' }] });
    expect(await give('empty_array')).toEqual({ content: [{ type: 'text', text: '[]' }] });
    expect(await give('number')).toEqual({ content: [{ type: 'text', text: '42' }] });
    expect(await give('boolean')).toEqual({ content: [{ type: 'text', text: 'true' }] });
    expect(await give('null')).toEqual({ content: [{ type: 'text', text: 'null' }] });
    expect(await give('date')).toEqual({ content: [{ type: 'text', text: '"2026-01-02T03:04:05.000Z"' }] });
  });

  it('undefined -> an empty result', async () => {
    expect(await give('undefined')).toEqual({ content: [] });
  });

  it('a content block or an array of blocks -> as is', async () => {
    expect(await give('block')).toEqual({ content: [{ type: 'text', text: 'one block' }] });
    expect(await give('blocks')).toEqual({
      content: [
        { type: 'text', text: 'Here is the chart:' },
        { type: 'image', data: 'iVBORw==', mimeType: 'image/png' },
      ],
    });
  });

  it('a CallToolResult-shaped object -> sent as the result', async () => {
    expect(await give('result')).toEqual({
      content: [{ type: 'text', text: 'custom' }],
      structuredContent: { x: 1 },
      _meta: { trace: 't1' },
    });
    expect(await give('result_error')).toEqual({ content: [{ type: 'text', text: 'application failure' }], isError: true });
  });

  it('{ content: [] } alone, or content that is not blocks, is data', async () => {
    expect(await give('content_empty')).toEqual({
      content: [{ type: 'text', text: '{"content":[]}' }],
      structuredContent: { content: [] },
    });
    expect(await give('content_data')).toEqual({
      content: [{ type: 'text', text: '{"content":["not","blocks"]}' }],
      structuredContent: { content: ['not', 'blocks'] },
    });
  });

  it('a class instance goes through class-transformer (@Exclude honoured)', async () => {
    expect(await give('instance')).toEqual({ content: [{ type: 'text', text: '{"name":"ada"}' }], structuredContent: { name: 'ada' } });
  });

  it('a value that cannot be JSON is a tool error, not a crash', async () => {
    const result = await give('bigint');
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]?.text).toBe(
      'Tool "give" returned a value that cannot be sent as JSON: Do not know how to serialize a BigInt',
    );
  });

  it('content helpers build audio, resource links and embedded resources', async () => {
    const result = await connection.client.callTool({ name: 'helpers', arguments: {} });
    expect(result.content).toEqual([
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
      { type: 'resource_link', uri: 'file:///q3.csv', name: 'q3.csv', mimeType: 'text/csv' },
      { type: 'resource', resource: { uri: 'test://doc', text: 'hello', mimeType: 'text/plain' } },
      { type: 'resource', resource: { uri: 'test://bin', blob: 'AQID', mimeType: 'application/octet-stream' } },
    ]);
  });
});

describe('with an output schema the value is validated at run time', () => {
  const price = (kind: string) => connection.client.callTool({ name: 'price', arguments: { kind } });

  it('sends a valid value as structuredContent plus a JSON text copy', async () => {
    expect(await price('ok')).toEqual({
      content: [{ type: 'text', text: '{"sku":"A1","cents":250,"currency":"EUR"}' }],
      structuredContent: { sku: 'A1', cents: 250, currency: 'EUR' },
    });
  });

  it('strips members the output DTO does not declare', async () => {
    expect((await price('extra')).structuredContent).toEqual({ sku: 'A1', cents: 250, currency: 'EUR' });
  });

  it('answers a mismatch with a tool error naming it, never malformed data', async () => {
    const result = await price('wrong');
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: 'Invalid result from tool "price" (it does not match its output schema):\ncents: must be an integer number\ncurrency: must be one of the following values: EUR',
        },
      ],
      isError: true,
    });
  });

  it('answers a missing value with a tool error', async () => {
    const result = await price('missing');
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]?.text).toBe(
      'Invalid result from tool "price" (it does not match its output schema):\nexpected an object matching the output schema, got nothing (undefined)',
    );
  });

  it('validates structuredContent of a full result, and lets an isError result through', async () => {
    expect(await price('result')).toEqual({
      content: [{ type: 'text', text: 'see structured' }],
      structuredContent: { sku: 'B2', cents: 1, currency: 'EUR' },
    });
    expect(await price('error')).toEqual({ content: [{ type: 'text', text: 'out of stock' }], isError: true });
  });

  it('validates against a raw outputSchema', async () => {
    expect((await connection.client.callTool({ name: 'total', arguments: { ok: true } })).structuredContent).toEqual({ total: 3 });
    const bad = await connection.client.callTool({ name: 'total', arguments: { ok: false } });
    expect((bad.content as Array<{ text: string }>)[0]?.text).toBe(
      'Invalid result from tool "total" (it does not match its output schema):\ntotal: must be number',
    );
  });
});
