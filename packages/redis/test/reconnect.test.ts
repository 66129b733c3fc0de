import 'reflect-metadata';
import { request } from 'node:http';
import { createMcpApp, McpServer, Tool } from '@armature/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisState } from '../src/index.js';
import { openSession } from './support/raw-session.js';
import { startTestRedis, type TestRedis } from './support/topology.js';

// Shared-state work nobody waits on (a change notification for the sessions, its relay to the
// stream the client holds) is delayed while Redis reconnects, within the connect timeout, not lost:
// on one Redis, and (vitest.cluster.config.ts) when every node of a Redis Cluster was away.

@McpServer({ name: 'plain', version: '1.0.0' })
class Plain {
  @Tool({ description: 'ping' })
  ping() {
    return 'pong';
  }
}

/** Resolves once `check` holds, polling every 50 ms for at most `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let redis: TestRedis;

beforeAll(async () => {
  redis = await startTestRedis();
});

afterAll(async () => {
  await redis?.dispose();
});

describe('a change raised while Redis reconnects', () => {
  it('waits for it and reaches the stream the client holds, instead of being lost', { timeout: 60_000 }, async () => {
    const app = createMcpApp(Plain, { state: redisState({ ...redis.target, connectTimeoutMs: 20_000 }), requestStateKey: 'k'.repeat(32) });
    const listener = await app.listenHttp({ port: 0 });
    const said = vi.spyOn(process.stderr, 'write');
    let stream: ReturnType<typeof request> | undefined;
    try {
      const headers = await openSession(listener.url);
      // The client's standalone GET stream, held by this instance.
      let heard = '';
      const opened = new Promise<void>((resolve, reject) => {
        stream = request(listener.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } }, (res) => {
          res.on('data', (chunk: Buffer) => {
            heard += chunk.toString('utf8');
          });
          resolve();
        });
        stream.on('error', reject);
        stream.end();
      });
      await opened;

      await redis.stop();
      const ready = () => fetch(new URL('/ready', listener.url)).then((answer) => answer.status);
      await eventually(async () => (await ready()) === 503, 'the instance to see Redis gone');
      const notified = app.notifyResourceListChanged();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await redis.start();
      await notified;
      await eventually(() => heard.includes('"method":"notifications/resources/list_changed"'), 'the notification on the GET stream');
      expect(said.mock.calls.join('')).not.toContain('could not go through');
    } finally {
      said.mockRestore();
      stream?.destroy();
      await listener.close();
      await app.close();
    }
  });
});

describe('a catalogue edit made while Redis reconnects', () => {
  it('is kept in Redis once it is back, for the instances that start later', { timeout: 60_000 }, async () => {
    const app = createMcpApp(Plain, { state: redisState({ ...redis.target, connectTimeoutMs: 20_000 }), requestStateKey: 'k'.repeat(32) });
    const listener = await app.listenHttp({ port: 0 });
    let later: ReturnType<typeof redisState> | undefined;
    try {
      await redis.stop();
      const ready = () => fetch(new URL('/ready', listener.url)).then((answer) => answer.status);
      await eventually(async () => (await ready()) === 503, 'the instance to see Redis gone');
      app.tools.disable('ping');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await redis.start();
      // An instance that starts now reads the edits kept in Redis.
      const started = redisState({ ...redis.target, connectTimeoutMs: 20_000 });
      later = started;
      await started.bus.subscribe('changes', () => undefined);
      await eventually(
        async () => (await started.catalog?.all())?.some((edit) => edit.key === 'ping' && edit.op === 'disable') === true,
        'the edit in Redis',
      );
    } finally {
      await later?.close();
      await listener.close();
      await app.close();
    }
  });
});
