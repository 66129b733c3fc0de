import { RedisCluster } from '@armature/test-redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisEventsStore } from '../src/redis-events-store.js';
import { aliceSubscription } from './support/subscription.js';

// Every MULTI, MGET and script of the Redis store on a real three-master Redis Cluster: keys in two
// slots would fail with CROSSSLOT.

let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await RedisCluster.start({ durable: false });
});

afterAll(async () => {
  await cluster?.dispose();
});

it('keeps subscriptions, deliveries and the poll log on a Redis Cluster', async () => {
  const store = new RedisEventsStore({ cluster: cluster.addresses.slice(0, 1) });
  try {
    const now = Date.now();
    const record = aliceSubscription(now);
    await store.saveSubscription({ ...record, id: 's1' });
    await store.saveSubscription({ ...record, id: 's2' });
    expect(await store.countOf('alice', now)).toBe(2);
    expect((await store.subscriptionsTo('e', now)).map((s) => s.id).sort()).toEqual(['s1', 's2']);
    expect(await store.removeSubscription('s1')).toBe(true);
    await store.recordAttempt('s2', now, 'http_5xx', now + 60_000);
    expect(await store.status('s2')).toMatchObject({ lastError: 'http_5xx' });
    await store.markVerified('k', now + 60_000);
    expect(await store.isVerified('k')).toBe(true);

    await store.enqueue(
      [
        { id: 'd1', subscriptionId: 's2', webhookId: 'evt_1', body: '{}', attempts: 0 },
        { id: 'd2', subscriptionId: 's2', webhookId: 'evt_2', body: '{}', attempts: 0 },
      ],
      now,
    );
    expect((await store.claimDue(now, 1_000, 10)).map((d) => d.id).sort()).toEqual(['d1', 'd2']);
    await store.retryAt({ id: 'd1', subscriptionId: 's2', webhookId: 'evt_1', body: '{}', attempts: 1 }, now + 5_000);
    await store.finish('d2');
    expect(await store.nextDue()).toBe(now + 5_000);

    const start = await store.readLog('e', null, 10);
    await store.appendToLog('e', 'one', now, { maxAgeMs: 60_000, maxEvents: 5 });
    expect(await store.readLog('e', start?.cursor ?? null, 10)).toMatchObject({ bodies: ['one'], truncated: false });
  } finally {
    await store.close();
  }
});
