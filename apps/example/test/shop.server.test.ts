import { Container } from 'typedi';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createExampleApp } from '../src/app.js';
import { PriceCatalogue } from '../src/price-catalogue.service.js';
import { connectInMemory, type InMemoryConnection } from './support/in-memory.js';
import { lastToolCall } from './support/traffic.js';

let conn: InMemoryConnection;

beforeAll(async () => {
  conn = await connectInMemory(createExampleApp());
});
afterAll(async () => {
  await conn?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ text?: string }>).map((block) => block.text).join('\n');
}

const quoteArgs = { shipTo: { country: 'FR', postcode: '75001' }, lines: [{ sku: 'TEA-001', quantity: 2 }, { sku: 'POT-001' }] };

describe('get_price (output DTO)', () => {
  it('advertises PriceOutput as its outputSchema', async () => {
    const { tools } = await conn.client.listTools();
    const tool = tools.find((t) => t.name === 'get_price');
    expect(tool?.outputSchema).toMatchObject({
      type: 'object',
      required: ['sku', 'name', 'currency', 'unitPrice', 'inStock'],
      additionalProperties: false,
      properties: { currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'] }, unitPrice: { type: 'integer', minimum: 0 } },
    });
    expect(tool?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
  });

  it('returns structuredContent and the same JSON as text, in the default currency', async () => {
    const result = await conn.client.callTool({ name: 'get_price', arguments: { sku: 'TEA-002' } });
    const expected = { sku: 'TEA-002', name: 'Assam black tea, 250 g', currency: 'EUR', unitPrice: 1200, inStock: true };
    expect(result.structuredContent).toEqual(expected);
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(expected) }]);
    expect(result.isError).toBeUndefined();
  });

  it('converts to the currency asked for', async () => {
    const result = await conn.client.callTool({ name: 'get_price', arguments: { sku: 'MUG-001', currency: 'USD' } });
    expect(result.structuredContent).toEqual({ sku: 'MUG-001', name: 'Stoneware mug', currency: 'USD', unitPrice: 1595, inStock: false });
  });

  it('answers an unknown SKU with a tool error that lists the known ones', async () => {
    const result = await conn.client.callTool({ name: 'get_price', arguments: { sku: 'CUP-999' } });
    expect(result).toEqual({
      content: [{ type: 'text', text: 'No product with SKU "CUP-999". Known SKUs: TEA-001, TEA-002, MUG-001, POT-001.' }],
      isError: true,
    });
  });

  it('rejects a malformed SKU and an unknown currency before the method runs', async () => {
    const find = vi.spyOn(Container.get(PriceCatalogue), 'find');
    const result = await conn.client.callTool({ name: 'get_price', arguments: { sku: 'tea-1', currency: 'JPY' } });
    expect(textOf(result)).toBe(
      [
        'Invalid arguments for tool "get_price":',
        'sku: must look like TEA-001',
        'currency: must be one of the following values: EUR, USD, GBP',
      ].join('\n'),
    );
    expect(find).not.toHaveBeenCalled();
  });

  it('is served by the typedi singleton catalogue injected into ShopServer', async () => {
    const find = vi.spyOn(Container.get(PriceCatalogue), 'find');
    await conn.client.callTool({ name: 'get_price', arguments: { sku: 'TEA-001' } });
    expect(find).toHaveBeenCalledWith('TEA-001');
  });
});

describe('quote_order (nested DTOs)', () => {
  it('prices every line with the defaults applied (EUR, standard shipping, quantity 1)', async () => {
    const result = await conn.client.callTool({ name: 'quote_order', arguments: quoteArgs });
    expect(result.structuredContent).toEqual({
      currency: 'EUR',
      shipTo: { country: 'FR', postcode: '75001' },
      shipping: 'standard',
      lines: [
        { sku: 'TEA-001', name: 'Sencha green tea, 100 g', quantity: 2, unitPrice: 850, lineTotal: 1700 },
        { sku: 'POT-001', name: 'Cast-iron teapot', quantity: 1, unitPrice: 4900, lineTotal: 4900 },
      ],
      shippingCost: 490,
      total: 7090,
    });
  });

  it('honours the enums and the optional reference', async () => {
    const result = await conn.client.callTool({
      name: 'quote_order',
      arguments: { ...quoteArgs, currency: 'GBP', shipping: 'express', reference: 'PO-42' },
    });
    expect(result.structuredContent).toMatchObject({
      reference: 'PO-42',
      currency: 'GBP',
      shipping: 'express',
      lines: [
        { sku: 'TEA-001', unitPrice: 723, lineTotal: 1446 },
        { sku: 'POT-001', unitPrice: 4165, lineTotal: 4165 },
      ],
      shippingCost: 1097,
      total: 6708,
    });
  });

  it('reports errors inside the nested object and the array with dotted paths', async () => {
    const result = await conn.client.callTool({
      name: 'quote_order',
      arguments: {
        shipTo: { country: 'France', postcode: '' },
        lines: [
          { sku: 'TEA-001', quantity: 101 },
          { sku: 'TEA-001', colour: 'red' },
        ],
        shipping: 'overnight',
      },
    });
    expect(textOf(result)).toBe(
      [
        'Invalid arguments for tool "quote_order":',
        'shipTo.country: must be a two-letter country code such as FR',
        'shipTo.postcode: must be longer than or equal to 1 characters',
        'lines.0.quantity: must not be greater than 100',
        'lines.1.colour: unknown property; remove it',
        'shipping: must be one of the following values: standard, express',
      ].join('\n'),
    );
  });

  it('requires at least one line', async () => {
    const result = await conn.client.callTool({ name: 'quote_order', arguments: { shipTo: quoteArgs.shipTo, lines: [] } });
    expect(textOf(result)).toBe('Invalid arguments for tool "quote_order":\nlines: must contain at least 1 elements');
  });

  it('logs through the request-scoped QuoteLog, built with the Context of that very call', async () => {
    await conn.client.callTool({ name: 'quote_order', arguments: quoteArgs });
    const { id } = lastToolCall(conn.traffic, 'quote_order');
    const logs = conn.traffic.received.filter((m) => m.method === 'notifications/message').map((m) => m.params);
    expect(logs).toContainEqual({
      level: 'info',
      data: { message: 'quote_order: 2 line(s), total 7090 EUR minor units', data: { requestId: id } },
    });
  });
});
