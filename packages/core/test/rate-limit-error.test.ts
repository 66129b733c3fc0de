import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ArmatureBuildError,
  createMcpApp,
  type HttpListener,
  InvalidTokenError,
  McpServer,
  Prompt,
  RATE_LIMITED,
  RateLimit,
  type RateLimitErrorShape,
  SEP_3304_RATE_LIMITED,
  Tool,
} from '../src/index.js';
import { JSON_HEADERS, rawHttp } from './support/raw-http.js';

@McpServer({ name: 'limited', version: '1.0.0' })
class LimitedServer {
  @RateLimit({ limit: 1, windowMs: 60_000 })
  @Tool({ description: 'Search' })
  search() {
    return 'found';
  }

  @RateLimit({ limit: 1, windowMs: 60_000 })
  @Prompt({ description: 'A plan' })
  plan() {
    return 'read, then write';
  }
}

interface Refusal {
  code: number;
  message: string;
  data?: Record<string, unknown>;
}

/** Calls `search` twice: the second call's answer, a result (tool error) or the JSON-RPC error thrown. */
async function secondCall(client: Client): Promise<{ result?: { isError?: boolean }; error?: Refusal }> {
  expect((await client.callTool({ name: 'search', arguments: {} })).isError).toBeUndefined();
  try {
    return { result: await client.callTool({ name: 'search', arguments: {} }) };
  } catch (error) {
    return { error: error as Refusal };
  }
}

/** The SEP-3304 answer: -32023, data carrying retryAfterMs only, within the minute's window. */
function expectSep3304(error: Refusal | undefined): void {
  expect(error?.code).toBe(SEP_3304_RATE_LIMITED);
  expect(error?.message).toMatch(/^Rate limit reached: tool "search" allows 1 call per 60 s/);
  expect(Object.keys(error?.data ?? {})).toEqual(['retryAfterMs']);
  const retryAfterMs = error?.data?.retryAfterMs as number;
  expect(retryAfterMs).toBeGreaterThan(0);
  expect(retryAfterMs).toBeLessThanOrEqual(60_000);
}

const fixture = fileURLToPath(new URL('./fixtures/rate-limited-stdio-server.mjs', import.meta.url));

describe('rateLimitError over stdio (a real process, the official client)', () => {
  async function overStdio(shape: RateLimitErrorShape, modern = false) {
    const client = new Client({ name: 'armature-test', version: '1.0.0' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixture, shape], stderr: 'ignore' }));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(modern ? '2026-07-28' : '2025-11-25');
      return await secondCall(client);
    } finally {
      await client.close();
    }
  }

  it("answers a limited tool call with a tool error by default ('armature')", async () => {
    const { result, error } = await overStdio('armature');
    expect(error).toBeUndefined();
    expect(result?.isError).toBe(true);
  }, 30_000);

  for (const modern of [false, true]) {
    it(`answers it with -32023 and data.retryAfterMs under 'sep-3304' (${modern ? '2026-07-28' : '2025-11-25'})`, async () => {
      const { result, error } = await overStdio('sep-3304', modern);
      expect(result).toBeUndefined();
      expectSep3304(error);
    }, 30_000);
  }
});

describe('rateLimitError over HTTP on 127.0.0.1 (both revisions, the official client)', () => {
  const listeners: HttpListener[] = [];
  afterEach(async () => {
    await Promise.all(listeners.splice(0).map((l) => l.close()));
  });

  async function listen(shape: RateLimitErrorShape | undefined, rateLimit?: { limit: number; windowMs: number }) {
    const app = createMcpApp(LimitedServer, shape ? { rateLimitError: shape } : {});
    const listener = await app.listenHttp({ port: 0, ...(rateLimit ? { rateLimit } : {}) });
    listeners.push(listener);
    return listener;
  }

  async function connect(url: string, modern: boolean): Promise<Client> {
    const client = new Client({ name: 'armature-test', version: '1.0.0' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect(client.getNegotiatedProtocolVersion()).toBe(modern ? '2026-07-28' : '2025-11-25');
    return client;
  }

  for (const modern of [false, true]) {
    const revision = modern ? '2026-07-28' : '2025-11-25';

    it(`${revision}: a tool call is a tool error by default, -32023 under 'sep-3304'; a prompt -32029, then -32023`, async () => {
      const byDefault = await connect((await listen(undefined)).url, modern);
      expect((await secondCall(byDefault)).result?.isError).toBe(true);
      await byDefault.getPrompt({ name: 'plan' });
      const prompt = (await byDefault.getPrompt({ name: 'plan' }).catch((e: unknown) => e)) as Refusal;
      expect(prompt.code).toBe(RATE_LIMITED);
      expect(Object.keys(prompt.data ?? {}).sort()).toEqual(['retryAfterMs', 'retryAfterSeconds']);
      await byDefault.close();

      const sep = await connect((await listen('sep-3304')).url, modern);
      expectSep3304((await secondCall(sep)).error);
      await sep.getPrompt({ name: 'plan' });
      const sepPrompt = (await sep.getPrompt({ name: 'plan' }).catch((e: unknown) => e)) as Refusal;
      expect(sepPrompt.code).toBe(SEP_3304_RATE_LIMITED);
      expect(Object.keys(sepPrompt.data ?? {})).toEqual(['retryAfterMs']);
      await sep.close();
    }, 30_000);
  }

  it("keeps 429 and Retry-After for the endpoint-wide limit, with -32023 under 'sep-3304'", async () => {
    for (const [shape, code] of [
      [undefined, RATE_LIMITED],
      ['sep-3304', SEP_3304_RATE_LIMITED],
    ] as const) {
      const { url } = await listen(shape, { limit: 1, windowMs: 60_000 });
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
      await rawHttp(url, { method: 'POST', headers: JSON_HEADERS, body: ping });
      const refused = await rawHttp(url, { method: 'POST', headers: JSON_HEADERS, body: ping });
      expect(refused.status).toBe(429);
      const seconds = Number(refused.headers['retry-after']);
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(60);
      const { error } = JSON.parse(refused.body) as { error: Refusal };
      expect(error.code).toBe(code);
      expect(error.data?.retryAfterMs).toBeGreaterThan((seconds - 1) * 1000);
      expect('retryAfterSeconds' in (error.data ?? {})).toBe(shape === undefined);
    }
  }, 30_000);
});

describe('rateLimitError and the failed-authentication budget (listenHttp on 127.0.0.1)', () => {
  it("answers an address past auth.failedAuthLimit 429 with Retry-After, -32029 by default and -32023 under 'sep-3304'", async () => {
    const verifier = {
      verify: async () => {
        throw new InvalidTokenError('the token is forged');
      },
    };
    for (const [shape, code] of [
      [undefined, RATE_LIMITED],
      ['sep-3304', SEP_3304_RATE_LIMITED],
    ] as const) {
      const app = createMcpApp(LimitedServer, shape ? { rateLimitError: shape } : {});
      const listener = await app.listenHttp({
        port: 0,
        auth: {
          verifier,
          resource: 'http://127.0.0.1/mcp',
          authorizationServers: ['http://127.0.0.1/issuer'],
          failedAuthLimit: { limit: 1, windowMs: 60_000 },
        },
      });
      try {
        const post = () =>
          rawHttp(listener.url, {
            headers: { ...JSON_HEADERS, authorization: 'Bearer forged' },
            body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
          });
        expect((await post()).status).toBe(401);
        const refused = await post();
        expect(refused.status).toBe(429);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        const { error } = JSON.parse(refused.body) as { error: Refusal };
        expect(error.code).toBe(code);
        expect(Object.keys(error.data ?? {}).sort()).toEqual(shape ? ['retryAfterMs'] : ['retryAfterMs', 'retryAfterSeconds']);
      } finally {
        await listener.close();
      }
    }
  }, 30_000);
});

describe('rateLimitError is checked at start-up', () => {
  it('refuses an unknown shape with ARM186 and the fix', () => {
    let thrown: unknown;
    try {
      createMcpApp(LimitedServer, { rateLimitError: 'sep3304' as RateLimitErrorShape });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ArmatureBuildError);
    const [problem] = (thrown as ArmatureBuildError).problems;
    expect(problem?.code).toBe('ARM186');
    expect(problem?.message).toBe(`rateLimitError is "sep3304"; it must be 'armature' (the default) or 'sep-3304'`);
  });
});
