import 'reflect-metadata';
import { createMcpApp, McpServer, Tool } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { IsInt } from 'class-validator';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisState } from '../src/index.js';
import { openSession, post } from './support/raw-session.js';

// The Redis work of one tools/call in a shared, resumable 2025-11-25 session, counted with MONITOR:
// a call answered within the turn it began in has its stream primed and its answer stored in one
// script (no claim: nobody can resume it before its answer is stored), and the session's record is
// refreshed at most once per interval, not per call.

class Pair {
  @IsInt()
  a!: number;

  @IsInt()
  b!: number;
}

@McpServer({ name: 'round-trips', version: '1.0.0' })
class AddServer {
  @Tool({ description: 'adds' })
  add(input: Pair) {
    return input.a + input.b;
  }
}

const CALLS = 10;

let redis: RedisServer;

beforeAll(async () => {
  redis = await RedisServer.start();
});

afterAll(async () => {
  await redis?.dispose();
});

describe('a tools/call in a shared session on the Redis state', () => {
  it('costs one script on Redis, and the record is refreshed once for calls close together', async () => {
    const prefix = 'round-trips:';
    const app = createMcpApp(AddServer, {
      state: redisState({ url: redis.url, keyPrefix: prefix }),
      requestStateKey: 'k'.repeat(32),
      onError: () => undefined,
    });
    const listener = await app.listenHttp({ port: 0 });
    const monitor = await new Redis(redis.url).monitor();
    try {
      const headers = await openSession(listener.url);
      // A first call: the record refreshed with the idle timeout, and the session warm.
      await post(
        listener.url,
        { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } },
        headers,
      );
      const claimsBefore = await monitorless(redis.url, (reader) => reader.keys(`*${prefix}*evo:*`));
      const commands: string[][] = [];
      // A script's own commands are listed too, from the source `lua`: only what the app sent is counted.
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        if (source !== 'lua') commands.push(args);
      });
      for (let i = 1; i <= CALLS; i++) {
        const answer = await post(
          listener.url,
          { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'add', arguments: { a: i, b: 1 } } },
          headers,
        );
        expect(answer.body).toContain(`{"type":"text","text":"${i + 1}"}`);
      }
      const scripts = commands.filter(([name]) => name?.toLowerCase() === 'evalsha');
      const touches = scripts.filter((args) => args.some((arg) => arg.includes('sessions}:session:')));
      // Besides the scripts, nothing on the sessions' and events' keys (the instance lease's renewals are not the calls').
      const others = commands.filter(([name, key]) => name?.toLowerCase() !== 'evalsha' && /(sessions|events)\}:/.test(key ?? ''));
      expect(others).toEqual([]);
      expect(touches.length).toBeLessThanOrEqual(1);
      expect(scripts.length).toBeLessThanOrEqual(CALLS + 1);
      // The record still lives for (about) the idle timeout.
      const reader = new Redis(redis.url);
      const ttl = await reader.pttl(`{${prefix}sessions}:session:${headers['mcp-session-id']}`);
      // Stored unclaimed: no stream of these calls has a claim (the initialize's, framed by the SDK's transport, has).
      const claims = await reader.keys(`*${prefix}*evo:*`);
      reader.disconnect();
      expect(ttl).toBeGreaterThan(29 * 60_000);
      expect(claims).toEqual(claimsBefore);
    } finally {
      monitor.disconnect();
      await listener.close();
      await app.close();
    }
  });
});

describe('the event stores of several calls under way together', () => {
  it('go to Redis in one script, each stream answered in order', async () => {
    const answers = Array.from({ length: 8 }, (_, i) => ({ jsonrpc: '2.0', id: i, result: {} }) as JSONRPCMessage);
    const { scripts, replayed } = await storedTogether('batched', answers);
    expect(scripts).toHaveLength(1);
    expect(replayed).toEqual(answers.map((answer) => [answer]));
  });

  it('go in several scripts when large, none past a mebibyte of messages but by one stream', async () => {
    const text = 'x'.repeat(600 * 1024);
    const answers = [0, 1, 2].map((i) => ({ jsonrpc: '2.0', id: i, result: { content: [{ type: 'text', text }] } }) as JSONRPCMessage);
    const { scripts, replayed } = await storedTogether('large', answers);
    // Two such answers pass the bound: one script each.
    expect(scripts.map((args) => args.filter((arg) => /^s\/\d$/.test(arg)))).toEqual([['s/0'], ['s/1'], ['s/2']]);
    expect(replayed).toEqual(answers.map((answer) => [answer]));
  });
});

/**
 * Stores each of `answers` after a priming event, on its own stream (`s/0`, `s/1`...), all in the
 * same turn, on a Redis state of its own: the scripts that took them (as MONITOR saw them), and
 * what a resume from each priming event replays.
 */
async function storedTogether(prefix: string, answers: JSONRPCMessage[]): Promise<{ scripts: string[][]; replayed: unknown[][] }> {
  const state = redisState({ url: redis.url, keyPrefix: `${prefix}:` });
  await state.bus.subscribe('changes', () => undefined);
  // Redis has the script from now on (a first EVALSHA may be answered NOSCRIPT, then sent as EVAL).
  await state.events.storeEvent('warm', { jsonrpc: '2.0', method: 'notifications/warm' });
  const monitor = await new Redis(redis.url).monitor();
  try {
    const scripts: string[][] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args[0]?.toLowerCase() === 'evalsha') scripts.push(args);
    });
    const stored = await Promise.all(answers.map((answer, i) => state.events.storeEvents(`s/${i}`, [{} as JSONRPCMessage, answer])));
    // A marker after them: every command before it has been seen by MONITOR.
    await state.events.storeEvent('marker', { jsonrpc: '2.0', method: 'notifications/marker' });
    await vi.waitFor(() => expect(scripts.some((args) => args.includes('marker'))).toBe(true));
    const replayed: unknown[][] = [];
    for (const ids of stored) {
      const messages: unknown[] = [];
      await state.events.replayEventsAfter(ids[0] as string, { send: async (_id, message) => void messages.push(message) });
      replayed.push(messages);
    }
    return { scripts: scripts.filter((args) => !args.includes('marker')), replayed };
  } finally {
    monitor.disconnect();
    await state.close();
  }
}

/** What `read` gets from a connection of its own, closed after. */
async function monitorless<T>(url: string, read: (reader: Redis) => Promise<T>): Promise<T> {
  const reader = new Redis(url);
  try {
    return await read(reader);
  } finally {
    reader.disconnect();
  }
}
