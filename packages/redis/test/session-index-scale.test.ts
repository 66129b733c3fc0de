import type { SessionRecord } from '@armature/core';
import { expect, it } from 'vitest';
import { CHUNK_SIZE } from '../src/set-chunks.js';
import { commandSizes, logEveryCommand } from './support/command-sizes.js';
import { stateOnRedis } from './support/state-on-redis.js';

// The index of sessions keeps a lapsed session's id until a change notification next reads it, so
// an app that seldom notifies gathers every session that ever lapsed: reading the index then
// removed them all with one SREM, whose arguments overflowed ioredis's stack. The lapsed ids are
// added directly in Redis here.

const LAPSED = 100_000;
const PREFIX = 'index:';
const INDEX = `{${PREFIX}sessions}:sessions`;

const on = stateOnRedis(PREFIX);

it(`reads an index of ${LAPSED} lapsed sessions in bounded commands, keeping the live ones`, async () => {
  const record: SessionRecord = {
    owner: 'alice',
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'c', version: '1' },
    initialized: true,
  };
  for (const id of ['live-1', 'live-2', 'live-3']) await on.state.sessions.put(id, record, 60_000);
  const batch = on.raw.pipeline();
  for (let at = 0; at < LAPSED; at += 10_000) {
    batch.sadd(
      INDEX,
      Array.from({ length: 10_000 }, (_, i) => `lapsed-${at + i}`),
    );
  }
  await batch.exec();
  expect(await on.raw.scard(INDEX)).toBe(LAPSED + 3);

  await logEveryCommand(on.raw);
  expect((await on.state.sessions.all()).sort()).toEqual(['live-1', 'live-2', 'live-3']);

  // The longest command: SREM of a chunk's lapsed ids.
  const sizes = await commandSizes(on.raw, 'armature-commands');
  expect(Math.max(...sizes)).toBeLessThanOrEqual(2 + CHUNK_SIZE);
  expect((await on.raw.smembers(INDEX)).sort()).toEqual(['live-1', 'live-2', 'live-3']);
  await on.state.ping?.();
}, 10_000);
