import 'reflect-metadata';
import { createMcpApp, McpServer, Tool } from '@armature/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState } from '../src/index.js';
import { holdStream, openSession } from './support/raw-session.js';
import { startTestRedis, type TestRedis } from './support/topology.js';

// A client's GET stream opened on an instance that has not seen its session yet: the instance
// re-creates the session from Redis before the stream is open, and what another instance relays to
// the stream in between must reach it, not fall between the two.

@McpServer({ name: 'plain', version: '1.0.0' })
class Plain {
  @Tool({ description: 'ping' })
  ping() {
    return 'pong';
  }
}

let redis: TestRedis;

beforeAll(async () => {
  redis = await startTestRedis();
});

afterAll(async () => {
  await redis?.dispose();
});

describe('a GET stream opened on an instance that re-creates the session', () => {
  it('gets what another instance relayed while the session was being re-created', { timeout: 60_000 }, async () => {
    const key = 'k'.repeat(32);
    const a = createMcpApp(Plain, { state: redisState(redis.target), requestStateKey: key });
    const stateB = redisState(redis.target);
    const b = createMcpApp(Plain, { state: stateB, requestStateKey: key });
    const [atA, atB] = await Promise.all([a.listenHttp({ port: 0 }), b.listenHttp({ port: 0 })]);
    // B reads the session's record only once A has relayed a change to the session's GET stream.
    let reading!: () => void;
    const readingRecord = new Promise<void>((resolve) => {
      reading = resolve;
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const get = stateB.sessions.get.bind(stateB.sessions);
    stateB.sessions.get = async (sessionId) => {
      reading();
      await released;
      return get(sessionId);
    };
    try {
      const headers = await openSession(atA.url);
      const held = holdStream(atB.url, headers);
      await readingRecord;
      await a.notifyResourceListChanged();
      release();
      const stream = await held;
      expect(stream.status).toBe(200);
      expect(await stream.events(1)).toContain('"method":"notifications/resources/list_changed"');
      stream.drop();
    } finally {
      release();
      await Promise.all([atA.close(), atB.close()]);
      await Promise.all([a.close(), b.close()]);
    }
  });
});
