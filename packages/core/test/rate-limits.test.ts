import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ArmatureBuildError,
  createMcpApp,
  type HttpListener,
  type ListenHttpOptions,
  McpServer,
  MemoryRateLimitStore,
  Prompt,
  RATE_LIMITED,
  RateLimit,
  Tool,
} from '../src/index.js';
import type { ServerEvent } from '../src/observability/server-events.js';
import { connectInMemory } from './support/clients.js';
import { INITIALIZE, JSON_HEADERS, rawHttp } from './support/raw-http.js';

@McpServer({ name: 'rate-limited', version: '1.0.0' })
class SearchServer {
  @RateLimit({ limit: 2, windowMs: 60_000 })
  @Tool({ description: 'Search' })
  search() {
    return 'found';
  }

  @Tool({ description: 'Look up' })
  lookup() {
    return 'looked up';
  }

  @RateLimit({ limit: 1, windowMs: 30_000, by: ['session'] })
  @Prompt({ description: 'A prompt' })
  greet() {
    return 'hello';
  }
}

@McpServer({ name: 'per-session', version: '1.0.0' })
class SessionServer {
  @RateLimit({ limit: 1, windowMs: 60_000, by: ['session'] })
  @Tool({ description: 'Search' })
  search() {
    return 'found';
  }
}

/** The text of a limited call, with the retry time it carries; that time itself is checked apart. */
function limitedText(text: string, expected: (retry: number) => string): number {
  const retry = Number(/Retry in (\d+) s$/.exec(text)?.[1]);
  expect(text).toBe(expected(retry));
  return retry;
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('@RateLimit on a tool (in-memory, the official client)', () => {
  it('answers the call over the limit with a tool error naming the limit and the retry time, and tells the event hub', async () => {
    const app = createMcpApp(SearchServer);
    const events: ServerEvent[] = [];
    app.onEvent((event) => events.push(event));
    const { client, close } = await connectInMemory(app);
    open.push({ close });
    expect(await client.callTool({ name: 'search', arguments: {} })).toMatchObject({ content: [{ text: 'found' }] });
    expect(await client.callTool({ name: 'search', arguments: {} })).toMatchObject({ content: [{ text: 'found' }] });
    const limited = await client.callTool({ name: 'search', arguments: {} });
    expect(limited.isError).toBe(true);
    const retry = limitedText(
      textOf(limited),
      (s) => `Rate limit reached: tool "search" allows 2 calls per 60 s per principal (@RateLimit on SearchServer.search). Retry in ${s} s`,
    );
    // The window started with the first call: what is left of its 60 s, in whole seconds.
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // Another tool has no limit: unaffected.
    expect(await client.callTool({ name: 'lookup', arguments: {} })).toMatchObject({ content: [{ text: 'looked up' }] });
    const refused = events.filter((e) => e.event === 'refused');
    expect(refused).toEqual([
      expect.objectContaining({ event: 'refused', reason: 'rate-limit', message: textOf(limited), method: 'tools/call' }),
    ]);
    const retryAfterMs = (refused[0] as { retryAfterMs: number }).retryAfterMs;
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(Math.ceil(retryAfterMs / 1000)).toBe(retry);
  });

  it('answers a prompt over its limit with a JSON-RPC error carrying the retry time in data', async () => {
    const { client, close } = await connectInMemory(createMcpApp(SearchServer));
    open.push({ close });
    await client.getPrompt({ name: 'greet' });
    const error = await client.getPrompt({ name: 'greet' }).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string; data: { retryAfterSeconds: number; retryAfterMs: number } },
    );
    expect(error?.code).toBe(RATE_LIMITED);
    expect(error?.data.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(error?.data.retryAfterSeconds).toBeLessThanOrEqual(30);
    expect(error?.data.retryAfterSeconds).toBe(Math.ceil((error?.data.retryAfterMs ?? 0) / 1000));
    expect(error?.message).toContain(
      `Rate limit reached: prompt "greet" allows 1 call per 30 s per session (@RateLimit on SearchServer.greet). Retry in ${error?.data.retryAfterSeconds} s`,
    );
  });

  it('counts app-wide rateLimits by principal and tool: each tool its own count', async () => {
    const app = createMcpApp(SearchServer, { rateLimits: [{ limit: 1, windowMs: 10_000, by: ['principal', 'tool'] }] });
    const { client, close } = await connectInMemory(app);
    open.push({ close });
    expect((await client.callTool({ name: 'lookup', arguments: {} })).isError).toBeFalsy();
    expect((await client.callTool({ name: 'search', arguments: {} })).isError).toBeFalsy();
    const limited = await client.callTool({ name: 'lookup', arguments: {} });
    limitedText(
      textOf(limited),
      (s) =>
        `Rate limit reached: tool "lookup" allows 1 call per 10 s per principal and tool (createMcpApp rateLimits[0]). Retry in ${s} s`,
    );
  });
});

@McpServer({ name: 'rate-limited-tasks', version: '1.0.0' })
class TaskServer {
  @RateLimit({ limit: 1, windowMs: 60_000 })
  @Tool({ description: 'Indexes, as a task if asked', task: 'optional' })
  index() {
    return 'indexed';
  }
}

describe('@RateLimit on a tool called as a task', () => {
  it('counts the task request, and refuses one over the limit with -32029 before any task is made', async () => {
    const { client, close } = await connectInMemory(createMcpApp(TaskServer));
    open.push({ close });
    const created = (await client.callTool({ name: 'index', arguments: {}, task: { ttl: 10_000 } } as never)) as unknown as {
      task?: { taskId: string };
    };
    expect(created.task?.taskId).toEqual(expect.any(String));
    const refused = await client.callTool({ name: 'index', arguments: {}, task: { ttl: 10_000 } } as never).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );
    expect(refused?.code).toBe(RATE_LIMITED);
    expect(refused?.message).toMatch(
      /Rate limit reached: tool "index" allows 1 call per 60 s per principal \(@RateLimit on TaskServer.index\)/,
    );
    // An ordinary call counts against the same limit.
    expect(textOf(await client.callTool({ name: 'index', arguments: {} }))).toMatch(/^Rate limit reached/);
  });
});

describe('a rate-limit store that cannot count', () => {
  it('refuses the call saying why, instead of letting it through', async () => {
    const down = async (): Promise<never> => {
      throw new Error('redis at redis://127.0.0.1:6379/ is not connected (connecting)');
    };
    const store = { hit: down, peek: down };
    const { client, close } = await connectInMemory(createMcpApp(SearchServer, { rateLimitStore: store }));
    open.push({ close });
    const result = await client.callTool({ name: 'search', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Service Unavailable: tool "search" has a rate limit and its store could not count this call (redis at redis://127.0.0.1:6379/ is not connected (connecting)); retry later',
    );
    // A handler without a limit does not ask the store.
    expect((await client.callTool({ name: 'lookup', arguments: {} })).isError).toBeFalsy();
  });
});

describe('rate limits over HTTP on 127.0.0.1', () => {
  const listeners: HttpListener[] = [];
  afterEach(async () => {
    await Promise.all(listeners.splice(0).map((l) => l.close()));
  });

  async function listen(app: ReturnType<typeof createMcpApp>, options: ListenHttpOptions = {}) {
    const listener = await app.listenHttp({ port: 0, ...options });
    listeners.push(listener);
    return listener;
  }

  async function connect(url: string, options: { token?: string; modern?: boolean } = {}) {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      ...(options.token ? { requestInit: { headers: { authorization: `Bearer ${options.token}` } } } : {}),
    });
    const client = new Client(
      { name: 'rate-limit-test', version: '1.0.0' },
      options.modern ? { versionNegotiation: { mode: 'auto' as const } } : {},
    );
    await client.connect(transport);
    open.push({ close: () => client.close() });
    return client;
  }

  const call = async (client: Client) => {
    const result = await client.callTool({ name: 'search', arguments: {} });
    return result.isError ? textOf(result) : 'ok';
  };

  it('counts each principal apart', async () => {
    const principals: Record<string, Omit<AuthInfo, 'token'>> = {
      alice: { clientId: 'app', scopes: [], extra: { sub: 'alice' } },
      bob: { clientId: 'app', scopes: [], extra: { sub: 'bob' } },
    };
    const { url } = await listen(createMcpApp(SearchServer), {
      auth: {
        verifier: {
          async verify(token) {
            const principal = principals[token];
            if (!principal) throw new Error('unknown token');
            return { token, ...principal };
          },
        },
        resource: 'http://127.0.0.1/mcp',
        authorizationServers: ['http://127.0.0.1/issuer'],
      },
    });
    const alice = await connect(url, { token: 'alice' });
    const bob = await connect(url, { token: 'bob' });
    expect([await call(alice), await call(alice)]).toEqual(['ok', 'ok']);
    expect(await call(alice)).toMatch(/^Rate limit reached: tool "search" allows 2 calls per 60 s per principal/);
    expect([await call(bob), await call(bob)]).toEqual(['ok', 'ok']);
    expect(await call(bob)).toMatch(/^Rate limit reached/);
  });

  it('counts an unauthenticated caller by its client address, on both revisions and across sessions', async () => {
    const { url } = await listen(createMcpApp(SearchServer));
    const first = await connect(url);
    const second = await connect(url);
    const modern = await connect(url, { modern: true });
    // Two sessions of the same address are one principal: the second session's call is the third.
    expect([await call(first), await call(second)]).toEqual(['ok', 'ok']);
    expect(await call(second)).toMatch(/^Rate limit reached/);
    expect(await call(modern)).toMatch(/^Rate limit reached/);
  });

  it('takes the client address trustProxy names', async () => {
    const { url } = await listen(createMcpApp(SearchServer), { trustProxy: 'x-real-ip' });
    const connectAs = async (ip: string, modern = false) => {
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-real-ip': ip } } });
      const client = new Client(
        { name: 'rate-limit-test', version: '1.0.0' },
        modern ? { versionNegotiation: { mode: 'auto' as const } } : {},
      );
      await client.connect(transport);
      open.push({ close: () => client.close() });
      return client;
    };
    const one = await connectAs('10.0.0.1');
    const two = await connectAs('10.0.0.2');
    expect([await call(one), await call(one)]).toEqual(['ok', 'ok']);
    expect(await call(one)).toMatch(/^Rate limit reached/);
    expect(await call(two)).toBe('ok');
    // 2026-07-28 requests (the request engine) are counted by the same address.
    const modernOne = await connectAs('10.0.0.1', true);
    const modernThree = await connectAs('10.0.0.3', true);
    expect(await call(modernOne)).toMatch(/^Rate limit reached/);
    expect(await call(modernThree)).toBe('ok');
  });

  it('counts by the remoteAddress given to the fetch face', async () => {
    const handler = createMcpApp(SearchServer).httpHandler();
    open.push({ close: () => handler.close() });
    const post = async (ip: string, body: unknown, session?: string) => {
      const response = await handler.fetch(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: {
            ...JSON_HEADERS,
            host: '127.0.0.1',
            ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
          },
          body: JSON.stringify(body),
        }),
        { remoteAddress: ip },
      );
      return { session: response.headers.get('mcp-session-id') ?? undefined, text: await response.text() };
    };
    const sessionOf = async (ip: string) => {
      const { session } = await post(ip, JSON.parse(INITIALIZE));
      await post(ip, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
      return session as string;
    };
    const call = async (ip: string, session: string) => {
      const { text } = await post(ip, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search', arguments: {} } }, session);
      return text.includes('Rate limit reached') ? 'limited' : text.includes('found') ? 'ok' : text;
    };
    const [one, two] = [await sessionOf('10.0.0.5'), await sessionOf('10.0.0.6')];
    expect([await call('10.0.0.5', one), await call('10.0.0.5', one), await call('10.0.0.5', one)]).toEqual(['ok', 'ok', 'limited']);
    expect(await call('10.0.0.6', two)).toBe('ok');
  });

  it('counts each session apart with by: [session]', async () => {
    const { url } = await listen(createMcpApp(SessionServer));
    const first = await connect(url);
    const second = await connect(url);
    expect(await call(first)).toBe('ok');
    expect(await call(first)).toMatch(/^Rate limit reached: tool "search" allows 1 call per 60 s per session/);
    expect(await call(second)).toBe('ok');
  });
});

describe('rate limit values are checked at start-up', () => {
  it('names Class.method, the value and the fix for each bad value, with the app option, all at once', () => {
    @McpServer({ name: 'bad-limits', version: '1.0.0' })
    class BadLimits {
      @RateLimit({ limit: 0, windowMs: 1500, by: ['user' as never] })
      @Tool({ description: 'Search' })
      search() {
        return 'found';
      }
    }
    let thrown: unknown;
    try {
      createMcpApp(BadLimits, { rateLimits: [{ limit: 5, windowMs: -1 }] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ArmatureBuildError);
    const problems = (thrown as ArmatureBuildError).problems.map(({ where, message, fix, code }) => ({ where, message, fix, code }));
    const decorator = "@RateLimit({ limit: 10, windowMs: 60_000, by: ['principal', 'tool'] })";
    expect(problems).toEqual([
      {
        code: 'ARM304',
        where: 'createMcpApp',
        message:
          'rateLimits[0] has windowMs -1; it must be a whole number of seconds in ms (1000 or more): the shared store counts whole seconds',
        fix: "rateLimits[0]: { limit: 10, windowMs: 60_000, by: ['principal', 'tool'] }",
      },
      {
        code: 'ARM304',
        where: 'BadLimits.search',
        message: '@RateLimit has limit 0; it must be a whole number of calls, 1 or more',
        fix: decorator,
      },
      {
        code: 'ARM304',
        where: 'BadLimits.search',
        message:
          '@RateLimit has windowMs 1500; it must be a whole number of seconds in ms (1000 or more): the shared store counts whole seconds',
        fix: decorator,
      },
      {
        code: 'ARM304',
        where: 'BadLimits.search',
        message: `@RateLimit has by ["user"]; it must be a non-empty list of distinct keys among 'principal', 'client', 'session', 'tool'`,
        fix: decorator,
      },
    ]);
    expect((thrown as Error).message).toContain('BadLimits.search');
  });
});

describe('MemoryRateLimitStore', () => {
  it('holds at most its bound of keys under 100,000 distinct callers, and still counts the recent ones', async () => {
    const store = new MemoryRateLimitStore(10_000);
    for (let i = 0; i < 100_000; i++) await store.hit(`caller-${i}`, 2, 60_000);
    // Counted in the limiter itself (what it really holds), not in the bookkeeping beside it.
    expect(store.heldKeys()).toBe(10_000);
    // The most recent caller is still counted: its third call in the window is refused.
    expect((await store.hit('caller-99999', 2, 60_000)).allowed).toBe(true);
    expect((await store.hit('caller-99999', 2, 60_000)).allowed).toBe(false);
    // The oldest, under its limit, was dropped: it starts a fresh window.
    expect((await store.hit('caller-0', 2, 60_000)).allowed).toBe(true);
    expect(store.heldKeys()).toBe(10_000);
  });

  it('never forgets a limited key within its window: 12,000 distinct keys later it is still refused', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 5; i++) expect((await store.hit('attacker', 5, 60_000)).allowed).toBe(true);
    expect((await store.hit('attacker', 5, 60_000)).allowed).toBe(false);
    for (let i = 0; i < 12_000; i++) await store.hit(`other-${i}`, 5, 60_000);
    expect(store.heldKeys()).toBe(10_000);
    const again = await store.hit('attacker', 5, 60_000);
    expect(again.allowed).toBe(false);
    expect(again.retryAfterMs).toBeGreaterThan(0);
  });

  it('when full of limited keys, refuses a new key (uncounted) until the first window ends, and keeps every limited key', async () => {
    const store = new MemoryRateLimitStore(1_000);
    for (let i = 0; i < 1_000; i++) expect((await store.hit(`limited-${i}`, 1, 1_000)).allowed).toBe(true);
    const newcomer = await store.hit('newcomer', 1, 1_000);
    expect(newcomer.allowed).toBe(false);
    expect(newcomer.retryAfterMs).toBeGreaterThan(0);
    expect(newcomer.retryAfterMs).toBeLessThanOrEqual(1_000);
    expect(store.heldKeys()).toBe(1_000);
    for (const i of [0, 500, 999]) expect((await store.hit(`limited-${i}`, 1, 1_000)).allowed).toBe(false);
    // Once the windows have ended, the newcomer takes the room of an expired key.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await store.hit('newcomer', 1, 1_000)).allowed).toBe(true);
    expect((await store.hit('newcomer', 1, 1_000)).allowed).toBe(false);
  });
});

describe('the endpoint-wide HTTP rateLimit (listenHttp on 127.0.0.1)', () => {
  const listeners: HttpListener[] = [];
  afterEach(async () => {
    await Promise.all(listeners.splice(0).map((l) => l.close()));
  });

  const headersFor = (ip: string) => ({ ...JSON_HEADERS, 'x-real-ip': ip });

  /** A POST declaring a body of `declared` bytes, of which only the first kilobyte is ever sent: its status and headers. */
  function withheldBody(
    url: string,
    ip: string,
    declared: number,
  ): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
    const { port } = new URL(url);
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...headersFor(ip), 'content-length': String(declared) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
            req.destroy();
          });
        },
      );
      req.on('error', () => undefined);
      // The 10 s bound only decides when to give up on an answer that never comes.
      req.setTimeout(10_000, () => reject(new Error('no answer while the body was unsent: the body is read before the rate limit')));
      req.write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"${'x'.repeat(1_000)}`);
    });
  }

  it('answers 429 with Retry-After from the headers while the body is still unsent, per client address', async () => {
    const app = createMcpApp(SearchServer);
    const events: ServerEvent[] = [];
    app.onEvent((event) => events.push(event));
    const listener = await app.listenHttp({ port: 0, trustProxy: 'x-real-ip', rateLimit: { limit: 2, windowMs: 60_000 } });
    listeners.push(listener);
    for (let i = 0; i < 2; i++)
      expect((await rawHttp(listener.url, { headers: headersFor('10.0.0.1'), body: INITIALIZE })).status).toBe(200);
    const refused = await withheldBody(listener.url, '10.0.0.1', 3_900_000);
    expect(refused.status).toBe(429);
    const retry = Number(refused.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: RATE_LIMITED,
        message: `Too Many Requests: this client sent more than 2 requests in 60 s (rateLimit); retry in ${retry} s`,
        data: { retryAfterSeconds: retry, retryAfterMs: expect.any(Number) },
      },
      id: null,
    });
    // Besides the app's start: one refusal.
    expect(events.filter((e) => e.event === 'refused')).toEqual([
      expect.objectContaining({ event: 'refused', reason: 'rate-limit', client: 'ip:10.0.0.1' }),
    ]);
    // Another address has its own count.
    expect((await rawHttp(listener.url, { headers: headersFor('10.0.0.2'), body: INITIALIZE })).status).toBe(200);
  });

  it('refuses a bad rateLimit at start-up, naming the option and the fix', async () => {
    const error = await createMcpApp(SearchServer)
      .listenHttp({ port: 0, rateLimit: { limit: 0, windowMs: 60_000 } })
      .then(
        (listener) => {
          listeners.push(listener);
          return undefined;
        },
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(ArmatureBuildError);
    expect((error as ArmatureBuildError).problems).toEqual([
      {
        code: 'ARM304',
        where: 'listenHttp',
        message: 'rateLimit has limit 0; it must be a whole number of calls, 1 or more',
        fix: 'rateLimit: { limit: 10, windowMs: 60_000 }',
      },
    ]);
  });
});
