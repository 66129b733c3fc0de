import type { SharedState, TaskLimits, TaskRecord } from '@armature/core';
import { RedisCluster } from '@armature/test-redis';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisState } from '../src/index.js';

// Every script and MULTI of redisState, run against a real three-master Redis Cluster: a script or
// MULTI whose keys fell in two slots would fail with CROSSSLOT (or MOVED, keys on another master),
// and so would this test. The scale-out tests run on the cluster too (vitest.cluster.config.ts).

const LIMITS: TaskLimits = {
  maxOpenTasksPerOwner: 10,
  maxRunningTasksPerOwner: 10,
  maxRunningTasks: 10,
  maxResultBytesPerOwner: 10_000,
  maxOpenTasks: 10,
  maxResultBytes: 10_000,
};

/** Resolves once `check` holds, polling every 20 ms for at most 10 s. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let cluster: RedisCluster;
let state: SharedState & Required<Pick<SharedState, 'tasks' | 'listens' | 'catalog' | 'rateLimits'>>;
let other: SharedState;
let raw: Cluster;

beforeAll(async () => {
  cluster = await RedisCluster.start();
  // Given one node: ioredis finds the other two.
  const [first] = cluster.addresses;
  state = redisState({ cluster: [first as { host: string; port: number }], connectTimeoutMs: 20_000 }) as typeof state;
  other = redisState({ cluster: [`redis://${cluster.spec.split(',')[1]}`], connectTimeoutMs: 20_000 });
  raw = new Cluster(cluster.addresses);
  // As an app does when it starts: subscribing waits for both connections.
  await Promise.all([state.bus.subscribe('changes', () => undefined), other.bus.subscribe('changes', () => undefined)]);
});

afterAll(async () => {
  await Promise.all([state?.close(), other?.close(), raw?.quit()]);
  await cluster?.dispose();
});

describe('redisState on a three-master Redis Cluster', () => {
  it('spreads nothing a script needs over two slots: session records and the caps', async () => {
    const record = {
      owner: 'alice',
      client: '10.0.0.1',
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'c', version: '1' },
      initialized: false,
    };
    const caps = { maxSessions: 2, maxSessionsPerClient: 1 };
    expect(await state.sessions.open('s1', record, 60_000, caps)).toBeUndefined();
    expect(await state.sessions.open('s2', record, 60_000, caps)).toBe('maxSessionsPerClient');
    expect(await state.sessions.open('s3', { ...record, client: '10.0.0.2' }, 60_000, caps)).toBeUndefined();
    expect(await state.sessions.open('s4', { ...record, client: '10.0.0.3' }, 60_000, caps)).toBe('maxSessions');
    await state.sessions.put('s5', { ...record, client: undefined }, 60_000);
    await state.sessions.update('s1', { initialized: true, logLevel: 'info' });
    expect(await state.sessions.touch('s1', 60_000)).toEqual({ logLevel: 'info' });
    await state.sessions.subscribe('s1', 'item://1');
    await state.sessions.subscribe('s3', 'item://1');
    expect((await other.sessions.subscribers('item://1')).sort()).toEqual(['s1', 's3']);
    await state.sessions.unsubscribe('s3', 'item://1');
    await state.sessions.delete('s1');
    expect(await other.sessions.get('s1')).toBeUndefined();
    expect((await other.sessions.all()).sort()).toEqual(['s3', 's5']);
  });

  it('keeps, replays and purges resumable events, and relays a notice through cluster pub/sub', async () => {
    const heard: string[] = [];
    const stop = await other.bus.subscribe('sessions', (payload) => heard.push(payload));
    const first = await state.events.storeEvent('sess/1', { jsonrpc: '2.0', method: 'notifications/one' });
    await state.events.storeAndPublish('sess/1', { jsonrpc: '2.0', method: 'notifications/two' }, 'sessions', (id) => `stored ${id}`);
    await state.events.storeEvents('sess/1', [], { owner: 'a', requestIds: [1] });
    expect(await other.events.streamClaim('sess/1')).toEqual({ owner: 'a', requestIds: [1] });
    expect(await other.events.getStreamIdForEventId(first)).toBe('sess/1');
    const replayed: string[] = [];
    await other.events.replayEventsAfter(first, {
      send: async (_id, message) => {
        replayed.push((message as { method: string }).method);
      },
    });
    expect(replayed).toEqual(['notifications/two']);
    await eventually(() => heard.length === 1, 'the notice on the other state');
    expect(heard[0]).toMatch(/^stored [0-9a-f-]{36}$/);
    await state.bus.publish('sessions', 'plain publish');
    await eventually(() => heard.length === 2, 'a published message');
    await stop();
    await state.events.purge('sess/');
    expect(await other.events.getStreamIdForEventId(first)).toBe('sess/1');
    expect(await other.events.streamClaim('sess/1')).toBeUndefined();
  });

  it('claims a POST stream and stores its priming event in one script', async () => {
    const [priming] = await state.events.storeEvents('sess/2', [{} as JSONRPCMessage], { owner: 'b', requestIds: ['x'] });
    expect(priming).toMatch(/^[0-9a-f-]{36}$/);
    expect(await other.events.streamClaim('sess/2')).toEqual({ owner: 'b', requestIds: ['x'] });
    expect(await other.events.getStreamIdForEventId(priming as string)).toBe('sess/2');
    const answer = await state.events.storeEvent('sess/2', { jsonrpc: '2.0', id: 'x', result: {} });
    const replayed: string[] = [];
    await other.events.replayEventsAfter(priming as string, {
      send: async (id) => {
        replayed.push(id);
      },
    });
    expect(replayed).toEqual([answer]);
    await state.events.purge('sess/');
    expect(await other.events.streamClaim('sess/2')).toBeUndefined();
  });

  it('stores a POST stream opened with its answer in one script, unclaimed, and replays it in order', async () => {
    const ids = await state.events.storeEvents('sess/3', [
      {} as JSONRPCMessage,
      { jsonrpc: '2.0', method: 'notifications/progress' },
      { jsonrpc: '2.0', id: 'y', result: {} },
    ]);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(await other.events.getStreamIdForEventId(id)).toBe('sess/3');
    expect(await other.events.streamClaim('sess/3')).toBeUndefined();
    const replayed: string[] = [];
    await other.events.replayEventsAfter(ids[0] as string, {
      send: async (id) => {
        replayed.push(id);
      },
    });
    expect(replayed).toEqual(ids.slice(1));
    await state.events.purge('sess/');
  });

  it('stores the events of several streams stored in the same turn in one script, each in order', async () => {
    const streams = ['sess4/a', 'sess4/b', 'sess5/c'];
    const stored = await Promise.all(
      streams.map((stream, i) =>
        state.events.storeEvents(stream, [{} as JSONRPCMessage, { jsonrpc: '2.0', id: i, result: {} }], { owner: 'a', requestIds: [i] }),
      ),
    );
    for (const [i, stream] of streams.entries()) {
      const ids = stored[i] as string[];
      expect(await other.events.getStreamIdForEventId(ids[1] as string)).toBe(stream);
      expect(await other.events.streamClaim(stream)).toEqual({ owner: 'a', requestIds: [i] });
      const replayed: unknown[] = [];
      await other.events.replayEventsAfter(ids[0] as string, {
        send: async (_id, message) => {
          replayed.push(message);
        },
      });
      expect(replayed).toEqual([{ jsonrpc: '2.0', id: i, result: {} }]);
    }
    await state.events.purge('sess4/');
    await state.events.purge('sess5/');
    expect(await other.events.streamClaim('sess4/a')).toBeUndefined();
  });

  it('creates, lists, updates, counts and queues tasks, and tells another instance of a change', async () => {
    const now = Date.now();
    const task: TaskRecord = {
      taskId: 't1',
      owner: 'alice',
      tool: 'slow',
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: 60_000,
      pollIntervalMs: 100,
      leaseExpiresAt: now + 3_000,
    };
    const quota = state.tasks.quota;
    const queue = state.tasks.queue;
    if (!quota || !queue) throw new Error('the redis task store has a quota and a queue');
    expect(
      await quota.admit({ owner: 'alice', taskId: 't1', expiresAt: now + 60_000, leaseExpiresAt: now + 3_000 }, LIMITS, now),
    ).toBeUndefined();
    await state.tasks.create(task);
    const seen: string[] = [];
    const unwatch = other.tasks?.watch('t1', (record) => seen.push(record.status));
    await new Promise((resolve) => setTimeout(resolve, 300)); // the watch subscribes
    await state.tasks.update('t1', { leaseExpiresAt: now + 6_000 });
    await quota.renew('alice', 't1', now + 6_000);
    await state.tasks.update('t1', { status: 'input_required', ask: { q: { method: 'elicitation/create' } } });
    await state.tasks.update('t1', { answer: { q: { action: 'accept' } } });
    expect((await other.tasks?.get('t1'))?.inputResponses).toEqual({ q: { action: 'accept' } });
    await state.tasks.update('t1', { settle: ['q'] });
    expect(await quota.keep('alice', 't1', 100, LIMITS, Date.now())).toEqual({ kept: true });
    await quota.stopped('alice', 't1');
    await quota.resumed('alice', 't1', now + 9_000);
    await state.tasks.update('t1', { status: 'completed', outcome: { kind: 'result', result: { content: [] } } });
    await eventually(() => seen.includes('completed'), 'the change on the other instance');
    unwatch?.();
    expect((await other.tasks?.list('alice', undefined, 10))?.tasks.map((t) => t.status)).toEqual(['completed']);
    await quota.release('alice', 't1');

    const ticket = await queue.hold('runner-a', { taskId: 't1', tool: 'slow', args: {}, retries: 1 });
    expect(await queue.renew('runner-a', [ticket])).toEqual([]);
    const claimed = await queue.claim('runner-b', 0, 5);
    expect(claimed.map((held) => [held.ticket, held.attempt])).toEqual([[ticket, 2]]);
    await queue.done(ticket);
  });

  it('leases instances and listen streams, records catalogue edits and counts rate limits', async () => {
    await state.instances.renew('i1', 5_000);
    expect(await other.instances.alive('i1')).toBe(true);
    const lease = await state.listens.acquire('10.0.0.1', 1, 5_000);
    expect(lease).toBeDefined();
    expect(await other.listens?.acquire('10.0.0.1', 1, 5_000)).toBeUndefined();
    await state.listens.renew('10.0.0.1', lease as string, 5_000);
    await state.listens.release('10.0.0.1', lease as string);
    await state.catalog.record({ catalog: 'tools', key: 'slow', op: 'disable' });
    expect(await other.catalog?.all()).toEqual([{ catalog: 'tools', key: 'slow', op: 'disable' }]);
    expect((await state.rateLimits.hit('alice', 2, 10_000)).allowed).toBe(true);
    expect((await other.rateLimits?.hit('alice', 2, 10_000))?.allowed).toBe(true);
    expect((await state.rateLimits.hit('alice', 2, 10_000)).allowed).toBe(false);
    expect((await other.rateLimits?.peek('alice', 2, 10_000))?.allowed).toBe(false);
  });

  it('hashes the keys a script shares into one slot each, spread over the masters by store', async () => {
    const slots = new Map<string, Set<number>>();
    for (const node of raw.nodes('master')) {
      for (const key of await node.keys('*')) {
        const store = /^\{[^}]*\}/.exec(key)?.[0] ?? 'plain';
        const slot = (await node.call('CLUSTER', 'KEYSLOT', key)) as number;
        slots.set(store, (slots.get(store) ?? new Set()).add(slot));
      }
    }
    // The tasks and the SSE events are still there; the sessions too (s3, s5).
    for (const store of ['{armature:sessions}', '{armature:events}', '{armature:tasks}']) expect(slots.get(store)?.size).toBe(1);
    // Three stores in three slots: a Redis Cluster can put them on different masters.
    expect(new Set([...slots.entries()].filter(([store]) => store !== 'plain').map(([, s]) => [...s][0])).size).toBe(3);
  });
});
