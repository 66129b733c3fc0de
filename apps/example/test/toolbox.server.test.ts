import { buildDto, createTestContext, createTestingApp, expectDtoRejects, type TestingApp, textOf } from '@armature/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { servers } from '../src/app.js';
import { AddInput, CountDownInput, SwatchInput } from '../src/toolbox.dto.js';
import { ToolboxServer } from '../src/toolbox.server.js';
import { decodePng } from './support/png.js';
import { lastToolCall, recordClientTraffic, type Traffic } from './support/traffic.js';

// ToolboxServer at the three levels of @armature/testing, fastest first:
//   1. plain method: `new ToolboxServer()`, the method called with a DTO instance and a recording
//      context; no MCP, no validation.
//   2. DTO: `buildDto` / `expectDtoRejects` run the validation a call runs, on plain data.
//   3. full pipeline: the app built by the production code, called with the official MCP client.

/** A DTO instance as a test builds it by hand: no validation, the class initialisers as defaults. */
function dto<T extends object>(type: new () => T, values: Partial<T>): T {
  return Object.assign(new type(), values);
}

describe('ToolboxServer, level 1: plain methods', () => {
  const toolbox = new ToolboxServer();

  it('add returns the sum', () => {
    expect(toolbox.add(dto(AddInput, { a: 1.5, b: -4 }))).toBe(-2.5);
  });

  it('count_down logs, reports one progress step per step, and lifts off', async () => {
    const ctx = createTestContext();

    const result = await toolbox.countDown(dto(CountDownInput, { steps: 3, delayMs: 0 }), ctx);

    expect(result).toBe('Lift-off after 3 steps');
    expect(ctx.logs).toEqual([{ level: 'info', message: 'count_down: 3 steps of 0 ms' }]);
    expect(ctx.progressUpdates).toEqual([
      { progress: 0, total: 3, message: '3 to go' },
      { progress: 1, total: 3, message: '2 to go' },
      { progress: 2, total: 3, message: '1 to go' },
    ]);
  });

  it('count_down stops at once when cancelled, and reports no progress after it', async () => {
    const ctx = createTestContext();
    // Parked in a 60 s sleep, three times this test's timeout: the call can only reject in time if
    // the sleep follows the signal, however slow the machine.
    const call = toolbox.countDown(dto(CountDownInput, { steps: 50, delayMs: 60_000 }), ctx);
    await vi.waitFor(() => expect(ctx.progressUpdates).toHaveLength(1));

    ctx.abort(); // what a client's notifications/cancelled does to ctx.signal

    await expect(call).rejects.toThrow(/aborted/i);
    expect(ctx.progressUpdates).toEqual([{ progress: 0, total: 50, message: '50 to go' }]);
  });

  it('render_swatch returns a caption and a PNG of the asked size, every pixel the asked colour', () => {
    const [caption, picture] = toolbox.renderSwatch(dto(SwatchInput, { color: '#3366CC', size: 3 }));

    expect(caption).toEqual({ type: 'text', text: 'A 3x3 swatch of #3366cc' });
    expect(picture).toMatchObject({ type: 'image', mimeType: 'image/png' });
    const png = decodePng(Buffer.from((picture as { data: string }).data, 'base64'));
    expect(png).toMatchObject({ width: 3, height: 3, bitDepth: 8, colorType: 2 });
    expect(png.pixels).toEqual(Array.from({ length: 9 }, () => [0x33, 0x66, 0xcc]));
  });

  it('count_words counts case-insensitively and ranks by count, then alphabetically', () => {
    // A raw-schema tool receives plain JSON; at this level nothing applies the schema default of top.
    expect(toolbox.countWords({ text: "It's a cat, a CAT! A dog.", top: 3 })).toEqual({
      words: 7,
      distinct: 4,
      top: [
        { word: 'a', count: 3 },
        { word: 'cat', count: 2 },
        { word: 'dog', count: 1 }, // before "it's", seen first but later in the alphabet
      ],
    });
    expect(toolbox.countWords({ text: '... !', top: 3 })).toEqual({ words: 0, distinct: 0, top: [] });
  });
});

// count_words has no DTO (a hand-written JSON Schema): its validation is checked at level 3.
describe('ToolboxServer, level 2: DTOs', () => {
  describe('AddInput', () => {
    it('accepts any two numbers', async () => {
      const input = await buildDto(AddInput, { a: 1.5, b: -4 });
      expect(input).toBeInstanceOf(AddInput);
      expect(input).toEqual(dto(AddInput, { a: 1.5, b: -4 }));
    });

    it('rejects a missing number, a non-number and an unknown field, one line each', async () => {
      await expectDtoRejects(AddInput, { a: 'two', c: 1 }, ['b: is required', 'c: unknown property; remove it', 'a: must be number']);
    });

    it('does not convert numeric strings (no implicit conversion)', async () => {
      await expectDtoRejects(AddInput, { a: '2', b: 3 }, ['a: must be number']);
    });
  });

  describe('CountDownInput', () => {
    it('applies the property initialisers as defaults', async () => {
      expect(await buildDto(CountDownInput, {})).toEqual(dto(CountDownInput, { steps: 5, delayMs: 200 }));
    });

    it.each([
      { steps: 1, delayMs: 0 },
      { steps: 1000, delayMs: 10_000 },
    ])('accepts the boundaries %j', async (values) => {
      expect(await buildDto(CountDownInput, values)).toEqual(dto(CountDownInput, values));
    });

    it.each([
      [{ steps: 0, delayMs: -1 }, ['steps: must not be less than 1', 'delayMs: must not be less than 0']],
      [{ steps: 1001, delayMs: 10_001 }, ['steps: must not be greater than 1000', 'delayMs: must not be greater than 10000']],
      [{ steps: 2.5 }, ['steps: must be integer']],
      [{ steps: '3' }, ['steps: must be integer']],
    ])('rejects %j', async (values, lines) => {
      await expectDtoRejects(CountDownInput, values, lines);
    });
  });

  describe('SwatchInput', () => {
    it('defaults the size to 8 and accepts both letter cases', async () => {
      expect(await buildDto(SwatchInput, { color: '#FF8800' })).toEqual(dto(SwatchInput, { color: '#FF8800', size: 8 }));
      expect((await buildDto(SwatchInput, { color: '#abcdef', size: 64 })).size).toBe(64);
    });

    it.each([
      [{ color: 'orange', size: 0 }, ['color: must be a colour written #rrggbb', 'size: must not be less than 1']],
      [{ color: '#ff880', size: 65 }, ['color: must be a colour written #rrggbb', 'size: must not be greater than 64']],
      [{ size: 8 }, ['color: is required']],
      [{ color: '#ff8800', alpha: 0.5 }, ['alpha: unknown property; remove it']],
    ])('rejects %j', async (values, lines) => {
      await expectDtoRejects(SwatchInput, values, lines);
    });
  });
});

describe('ToolboxServer, level 3: full pipeline', () => {
  let t: TestingApp;
  let traffic: Traffic;

  beforeAll(async () => {
    // Both servers, as the app serves them: tool order and names across classes are part of what
    // clients see. The toolbox has no providers to replace (the shop tests override one).
    t = await createTestingApp({ servers }).compile();
    traffic = recordClientTraffic(t.client);
  });
  afterAll(() => t.close());

  describe('tools/list', () => {
    it('lists every example tool, in declaration order, toolbox first', async () => {
      expect((await t.listTools()).map((tool) => tool.name)).toEqual([
        'add',
        'count_down',
        'render_swatch',
        'count_words',
        'get_price',
        'quote_order',
      ]);
    });

    it('advertises add with the DTO schema, the @Field descriptions and readOnlyHint', async () => {
      expect((await t.listTools()).find((tool) => tool.name === 'add')).toEqual({
        name: 'add',
        description: 'Adds two numbers and returns the sum.',
        inputSchema: {
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
      const schema = (await t.listTools()).find((tool) => tool.name === 'count_down')?.inputSchema;
      expect(schema?.properties).toEqual({
        steps: { type: 'integer', minimum: 1, maximum: 1000, default: 5, description: 'How many steps to count down' },
        delayMs: { type: 'integer', minimum: 0, maximum: 10_000, default: 200, description: 'Pause between two steps, in milliseconds' },
      });
      expect(schema?.required).toBeUndefined();
    });

    it('advertises the hand-written schema of count_words as written', async () => {
      expect((await t.listTools()).find((tool) => tool.name === 'count_words')?.inputSchema).toEqual({
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
      expect(await t.callTool('add', { a: 1.5, b: -4 })).toEqual({ content: [{ type: 'text', text: '-2.5' }] });
    });

    it('answers bad arguments with the DTO lines under one heading', async () => {
      const result = await t.callTool('add', { a: 'two', c: 1 });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        ['Invalid arguments for tool "add":', 'b: is required', 'c: unknown property; remove it', 'a: must be number'].join('\n'),
      );
    });
  });

  describe('count_down', () => {
    it('reports progress against the request token, logs, and returns at the end', async () => {
      const seen: unknown[] = [];
      const result = await t.callTool('count_down', { steps: 3, delayMs: 0 }, { onprogress: (p) => seen.push(p) });

      expect(result).toEqual({ content: [{ type: 'text', text: 'Lift-off after 3 steps' }] });
      const token = lastToolCall(traffic, 'count_down').params?._meta?.progressToken;
      expect(token).toBeDefined();
      const expected = [
        { progress: 0, total: 3, message: '3 to go' },
        { progress: 1, total: 3, message: '2 to go' },
        { progress: 2, total: 3, message: '1 to go' },
      ];
      expect(traffic.progressFor(token)).toEqual(expected);
      expect(seen).toEqual(expected);
      expect(t.logs).toContainEqual({ level: 'info', data: 'count_down: 3 steps of 0 ms' });
    });

    it('applies the default steps when the argument is absent', async () => {
      expect(textOf(await t.callTool('count_down', { delayMs: 0 }))).toBe('Lift-off after 5 steps');
    });

    it('stops at once when cancelled: the call rejects, its scope closes, no response comes, the connection stays up', async () => {
      const abort = new AbortController();
      const call = t.callTool(
        'count_down',
        { steps: 50, delayMs: 10_000 },
        { signal: abort.signal, onprogress: () => abort.abort('user cancelled') },
      );

      await expect(call).rejects.toThrow();
      const { id } = lastToolCall(traffic, 'count_down');
      expect(traffic.sent).toContainEqual(
        expect.objectContaining({ method: 'notifications/cancelled', params: expect.objectContaining({ requestId: id }) }),
      );
      // The method is parked in a 10 s sleep (the most delayMs allows): its DI scope closes only
      // when it returns, so a scope count back at 0 before that sleep could end proves it was cut
      // short. The bound is the sleep, not a speed target: only a machine stalled 9 s misses it.
      await expect.poll(() => t.app.stats.liveScopes, { timeout: 9_000, interval: 20 }).toBe(0);
      await t.client.ping();
      expect(traffic.received.filter((m) => m.id === id)).toEqual([]);
      expect(t.errors).toEqual([]);
    });
  });

  describe('render_swatch', () => {
    it('returns a caption and a valid PNG image block, every pixel the asked colour', async () => {
      const result = await t.callTool('render_swatch', { color: '#FF8800', size: 4 });
      const [caption, picture] = result.content;
      expect(caption).toEqual({ type: 'text', text: 'A 4x4 swatch of #ff8800' });
      expect(picture).toMatchObject({ type: 'image', mimeType: 'image/png' });
      const png = decodePng(Buffer.from((picture as { data: string }).data, 'base64'));
      expect(png).toMatchObject({ width: 4, height: 4, bitDepth: 8, colorType: 2 });
      expect(png.pixels).toEqual(Array.from({ length: 16 }, () => [255, 136, 0]));
    });

    it('uses the default size of 8', async () => {
      const picture = (await t.callTool('render_swatch', { color: '#000000' })).content[1] as { data: string };
      expect(decodePng(Buffer.from(picture.data, 'base64'))).toMatchObject({ width: 8, height: 8 });
    });

    it('explains a bad colour with the DTO message', async () => {
      const result = await t.callTool('render_swatch', { color: 'orange', size: 0 });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        ['Invalid arguments for tool "render_swatch":', 'color: must be a colour written #rrggbb', 'size: must not be less than 1'].join(
          '\n',
        ),
      );
    });
  });

  describe('count_words (raw JSON Schema)', () => {
    it('receives the checked plain JSON with the schema default applied', async () => {
      const result = await t.callTool('count_words', { text: 'The cat saw the other cat. The end!' });
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
      const result = await t.callTool('count_words', { text: '', top: 50, extra: true });
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
});
