import { afterEach, describe, expect, it } from 'vitest';
import { Context, createMcpApp, type McpApp, McpServer, sdkContextOf, Tool } from '../src/index.js';
import { connectHttp, connectInMemory } from './support/clients.js';

// The handler's Context is made from the request whichever path served it (the request engine
// from its exchange, the SDK from its own context), and `sdkContextOf` gives the SDK's view in one
// shape on both: every member the SDK's context has, with the same values.

@McpServer({ name: 'ctx-shape', version: '1.0.0' })
class ShapeServer {
  @Tool({ description: 'Describes its Context and the SDK context behind it' })
  shape(ctx: Context) {
    const sdk = sdkContextOf(ctx);
    const mcpReq = sdk?.mcpReq as Record<string, unknown> | undefined;
    return {
      requestId: ctx.requestId,
      meta: ctx.meta,
      aborted: ctx.signal.aborted,
      sdk: {
        sessionId: typeof sdk?.sessionId,
        id: mcpReq?.id,
        method: mcpReq?.method,
        meta: mcpReq?._meta,
        functions: Object.keys(mcpReq ?? {})
          .filter((key) => typeof mcpReq?.[key] === 'function')
          .sort(),
        signal: mcpReq?.signal instanceof AbortSignal,
        http: sdk?.http === undefined ? 'none' : Object.keys(sdk.http).filter((key) => key !== 'req' && key.startsWith('auth')),
        // Its own members (`req` a getter on the engine's path, made when read), and their values but `req`'s.
        httpMembers: sdk?.http === undefined ? 'none' : Object.keys(sdk.http).sort(),
        httpValues: sdk?.http === undefined ? 'none' : { ...sdk.http, req: sdk.http.req instanceof Request },
      },
    };
  }
}

let app: McpApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function describeOver(wire: 'in-memory' | 'http-session' | 'http-2026', requestEngine: boolean) {
  app = createMcpApp([ShapeServer], { requestEngine });
  const connected = wire === 'in-memory' ? await connectInMemory(app) : await connectHttp(app, { modern: wire === 'http-2026' });
  try {
    // On 2026-07-28 the engine declines a request carrying `_meta` beyond the envelope (the SDK serves it).
    const meta = wire === 'http-2026' ? {} : { _meta: { trace: 'x' } };
    const result = await connected.client.callTool({ name: 'shape', arguments: {}, ...meta });
    return { shape: result.structuredContent, served: app.stats.engine };
  } finally {
    await connected.close();
    await app.close();
    app = undefined;
  }
}

describe.each(['in-memory', 'http-session', 'http-2026'] as const)('the Context over %s', (wire) => {
  it('is the same made by the request engine as by the SDK, and sdkContextOf has one shape', async () => {
    const viaSdk = await describeOver(wire, false);
    const viaEngine = await describeOver(wire, true);
    expect(viaSdk.served).toBe(0);
    // The engine served the call (and the lists the client asked for): the comparison sees its Context.
    expect(viaEngine.served).toBeGreaterThan(0);
    expect(viaEngine.shape).toEqual(viaSdk.shape);
    expect(viaEngine.shape).toMatchObject({
      aborted: false,
      sdk: {
        method: 'tools/call',
        signal: true,
        functions: expect.arrayContaining(['elicitInput', 'log', 'notify', 'requestSampling', 'requestState', 'send']),
      },
    });
  });
});
