import 'reflect-metadata';
import { createMcpApp, type HttpListener, type McpApp, McpServer, RateLimit, Tool } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState } from '../src/index.js';

@McpServer({ name: 'rate-limited', version: '1.0.0' })
class SearchServer {
  @RateLimit({ limit: 10, windowMs: 60_000 })
  @Tool({ description: 'Search' })
  search() {
    return 'found';
  }
}

const PRINCIPALS: Record<string, Omit<AuthInfo, 'token'>> = {
  alice: { clientId: 'app', scopes: [], extra: { sub: 'alice' } },
  bob: { clientId: 'app', scopes: [], extra: { sub: 'bob' } },
};

let redis: RedisServer;
const apps: McpApp[] = [];
const listeners: HttpListener[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  redis = await RedisServer.start();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await Promise.all(listeners.map((l) => l.close()));
  await Promise.all(apps.map((app) => app.close()));
  await redis?.dispose();
});

/** An instance of the app on the shared Redis, listening on 127.0.0.1 with bearer tokens naming alice or bob. */
async function instance(http: { rateLimit?: { limit: number; windowMs: number } } = {}): Promise<string> {
  const app = createMcpApp(SearchServer, { state: redisState({ url: redis.url }), requestStateKey: 'k'.repeat(32) });
  apps.push(app);
  const listener = await app.listenHttp({
    port: 0,
    ...http,
    auth: {
      verifier: {
        async verify(token) {
          const principal = PRINCIPALS[token];
          if (!principal) throw new Error('unknown token');
          return { token, ...principal };
        },
      },
      resource: 'http://127.0.0.1/mcp',
      authorizationServers: ['http://127.0.0.1/issuer'],
    },
  });
  listeners.push(listener);
  return listener.url;
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'rate-limit-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

async function call(client: Client): Promise<string> {
  const result = await client.callTool({ name: 'search', arguments: {} });
  return result.isError ? ((result.content as { text: string }[])[0]?.text ?? '') : 'ok';
}

describe('rate limits on the redis state', () => {
  it('hold in total across two instances: 100 concurrent calls over a limit of 10 let 10 through; another principal is unaffected', async () => {
    const [a, b] = [await instance(), await instance()];
    const [aliceOnA, aliceOnB] = [await connect(a, 'alice'), await connect(b, 'alice')];
    const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => call(i % 2 === 0 ? aliceOnA : aliceOnB)));
    expect(answers.filter((answer) => answer === 'ok')).toHaveLength(10);
    const limited = answers.filter((answer) => answer !== 'ok');
    expect(limited).toHaveLength(90);
    for (const text of limited) {
      const retry = Number(/Retry in (\d+) s$/.exec(text)?.[1]);
      expect(text).toBe(
        `Rate limit reached: tool "search" allows 10 calls per 60 s per principal (@RateLimit on SearchServer.search). Retry in ${retry} s`,
      );
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
    }
    const [bobOnA, bobOnB] = [await connect(a, 'bob'), await connect(b, 'bob')];
    expect(await call(bobOnA)).toBe('ok');
    expect(await call(bobOnB)).toBe('ok');

    // Redis holds one key per principal, each expiring with its window.
    const inspect = new Redis(redis.url);
    try {
      const keys = (await inspect.keys('armature:rate:*')).sort();
      expect(keys).toHaveLength(2);
      for (const key of keys) {
        const ttl = await inspect.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
      }
    } finally {
      inspect.disconnect();
    }
  });

  it('the endpoint-wide HTTP rateLimit holds in total across two instances', async () => {
    const [a, b] = [
      await instance({ rateLimit: { limit: 3, windowMs: 60_000 } }),
      await instance({ rateLimit: { limit: 3, windowMs: 60_000 } }),
    ];
    const post = (url: string, token: string) =>
      fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
    const statuses: number[] = [];
    for (const url of [a, b, a, b]) {
      const response = await post(url, 'alice');
      await response.text();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await post(a, 'alice');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    await refused.text();
    const bob = await post(b, 'bob');
    expect(bob.status).toBe(200);
    await bob.text();
  });

  it('counts failed authentications of one address across instances, and refuses the next unverified on either', async () => {
    let verified = 0;
    const urls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const app = createMcpApp(SearchServer, { state: redisState({ url: redis.url }), requestStateKey: 'k'.repeat(32) });
      apps.push(app);
      const listener = await app.listenHttp({
        port: 0,
        auth: {
          verifier: {
            async verify() {
              verified++;
              throw new Error('forged');
            },
          },
          resource: 'http://127.0.0.1/mcp',
          authorizationServers: ['http://127.0.0.1/issuer'],
          failedAuthLimit: { limit: 3, windowMs: 60_000 },
        },
      });
      listeners.push(listener);
      urls.push(listener.url);
    }
    const forged = async (url: string) => {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: 'Bearer forged' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      await answer.text();
      return answer.status;
    };
    const [a, b] = urls as [string, string];
    expect([await forged(a), await forged(b), await forged(a)]).toEqual([401, 401, 401]);
    expect([await forged(b), await forged(a)]).toEqual([429, 429]);
    expect(verified).toBe(3);
  });
});
