import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closingQuote, DEFAULT_MESSAGE_LIMITS, prescanJson, withinLimitsUnscanned } from '../../src/validation/json-prescan.js';

const problemOf = (text: string) => prescanJson(text, DEFAULT_MESSAGE_LIMITS).problem;
const PROTO = 'the message has a "__proto__" key, which could reach an object\'s prototype; remove it';

describe('prescanJson', () => {
  it('refuses a "__proto__" key at any depth and in any spelling JSON.parse reads as one', () => {
    expect(problemOf('{"id":1,"params":{"arguments":{"__proto__":{"x":1}}}}')).toBe(PROTO);
    expect(problemOf('{"__proto__":1}')).toBe(PROTO);
    expect(problemOf('{"id":1,"params":{"arguments":{"_\\u005fproto\\u005f_":{"x":1}}}}')).toBe(PROTO);
    expect(problemOf('{"id":1,"params":{"arguments":{"\\u005f_proto__":[]}}}')).toBe(PROTO);
  });

  it('lets the same text through as a value, and keys that only look alike', () => {
    expect(problemOf('{"id":1,"params":{"arguments":{"q":"__proto__","_meta":{},"__proto":1,"__proto__x":2}}}')).toBeUndefined();
    expect(problemOf('{"id":1,"params":{"arguments":{"_\\"proto__":1}}}')).toBeUndefined();
  });

  it('reads the id of a refused message, to answer its caller', () => {
    expect(prescanJson('{"jsonrpc":"2.0","id":7,"params":{"__proto__":{}}}', DEFAULT_MESSAGE_LIMITS)).toMatchObject({
      problem: PROTO,
      id: 7,
    });
    // A string id of any length (a 5,000-character one was answered with id null before).
    const long = 'x'.repeat(5_000);
    expect(prescanJson(`{"jsonrpc":"2.0","id": "${long}\\"","params":{"__proto__":{}}}`, DEFAULT_MESSAGE_LIMITS)).toMatchObject({
      problem: PROTO,
      id: `${long}"`,
    });
  });

  it('reads every kind of id token as written, whatever the spacing before it', () => {
    const scan = (id: string) => {
      const { id: value, rawId } = prescanJson(`{"jsonrpc":"2.0","id":${id},"method":"x"}`, DEFAULT_MESSAGE_LIMITS);
      return { id: value, rawId };
    };
    expect(scan('42')).toEqual({ id: 42, rawId: '42' });
    expect(scan(' \t\n -7')).toEqual({ id: -7, rawId: '-7' });
    // Spaces JSON does not allow are still skipped, as before: the id of a refused message is found.
    expect(scan('\u00a0\u2028 5')).toEqual({ id: 5, rawId: '5' });
    // Beyond 16 digits, a fraction, an exponent, a leading zero: kept as written, not read.
    expect(scan('12345678901234567')).toEqual({ id: undefined, rawId: '12345678901234567' });
    expect(scan('1.5e3')).toEqual({ id: undefined, rawId: '1.5e3' });
    expect(scan('01')).toEqual({ id: undefined, rawId: '01' });
    expect(scan('null')).toEqual({ id: undefined, rawId: 'null' });
    expect(scan('-x')).toEqual({ id: undefined, rawId: undefined });
    expect(scan('"a\\"b"')).toEqual({ id: 'a"b', rawId: '"a\\"b"' });
    // Only the top-level key spelt `id` counts, not a nested one or one written with escapes.
    expect(prescanJson('{"params":{"id":1},"i\\u0064":2}', DEFAULT_MESSAGE_LIMITS)).toEqual({});
  });
});

describe('closingQuote', () => {
  /** The walk it replaces: a backslash skips the next character, the first other quote closes. */
  function walked(text: string, start: number): number {
    let i = start;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) i++;
      else if (c === 0x22) return i;
    }
    return text.length;
  }

  it('finds the quote the character walk finds, escaped quotes and backslash runs included', () => {
    const text = fc.string({ unit: fc.constantFrom('"', '\\', 'a', '\u00e9', '{', ':'), maxLength: 40 });
    fc.assert(
      fc.property(text, fc.nat(40), (body, at) => {
        const start = Math.min(at, body.length);
        expect(closingQuote(body, start)).toBe(walked(body, start));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('withinLimitsUnscanned', () => {
  // Texts near every limit: nesting, separators, `__proto__` keys plain and escaped, strings holding brackets.
  const unit = fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', 'a', '1', ' ', '__proto__', '"__proto__"', '"\\u005f_proto__"');
  const text = fc.oneof(fc.string({ unit, maxLength: 30 }), fc.json({ maxDepth: 6 }));
  const limits = fc.record({ maxDepth: fc.integer({ min: 0, max: 6 }), maxValues: fc.integer({ min: 0, max: 40 }) });

  it('says a text is within the limits only when the pre-scan finds no problem in it', () => {
    let unscanned = 0;
    let refused = 0;
    fc.assert(
      fc.property(text, limits, (body, within) => {
        const problem = prescanJson(body, within).problem;
        if (problem !== undefined) refused++;
        if (withinLimitsUnscanned(body, within)) {
          unscanned++;
          expect(problem).toBeUndefined();
        }
      }),
      { numRuns: 5_000 },
    );
    // Both answers were exercised, not one of them alone.
    expect(unscanned).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  });

  it('leaves a request of the usual size to no pre-scan, and any spelling of a "__proto__" key to it', () => {
    const call =
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"query":"a","filters":{"tags":["x"],"kinds":["doc"]}}}}';
    expect(withinLimitsUnscanned(call, DEFAULT_MESSAGE_LIMITS)).toBe(true);
    expect(withinLimitsUnscanned('{"__proto__":1}', DEFAULT_MESSAGE_LIMITS)).toBe(false);
    expect(withinLimitsUnscanned('{"\\u005f_proto__":1}', DEFAULT_MESSAGE_LIMITS)).toBe(false);
    expect(withinLimitsUnscanned('['.repeat(65), DEFAULT_MESSAGE_LIMITS)).toBe(false);
  });
});
