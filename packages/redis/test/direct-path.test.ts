import 'reflect-metadata';
import { createMcpApp, McpServer, Tool } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState } from '../src/index.js';

@McpServer({ name: 'plain', version: '1.0.0' })
class Plain {
  @Tool({ description: 'ping' })
  ping() {
    return 'pong';
  }
}

let redis: RedisServer;

beforeAll(async () => {
  redis = await RedisServer.start();
});

afterAll(async () => {
  await redis?.dispose();
});

describe('a 2025-11-25 HTTP session on the redis state', () => {
  it('is served by the direct path, as in memory', async () => {
    for (const shared of [false, true]) {
      const app = createMcpApp(Plain, shared ? { state: redisState({ url: redis.url }), requestStateKey: 'k'.repeat(32) } : {});
      const listener = await app.listenHttp({ port: 0 });
      const client = new Client({ name: 'direct', version: '1.0.0' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
        const before = app.stats.direct;
        for (let i = 0; i < 5; i++)
          expect(await client.callTool({ name: 'ping', arguments: {} })).toMatchObject({ content: [{ text: 'pong' }] });
        await client.listTools();
        expect({ shared, direct: app.stats.direct - before }).toEqual({ shared, direct: 6 });
      } finally {
        await client.close();
        await listener.close();
        await app.close();
      }
    }
  });
});
