import { describe, expect, it } from 'vitest';
import { acceptsModern } from '../src/engine/accept-table.js';

// The engine's own check of a 2026-07-28 request's `_meta`. Over HTTP the SDK's classifier refuses a
// malformed envelope before the engine sees it (engine-fronts.test.ts); the table must not rely on that.

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const LEVEL = 'io.modelcontextprotocol/logLevel';
const call = (meta: Record<string, unknown>) =>
  acceptsModern('tools/call', { name: 'add', arguments: {}, _meta: { ...ENVELOPE, ...meta } });

describe('acceptsModern', () => {
  it('lifts a log level into the envelope and leaves a progress token in _meta, as the SDK does', () => {
    expect(call({})).toEqual({ envelope: ENVELOPE, meta: undefined });
    expect(call({ [LEVEL]: 'warning' })).toEqual({ envelope: { ...ENVELOPE, [LEVEL]: 'warning' }, meta: undefined });
    expect(call({ progressToken: 'p' })).toEqual({ envelope: ENVELOPE, meta: { progressToken: 'p' } });
    expect(call({ progressToken: -9_007_199_254_740_991, [LEVEL]: 'emergency' })).toEqual({
      envelope: { ...ENVELOPE, [LEVEL]: 'emergency' },
      meta: { progressToken: -9_007_199_254_740_991 },
    });
    // The envelope's keys in the SDK's order, whatever the request's.
    expect(Object.keys(call({ [LEVEL]: 'info', ...Object.fromEntries(Object.entries(ENVELOPE).reverse()) })?.envelope ?? {})).toEqual([
      ...Object.keys(ENVELOPE),
      LEVEL,
    ]);
  });

  it.each([
    ['a level of another type', { [LEVEL]: 5 }],
    ['an unknown level', { [LEVEL]: 'verbose' }],
    ['a level in capitals', { [LEVEL]: 'DEBUG' }],
    ['a null level', { [LEVEL]: null }],
    ['a token that is an object', { progressToken: { not: 'a token' } }],
    ['a fractional token', { progressToken: 1.5 }],
    ['a token beyond the safe integers', { progressToken: 2 ** 53 }],
    ['a null token', { progressToken: null }],
    ['a boolean token', { progressToken: true }],
    ['another key', { progressToken: 'p', 'example.com/extra': 1 }],
    ['another reserved key', { 'io.modelcontextprotocol/other': 'x' }],
  ])('declines %s', (_, meta) => {
    expect(call(meta)).toBeUndefined();
  });
});
