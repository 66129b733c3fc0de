import { classifyInboundRequest } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { Message } from '../src/transports/http/http-messages.js';
import { ModernRoutes } from '../src/transports/modern/modern-routes.js';

// Counted, to see which requests are classified again.
vi.mock('@modelcontextprotocol/server', async (original) => {
  const sdk = await original<typeof import('@modelcontextprotocol/server')>();
  return { ...sdk, classifyInboundRequest: vi.fn(sdk.classifyInboundRequest) };
});

// The request engine asks the SDK's classifier once per envelope: its verdict for every request must
// stay exactly the classifier's, whatever came before it.

const VERSION = '2026-07-28';
const envelope = fc.record(
  {
    'io.modelcontextprotocol/protocolVersion': fc.constantFrom(VERSION, VERSION, VERSION, '2025-11-25', 7),
    'io.modelcontextprotocol/clientInfo': fc.constantFrom({ name: 'a', version: '1' }, { name: 'b', version: '2' }, { name: 3 }),
    'io.modelcontextprotocol/clientCapabilities': fc.constantFrom({}, { sampling: {} }, 'none'),
    // Mostly new tokens of the SDK's type (a remembered envelope leaves those out), now and then another type.
    progressToken: fc.oneof(
      { weight: 4, arbitrary: fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constantFrom(Number.MAX_SAFE_INTEGER, -0)) },
      { weight: 1, arbitrary: fc.constantFrom(1.5, null, 2 ** 53, true, {}, ['t']) },
    ),
    'io.modelcontextprotocol/logLevel': fc.constantFrom('info', 'debug', 'emergency', 'verbose', 5),
  },
  // Mostly complete envelopes, so that remembered verdicts are met often.
  {
    requiredKeys: [
      'io.modelcontextprotocol/protocolVersion',
      'io.modelcontextprotocol/clientInfo',
      'io.modelcontextprotocol/clientCapabilities',
    ],
  },
);
// Now and then with its members in the reverse order: a remembered verdict does not depend on it.
const anyOrder = fc
  .tuple(envelope, fc.boolean())
  .map(([meta, reverse]) => (reverse ? Object.fromEntries(Object.entries(meta).reverse()) : meta) as typeof meta);
const message = fc
  .record({
    jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0'),
    id: fc.constantFrom(1, 'x', 2, 'y', null, 1.5, 2 ** 60),
    method: fc.constantFrom('tools/call', 'tools/list'),
    params: fc.oneof(
      {
        weight: 6,
        arbitrary: fc.record({ name: fc.constant('add'), arguments: fc.constant({ a: 1 }), _meta: anyOrder }, { requiredKeys: ['_meta'] }),
      },
      { weight: 1, arbitrary: fc.constant([]) },
      { weight: 1, arbitrary: fc.constant({ _meta: 'x' }) },
    ),
    // Now and then a member that makes it a response, or one no request has.
    more: fc.constantFrom({}, {}, {}, {}, { result: {} }, { error: { code: 1, message: 'm' } }, { extra: true }),
  })
  .map(({ more, ...body }) => ({ ...body, ...more }));

function classifierSays(body: Message): boolean {
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: VERSION,
    mcpMethodHeader: body.method as string,
    body,
  });
  return route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === VERSION;
}

/** A client's envelope, with `more` beside it. */
const clientMeta = (more: Record<string, unknown> = {}): Record<string, unknown> => ({
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'a', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
  ...more,
});

/** A request of `method` with `params` and `_meta`. */
const requestOf = (id: number, method: string, meta: Record<string, unknown>, params: Record<string, unknown> = {}) =>
  ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }) as Message;

describe('remembered 2026-07-28 routes', () => {
  it('give the classifier verdict for every request of a sequence, remembered or not', () => {
    let modern = 0;
    let total = 0;
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 30 }), (messages) => {
        const routes = new ModernRoutes();
        for (const body of messages as Message[]) {
          const said = routes.isModern(body, { protocolVersion: VERSION, mcpMethod: body.method as string, mcpName: undefined });
          expect(said).toBe(classifierSays(body));
          total++;
          if (said) modern++;
        }
      }),
      { numRuns: 500 },
    );
    // The runs meet both verdicts often (the remembered one included).
    expect(modern / total).toBeGreaterThan(0.01);
    expect(modern / total).toBeLessThan(0.95);
  });

  it('remember a client envelope: its later requests are not classified again', () => {
    const routes = new ModernRoutes();
    const body = (id: number) => requestOf(id, 'tools/list', clientMeta());
    const headers = { protocolVersion: VERSION, mcpMethod: 'tools/list', mcpName: undefined };
    expect(routes.isModern(body(1), headers)).toBe(true);
    // A body the classifier would refuse outright is still refused: only plain shapes are remembered.
    expect(routes.isModern({ ...body(2), result: {} } as Message, headers)).toBe(false);
    expect(routes.isModern(body(3), headers)).toBe(true);
  });

  it('remember a client envelope whatever progress token each request carries: a new token is not classified again', () => {
    const routes = new ModernRoutes();
    const body = (id: number, progressToken: unknown) =>
      requestOf(id, 'tools/call', clientMeta({ progressToken, 'io.modelcontextprotocol/logLevel': 'info' }), { name: 'add' });
    const headers = { protocolVersion: VERSION, mcpMethod: 'tools/call', mcpName: 'add' };
    expect(routes.isModern(body(1, 'call-1'), headers)).toBe(true);
    const classified = vi.mocked(classifyInboundRequest).mock.calls.length;
    expect(routes.isModern(body(2, 'call-2'), headers)).toBe(true);
    expect(routes.isModern(body(3, 3), headers)).toBe(true);
    expect(routes.isModern(body(4, 't'.repeat(100_000)), headers)).toBe(true);
    expect(vi.mocked(classifyInboundRequest).mock.calls.length).toBe(classified);
    // A token of another type is classified, and refused.
    expect(routes.isModern(body(5, 1.5), headers)).toBe(false);
    expect(routes.isModern(body(6, { not: 'a token' }), headers)).toBe(false);
    expect(vi.mocked(classifyInboundRequest).mock.calls.length).toBe(classified + 2);
  });

  it('do not remember an envelope longer than any client sends: each such request is classified', () => {
    const routes = new ModernRoutes();
    const body = (id: number) =>
      requestOf(id, 'tools/list', clientMeta({ 'io.modelcontextprotocol/clientInfo': { name: 'n'.repeat(10_000), version: '1' } }));
    const headers = { protocolVersion: VERSION, mcpMethod: 'tools/list', mcpName: undefined };
    const classified = vi.mocked(classifyInboundRequest).mock.calls.length;
    expect(routes.isModern(body(1), headers)).toBe(true);
    expect(routes.isModern(body(2), headers)).toBe(true);
    expect(vi.mocked(classifyInboundRequest).mock.calls.length).toBe(classified + 2);
  });

  it('remember a copy of the envelope: a handler changing the one it was given changes nothing remembered', () => {
    const routes = new ModernRoutes();
    const headers = { protocolVersion: VERSION, mcpMethod: 'tools/list', mcpName: undefined };
    const envelopeOf = () => clientMeta();
    const body = (id: number, meta: Record<string, unknown>) => requestOf(id, 'tools/list', meta);
    const given = envelopeOf();
    expect(routes.isModern(body(1, given), headers)).toBe(true);
    const classified = vi.mocked(classifyInboundRequest).mock.calls.length;
    given['io.modelcontextprotocol/protocolVersion'] = '2025-11-25';
    // The client's next request, its envelope in another order: remembered, not classified again.
    const reordered = Object.fromEntries(Object.entries(envelopeOf()).reverse());
    expect(routes.isModern(body(2, reordered), headers)).toBe(true);
    expect(vi.mocked(classifyInboundRequest).mock.calls.length).toBe(classified);
  });
});
