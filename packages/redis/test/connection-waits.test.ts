import { RedisServer } from '@armature/test-redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Connection } from '../src/connection.js';
import { targetOf } from '../src/redis-target.js';

// Work that waits for Redis to (re)connect (change notifications, relays, catalogue edits) shares
// one wait per connection: at start, many such waiters once each added a `ready` listener, and
// past ten Node printed a MaxListenersExceededWarning on every instance's stderr.
let redis: RedisServer;
beforeAll(async () => {
  redis = await RedisServer.start({ durable: false });
});
afterAll(async () => {
  await redis?.dispose();
});

it('lets many callers wait for the connection with one listener, and gives each the connected client', async () => {
  const connection = new Connection(targetOf({ url: redis.url }, 'armature:'), 'commands');
  const before = connection.client.listenerCount('ready');
  const waiting = Array.from({ length: 25 }, () => connection.settled(10_000));
  expect(connection.client.listenerCount('ready') - before).toBe(1);
  const clients = await Promise.all(waiting);
  expect(new Set(clients)).toEqual(new Set([connection.client]));
  expect(connection.client.listenerCount('ready')).toBe(before);
  connection.client.disconnect();
});
