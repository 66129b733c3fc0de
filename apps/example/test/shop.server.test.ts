import { buildDto, createTestContext, createTestingApp, expectDtoRejects, type TestingApp, textOf } from '@armature/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Currency, PriceCatalogue, type Product } from '../src/price-catalogue.service.js';
import { QuoteLog } from '../src/quote-log.service.js';
import { Address, GetPriceInput, OrderLine, QuoteInput, ShippingSpeed } from '../src/shop.dto.js';
import { ShopServer } from '../src/shop.server.js';
import { lastToolCall, recordClientTraffic, type Traffic } from './support/traffic.js';

// ShopServer at the three levels of @armature/testing, fastest first:
//   1. plain method: `new ShopServer(catalogue, quoteLog)` with collaborators built by hand.
//   2. DTO: `buildDto` / `expectDtoRejects` on the nested input DTOs.
//   3. full pipeline: the real providers, then a fake PriceCatalogue put in by `overrideProvider`.

/** A DTO instance as a test builds it by hand: no validation, the class initialisers as defaults. */
function dto<T extends object>(type: new () => T, values: Partial<T>): T {
  return Object.assign(new type(), values);
}

const quoteArgs = { shipTo: { country: 'FR', postcode: '75001' }, lines: [{ sku: 'TEA-001', quantity: 2 }, { sku: 'POT-001' }] };

/** The quote of `quoteArgs` from the real catalogue, with every default (EUR, standard shipping, quantity 1). */
const defaultQuote = {
  currency: 'EUR',
  shipTo: { country: 'FR', postcode: '75001' },
  shipping: 'standard',
  lines: [
    { sku: 'TEA-001', name: 'Sencha green tea, 100 g', quantity: 2, unitPrice: 850, lineTotal: 1700 },
    { sku: 'POT-001', name: 'Cast-iron teapot', quantity: 1, unitPrice: 4900, lineTotal: 4900 },
  ],
  shippingCost: 490,
  total: 7090,
};

describe('ShopServer, level 1: plain methods', () => {
  // Both collaborators are real and cheap: the catalogue is plain data, and the request-scoped
  // QuoteLog takes the Context of the call, here the recording test context.
  const ctx = createTestContext({ requestId: 42 });
  const shop = new ShopServer(new PriceCatalogue(), new QuoteLog(ctx));

  beforeEach(() => {
    ctx.logs.length = 0;
  });

  it('get_price returns the catalogue entry in the currency asked for, rounded to the minor unit', () => {
    expect(shop.getPrice(dto(GetPriceInput, { sku: 'TEA-002' }))).toEqual({
      sku: 'TEA-002',
      name: 'Assam black tea, 250 g',
      currency: 'EUR',
      unitPrice: 1200,
      inStock: true,
    });
    expect(shop.getPrice(dto(GetPriceInput, { sku: 'MUG-001', currency: Currency.USD }))).toMatchObject({
      unitPrice: 1595,
      inStock: false,
    });
    expect(shop.getPrice(dto(GetPriceInput, { sku: 'TEA-001', currency: Currency.GBP })).unitPrice).toBe(723); // 850 x 0.85 = 722.5
  });

  it('get_price throws a ToolError listing the known SKUs for an unknown one', () => {
    expect(() => shop.getPrice(dto(GetPriceInput, { sku: 'CUP-999' }))).toThrow(
      'No product with SKU "CUP-999". Known SKUs: TEA-001, TEA-002, MUG-001, POT-001.',
    );
  });

  it('quote_order prices every line and shipping, and reports the quote through QuoteLog', async () => {
    const input = dto(QuoteInput, {
      shipTo: dto(Address, quoteArgs.shipTo),
      lines: [dto(OrderLine, { sku: 'TEA-001', quantity: 2 }), dto(OrderLine, { sku: 'POT-001' })],
    });

    expect(await shop.quoteOrder(input)).toEqual(defaultQuote);
    expect(ctx.logs).toEqual([{ level: 'info', message: 'quote_order: 2 line(s), total 7090 EUR minor units', data: { requestId: 42 } }]);
  });

  it('quote_order honours the currency, the shipping speed and the optional reference', async () => {
    const input = dto(QuoteInput, {
      shipTo: dto(Address, quoteArgs.shipTo),
      lines: [dto(OrderLine, { sku: 'TEA-001', quantity: 2 }), dto(OrderLine, { sku: 'POT-001' })],
      currency: Currency.GBP,
      shipping: ShippingSpeed.Express,
      reference: 'PO-42',
    });

    expect(await shop.quoteOrder(input)).toMatchObject({
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

  it('quote_order refuses an order with an unknown SKU, and reports no quote', async () => {
    const input = dto(QuoteInput, {
      shipTo: dto(Address, quoteArgs.shipTo),
      lines: [dto(OrderLine, { sku: 'TEA-001' }), dto(OrderLine, { sku: 'CUP-999' })],
    });

    await expect(shop.quoteOrder(input)).rejects.toThrow('No product with SKU "CUP-999".');
    expect(ctx.logs).toEqual([]);
  });
});

describe('ShopServer, level 2: DTOs', () => {
  describe('GetPriceInput', () => {
    it('defaults the currency to EUR and accepts every Currency', async () => {
      expect(await buildDto(GetPriceInput, { sku: 'TEA-001' })).toEqual(dto(GetPriceInput, { sku: 'TEA-001', currency: Currency.EUR }));
      for (const currency of Object.values(Currency)) {
        expect((await buildDto(GetPriceInput, { sku: 'POT-001', currency })).currency).toBe(currency);
      }
    });

    it.each([
      [{}, ['sku: is required']],
      [{ sku: 42 }, ['sku: must be string']],
      [{ sku: 'tea-1', currency: 'JPY' }, ['sku: must look like TEA-001', 'currency: must be one of the following values: EUR, USD, GBP']],
      [{ sku: 'TEA-001', quantity: 2 }, ['quantity: unknown property; remove it']],
    ])('rejects %j', async (values, lines) => {
      await expectDtoRejects(GetPriceInput, values, lines);
    });
  });

  describe('QuoteInput (nested DTOs)', () => {
    it('builds the nested Address and OrderLines, with the defaults applied at every level', async () => {
      const input = await buildDto(QuoteInput, quoteArgs);
      expect(input).toBeInstanceOf(QuoteInput);
      expect(input.shipTo).toBeInstanceOf(Address);
      expect(input.lines.map((line) => line instanceof OrderLine)).toEqual([true, true]);
      expect(input).toEqual(
        dto(QuoteInput, {
          shipTo: dto(Address, { country: 'FR', postcode: '75001' }),
          lines: [dto(OrderLine, { sku: 'TEA-001', quantity: 2 }), dto(OrderLine, { sku: 'POT-001', quantity: 1 })],
          currency: Currency.EUR,
          shipping: ShippingSpeed.Standard,
        }),
      );
      expect(input.reference).toBeUndefined();
    });

    it('accepts every upper boundary: 20 lines of 100 units, a 12-character postcode, a 64-character reference', async () => {
      const input = await buildDto(QuoteInput, {
        shipTo: { country: 'GB', postcode: 'x'.repeat(12) },
        lines: Array.from({ length: 20 }, () => ({ sku: 'TEA-001', quantity: 100 })),
        reference: 'r'.repeat(64),
      });
      expect(input.lines).toHaveLength(20);
    });

    it.each([
      ['no order at all', {}, ['shipTo: is required', 'lines: is required']],
      ['an empty order', { shipTo: quoteArgs.shipTo, lines: [] }, ['lines: must contain at least 1 elements']],
      [
        'values past the upper boundaries',
        {
          shipTo: { country: 'FR', postcode: 'x'.repeat(13) },
          lines: Array.from({ length: 21 }, () => ({ sku: 'TEA-001' })),
          currency: 'JPY',
          reference: 'r'.repeat(65),
        },
        [
          'shipTo.postcode: must be shorter than or equal to 12 characters',
          'lines: must contain no more than 20 elements',
          'currency: must be one of the following values: EUR, USD, GBP',
          'reference: must be shorter than or equal to 64 characters',
        ],
      ],
      [
        'bad values inside the nested object and the array, with dotted paths',
        {
          shipTo: { country: 'France', postcode: '' },
          lines: [
            { sku: 'TEA-001', quantity: 101 },
            { sku: 'tea', quantity: 0 },
          ],
          shipping: 'overnight',
        },
        [
          'shipTo.country: must be a two-letter country code such as FR',
          'shipTo.postcode: must be longer than or equal to 1 characters',
          'lines.0.quantity: must not be greater than 100',
          'lines.1.sku: must look like TEA-001',
          'lines.1.quantity: must not be less than 1',
          'shipping: must be one of the following values: standard, express',
        ],
      ],
      [
        'an object where the array goes, a string where the object goes',
        { shipTo: 'FR', lines: { sku: 'TEA-001' } },
        ['shipTo: must be object', 'lines: must be array'],
      ],
      ['a bare SKU as a line', { shipTo: quoteArgs.shipTo, lines: ['TEA-001'] }, ['lines.0: must be object']],
      [
        'a line without its SKU, an address without its postcode',
        { shipTo: { country: 'FR' }, lines: [{ quantity: 2 }] },
        ['shipTo.postcode: is required', 'lines.0.sku: is required'],
      ],
      [
        'wrong types inside a line and at the top',
        { shipTo: quoteArgs.shipTo, lines: [{ sku: 'TEA-001', quantity: 1.5 }], reference: 7 },
        ['lines.0.quantity: must be integer', 'reference: must be string'],
      ],
      [
        // The shape (types, required and unknown properties) is checked first: while it is wrong,
        // the value rules are not reported, so this answer names the unknown property alone.
        'an unknown property inside a line, alongside bad values',
        {
          shipTo: { country: 'France', postcode: '' },
          lines: [
            { sku: 'TEA-001', quantity: 101 },
            { sku: 'TEA-001', colour: 'red' },
          ],
        },
        // Every problem in one answer: the unknown property first, then the bad values.
        [
          'lines.1.colour: unknown property; remove it',
          'shipTo.country: must be a two-letter country code such as FR',
          'shipTo.postcode: must be longer than or equal to 1 characters',
          'lines.0.quantity: must not be greater than 100',
        ],
      ],
    ])('rejects %s', async (_what, values, lines) => {
      await expectDtoRejects(QuoteInput, values, lines);
    });
  });
});

describe('ShopServer, level 3: full pipeline', () => {
  describe('with the real providers', () => {
    let t: TestingApp;
    let traffic: Traffic;

    beforeAll(async () => {
      t = await createTestingApp({ servers: [ShopServer] }).compile();
      traffic = recordClientTraffic(t.client);
    });
    afterAll(() => t.close());

    it('advertises PriceOutput as the outputSchema of get_price, with its annotations', async () => {
      const tool = (await t.listTools()).find((candidate) => candidate.name === 'get_price');
      expect(tool?.outputSchema).toMatchObject({
        type: 'object',
        required: ['sku', 'name', 'currency', 'unitPrice', 'inStock'],
        additionalProperties: false,
        properties: { currency: { type: 'string', enum: ['EUR', 'USD', 'GBP'] }, unitPrice: { type: 'integer', minimum: 0 } },
      });
      expect(tool?.annotations).toEqual({ readOnlyHint: true, idempotentHint: true });
    });

    it('get_price returns structuredContent and the same JSON as text, in the default currency', async () => {
      const result = await t.callTool('get_price', { sku: 'TEA-002' });
      const expected = { sku: 'TEA-002', name: 'Assam black tea, 250 g', currency: 'EUR', unitPrice: 1200, inStock: true };
      expect(result.structuredContent).toEqual(expected);
      expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(expected) }]);
      expect(result.isError).toBeUndefined();
    });

    it('get_price converts to the currency asked for', async () => {
      const result = await t.callTool('get_price', { sku: 'MUG-001', currency: 'USD' });
      expect(result.structuredContent).toEqual({ sku: 'MUG-001', name: 'Stoneware mug', currency: 'USD', unitPrice: 1595, inStock: false });
    });

    it('get_price answers an unknown SKU with a tool error that lists the known ones', async () => {
      expect(await t.callTool('get_price', { sku: 'CUP-999' })).toEqual({
        content: [{ type: 'text', text: 'No product with SKU "CUP-999". Known SKUs: TEA-001, TEA-002, MUG-001, POT-001.' }],
        isError: true,
      });
      expect(t.errors).toEqual([]); // a ToolError is an expected failure, not reported as a crash
    });

    it('quote_order prices every line with the defaults applied (EUR, standard shipping, quantity 1)', async () => {
      expect((await t.callTool('quote_order', quoteArgs)).structuredContent).toEqual(defaultQuote);
    });

    it('quote_order honours the enums and the optional reference', async () => {
      const result = await t.callTool('quote_order', { ...quoteArgs, currency: 'GBP', shipping: 'express', reference: 'PO-42' });
      expect(result.structuredContent).toMatchObject({
        reference: 'PO-42',
        currency: 'GBP',
        shipping: 'express',
        shippingCost: 1097,
        total: 6708,
      });
    });

    it('quote_order reports errors inside the nested object and the array with dotted paths', async () => {
      const result = await t.callTool('quote_order', {
        shipTo: { country: 'France', postcode: '' },
        lines: [{ sku: 'TEA-001', quantity: 101 }, { sku: 'TEA-001' }],
        shipping: 'overnight',
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        [
          'Invalid arguments for tool "quote_order":',
          'shipTo.country: must be a two-letter country code such as FR',
          'shipTo.postcode: must be longer than or equal to 1 characters',
          'lines.0.quantity: must not be greater than 100',
          'shipping: must be one of the following values: standard, express',
        ].join('\n'),
      );
    });

    it('quote_order logs through the request-scoped QuoteLog, built with the Context of that very call', async () => {
      await t.callTool('quote_order', quoteArgs);
      const first = lastToolCall(traffic, 'quote_order').id;
      await t.callTool('quote_order', { ...quoteArgs, lines: [{ sku: 'TEA-002' }] });
      const second = lastToolCall(traffic, 'quote_order').id;

      expect(second).not.toBe(first);
      expect(t.logs).toContainEqual({
        level: 'info',
        data: { message: 'quote_order: 2 line(s), total 7090 EUR minor units', data: { requestId: first } },
      });
      expect(t.logs).toContainEqual({
        level: 'info',
        data: { message: 'quote_order: 1 line(s), total 1690 EUR minor units', data: { requestId: second } },
      });
    });
  });

  describe('with a fake PriceCatalogue', () => {
    /** The public face of PriceCatalogue (its private fields would keep a plain object out). */
    type Catalogue = Pick<PriceCatalogue, keyof PriceCatalogue>;

    const products: Product[] = [
      { sku: 'FAK-001', name: 'Test tea', priceCents: 1000, inStock: true },
      // A broken entry, as a bad import could produce: get_price must not pass it on.
      { sku: 'FAK-002', name: 'Refund voucher', priceCents: -500, inStock: true },
    ];
    const lookups: string[] = [];
    const fake: Catalogue = {
      find: (sku) => {
        lookups.push(sku);
        return products.find((product) => product.sku === sku);
      },
      skus: () => products.map((product) => product.sku),
      convert: (euroCents, currency) => (currency === Currency.EUR ? euroCents : euroCents * 2),
    };
    let t: TestingApp;

    beforeAll(async () => {
      t = await createTestingApp({ servers: [ShopServer] })
        .overrideProvider<Catalogue>(PriceCatalogue)
        .useValue(fake)
        .compile();
    });
    afterAll(() => t.close());
    beforeEach(() => {
      lookups.length = 0;
    });

    it('serves get_price from the catalogue injected into ShopServer: the fake replaces the typedi singleton', async () => {
      const result = await t.callTool('get_price', { sku: 'FAK-001', currency: 'USD' });
      expect(result.structuredContent).toEqual({ sku: 'FAK-001', name: 'Test tea', currency: 'USD', unitPrice: 2000, inStock: true });
      expect(lookups).toEqual(['FAK-001']);
    });

    it('lists the SKUs of the injected catalogue for an unknown one', async () => {
      const result = await t.callTool('get_price', { sku: 'TEA-001' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('No product with SKU "TEA-001". Known SKUs: FAK-001, FAK-002.');
    });

    it('refuses invalid arguments before the method runs: the catalogue is never asked', async () => {
      const result = await t.callTool('get_price', { sku: 'tea-1', currency: 'JPY' });
      expect(textOf(result)).toBe(
        [
          'Invalid arguments for tool "get_price":',
          'sku: must look like TEA-001',
          'currency: must be one of the following values: EUR, USD, GBP',
        ].join('\n'),
      );
      expect(lookups).toEqual([]);
    });

    it('checks every get_price result against PriceOutput: a negative price becomes an error, not data', async () => {
      const result = await t.callTool('get_price', { sku: 'FAK-002' });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(textOf(result)).toBe(
        'Invalid result from tool "get_price" (it does not match its output schema):\nunitPrice: must not be less than 0',
      );
    });

    it('quotes with the injected catalogue too, shipping included', async () => {
      const result = await t.callTool('quote_order', {
        shipTo: quoteArgs.shipTo,
        lines: [{ sku: 'FAK-001', quantity: 3 }],
        currency: 'GBP',
      });
      expect(result.structuredContent).toMatchObject({
        lines: [{ sku: 'FAK-001', unitPrice: 2000, lineTotal: 6000 }],
        shippingCost: 980,
        total: 6980,
      });
      expect(t.logs).toContainEqual(
        expect.objectContaining({ data: expect.objectContaining({ message: 'quote_order: 1 line(s), total 6980 GBP minor units' }) }),
      );
    });
  });
});
