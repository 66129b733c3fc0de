import { describe, expect, it } from 'vitest';
import { DEFAULT_MESSAGE_LIMITS, prescanJson } from '../../src/validation/json-prescan.js';

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
});
