import 'reflect-metadata';
import { ArmatureBuildError, createMcpApp, McpServer, Tool } from '@armature/core';
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

describe('redisState options', () => {
  it('refuses to start without a shared requestStateKey, naming the fix', async () => {
    const state = redisState({ url: redis.url });
    try {
      expect(() => createMcpApp(Plain, { state })).toThrow(
        'Armature cannot start the MCP server: 1 problem in the decorated classes.\n' +
          '  1. createMcpApp options: the redis state shares the app between instances, but no requestStateKey was given: each instance would sign 2026-07-28 requestState with its own random key, and an answer reaching another instance would be refused [ARM121]\n' +
          '     Fix: createMcpApp(Server, { state, requestStateKey: process.env.MCP_REQUEST_STATE_KEY }) with the same secret (32 random bytes or more) on every instance',
      );
    } finally {
      await state.close();
    }
  });

  it('refuses an eventStore option next to the state that keeps the events', async () => {
    const app = createMcpApp(Plain, { state: redisState({ url: redis.url }), requestStateKey: 'k'.repeat(32) });
    try {
      await app.ready();
      expect(() => app.httpHandler({ eventStore: true })).toThrow(
        "McpApp.listenHttp/httpHandler: the eventStore option cannot be used with the redis state, which keeps the events of every instance's sessions itself; remove eventStore",
      );
    } finally {
      await app.close();
    }
  });

  it('fails listenHttp naming Redis when it cannot be reached at start-up', async () => {
    const app = createMcpApp(Plain, {
      state: redisState({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 300 }),
      requestStateKey: 'k'.repeat(32),
    });
    try {
      await expect(app.listenHttp({ port: 0 })).rejects.toThrow(
        /^McpApp: the redis state could not be reached: redis at redis:\/\/127\.0\.0\.1:1 did not answer within 300 ms \(connect ECONNREFUSED 127\.0\.0\.1:1\)$/,
      );
    } finally {
      await app.close();
    }
  });
});

describe('redisState options for a Redis Cluster', () => {
  it('refuses url with cluster, nodes that are not host and port, and a keyPrefix with braces, all at once', () => {
    const hostile = [
      { host: '127.0.0.1', port: 70_000 },
      'http://127.0.0.1:6379',
      { host: '', port: 6379 },
      '\u0000not a url',
      null,
      { host: 'x', port: 1.5 },
    ] as unknown as { host: string; port: number }[];
    let thrown: unknown;
    try {
      redisState({ url: redis.url, cluster: hostile, keyPrefix: 'app{1}:' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ArmatureBuildError);
    const problems = (thrown as ArmatureBuildError).problems;
    expect(problems.map((p) => `${p.code} ${p.where}: ${p.message}`)).toEqual([
      'ARM195 redisState: keyPrefix is "app{1}:"; it must not hold { or }',
      'ARM194 redisState: both url and cluster are given',
      'ARM194 redisState: cluster[0] is {"host":"127.0.0.1","port":70000}, not { host, port } nor a redis:// or rediss:// URL',
      'ARM194 redisState: cluster[1] is "http://127.0.0.1:6379", not { host, port } nor a redis:// or rediss:// URL',
      'ARM194 redisState: cluster[2] is {"host":"","port":6379}, not { host, port } nor a redis:// or rediss:// URL',
      'ARM194 redisState: cluster[3] is "\\u0000not a url", not { host, port } nor a redis:// or rediss:// URL',
      'ARM194 redisState: cluster[4] is null, not { host, port } nor a redis:// or rediss:// URL',
      'ARM194 redisState: cluster[5] is {"host":"x","port":1.5}, not { host, port } nor a redis:// or rediss:// URL',
    ]);
    expect((thrown as Error).message).toContain('Fix: redisState({ url: ');
  });

  it('refuses an empty cluster, and shows no password of a node it refuses', () => {
    expect(() => redisState({ cluster: [] })).toThrow('cluster must list one or more nodes of the Redis Cluster [ARM194]');
    expect(() => redisState({ cluster: ['redis://user:secret@'] })).toThrow(/cluster\[0\] is "redis:\/\/user:\*\*\*@"/);
  });
});

describe('the Redis event store', () => {
  it('replays the events after an id in order, within the stream budget, and forgets what it dropped or purged', async () => {
    const state = redisState({ url: redis.url, keyPrefix: 'events-test:', maxEventsPerStream: 3 });
    const { events } = state;
    try {
      await state.bus.subscribe('changes', () => undefined);
      const ids: string[] = [];
      for (let i = 1; i <= 5; i++) ids.push(await events.storeEvent('s1/_GET_stream', { jsonrpc: '2.0', method: `m${i}` }));
      await events.storeEvent('s2/_GET_stream', { jsonrpc: '2.0', method: 'other' });
      // Budget of 3: the first two are gone, and their ids with them.
      expect(await events.getStreamIdForEventId(ids[0] as string)).toBeUndefined();
      expect(await events.getStreamIdForEventId(ids[2] as string)).toBe('s1/_GET_stream');
      const replayed: string[] = [];
      const stream = await events.replayEventsAfter(ids[2] as string, {
        send: async (id, message) => {
          replayed.push(`${ids.indexOf(id) + 1}:${(message as { method: string }).method}`);
        },
      });
      expect(stream).toBe('s1/_GET_stream');
      expect(replayed).toEqual(['4:m4', '5:m5']);
      await events.purge('s1/');
      const after: string[] = [];
      await events.replayEventsAfter(ids[2] as string, { send: async (id) => void after.push(id) });
      expect(after).toEqual([]);
    } finally {
      await state.close();
    }
  });

  it('keeps a stream within its byte budget, dropping the oldest first', async () => {
    const state = redisState({ url: redis.url, keyPrefix: 'bytes-test:', maxBytesPerStream: 200 });
    try {
      await state.bus.subscribe('changes', () => undefined);
      const big = 'x'.repeat(60);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push(await state.events.storeEvent('s/_GET_stream', { jsonrpc: '2.0', method: big }));
      // Each serialized event is 84 bytes: two fit in 200.
      const held = await Promise.all(ids.map((id) => state.events.getStreamIdForEventId(id)));
      expect(held).toEqual([undefined, undefined, 's/_GET_stream', 's/_GET_stream']);
    } finally {
      await state.close();
    }
  });
});

describe('a 2025-11-25 HTTP session on the redis state', () => {
  it('is served by the request engine, as in memory', async () => {
    for (const shared of [false, true]) {
      const app = createMcpApp(Plain, shared ? { state: redisState({ url: redis.url }), requestStateKey: 'k'.repeat(32) } : {});
      const listener = await app.listenHttp({ port: 0 });
      const client = new Client({ name: 'direct', version: '1.0.0' });
      try {
        await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
        const before = app.stats.engine;
        for (let i = 0; i < 5; i++)
          expect(await client.callTool({ name: 'ping', arguments: {} })).toMatchObject({ content: [{ text: 'pong' }] });
        await client.listTools();
        expect({ shared, direct: app.stats.engine - before }).toEqual({ shared, direct: 6 });
      } finally {
        await client.close();
        await listener.close();
        await app.close();
      }
    }
  });
});
