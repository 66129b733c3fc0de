import type { SessionRecord, SharedState } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { redisState } from '../src/index.js';
import { CHUNK_SIZE } from '../src/set-chunks.js';
import { commandSizes, logEveryCommand } from './support/command-sizes.js';

// The index of sessions keeps a lapsed session's id until a change notification next reads it, so
// an app that seldom notifies gathers every session that ever lapsed: reading the index then
// removed them all with one SREM, whose arguments overflowed ioredis's stack. The lapsed ids are
// added directly in Redis here.

const LAPSED = 100_000;
const PREFIX = 'index:';
const INDEX = `{${PREFIX}sessions}:sessions`;

let redis: RedisServer;
let state: SharedState;
let raw: Redis;

beforeAll(async () => {
  redis = await RedisServer.start({ durable: false });
  state = redisState({ url: redis.url, keyPrefix: PREFIX });
  // The app subscribes when it starts, and that waits for the connections.
  await state.bus.subscribe('changes', () => undefined);
  raw = new Redis(redis.url);
});

afterAll(async () => {
  await Promise.all([state?.close(), raw?.quit()]);
  await redis?.dispose();
});

it(`reads an index of ${LAPSED} lapsed sessions in bounded commands, keeping the live ones`, async () => {
  const record: SessionRecord = {
    owner: 'alice',
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'c', version: '1' },
    initialized: true,
  };
  for (const id of ['live-1', 'live-2', 'live-3']) await state.sessions.put(id, record, 60_000);
  const batch = raw.pipeline();
  for (let at = 0; at < LAPSED; at += 10_000) {
    batch.sadd(
      INDEX,
      Array.from({ length: 10_000 }, (_, i) => `lapsed-${at + i}`),
    );
  }
  await batch.exec();
  expect(await raw.scard(INDEX)).toBe(LAPSED + 3);

  await logEveryCommand(raw);
  expect((await state.sessions.all()).sort()).toEqual(['live-1', 'live-2', 'live-3']);

  // The longest command: SREM of a chunk's lapsed ids.
  const sizes = await commandSizes(raw, 'armature-commands');
  expect(Math.max(...sizes)).toBeLessThanOrEqual(2 + CHUNK_SIZE);
  expect((await raw.smembers(INDEX)).sort()).toEqual(['live-1', 'live-2', 'live-3']);
  await state.ping?.();
}, 10_000);
