import { expect, it } from 'vitest';
import { CHUNK_SIZE } from '../src/set-chunks.js';
import { commandSizes, logEveryCommand } from './support/command-sizes.js';
import { stateOnRedis } from './support/state-on-redis.js';

// A long-lived 2025-11-25 session whose calls each opened a stored stream has tens of thousands of
// streams in its set. Purging it with one DEL of three keys per stream overflowed the stack inside
// ioredis at ~90,000 keys and broke its auto-pipeline: in the app, a TypeError thrown from a nextTick
// callback killed the server on the session's DELETE; here, the connection stopped answering (the
// next case timed out). The set is built directly in Redis, as 30,000+ calls would leave it.

const PREFIX = 'purge:';
const EVENTS = `{${PREFIX}events}:`;

const on = stateOnRedis(PREFIX);

/** The keys purge drops for `streamId` (its events, byte total and claim). */
const keysOf = (streamId: string) => [`${EVENTS}ev:${streamId}`, `${EVENTS}evb:${streamId}`, `${EVENTS}evo:${streamId}`];

// 30,000 streams is the session seen killing the server (90,001 keys: ioredis got past the spread,
// then failed in its pipeline); at 100,000 the spread itself overflowed and the purge only failed.
it.each([30_000, 100_000])(
  'purges a session of %i streams in bounded commands, and the process lives',
  async (streams) => {
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', record);
    try {
      const session = `big${streams}/`;
      // A few real streams of the session (events, byte totals, a claim), and another session's.
      const message = { jsonrpc: '2.0', method: 'notifications/x' } as const;
      for (const id of [`${session}1`, `${session}2`, 'other/1']) await on.state.events.storeEvent(id, message);
      await on.state.events.storeEvents(`${session}3`, [message], { owner: 'a', requestIds: [1] });
      const [otherEvent] = await on.state.events.storeEvents('other/2', [message], { owner: 'b', requestIds: [2] });
      const set = `${EVENTS}evs:${session}`;
      const batch = on.raw.pipeline();
      for (let at = 0; at < streams; at += 10_000) {
        batch.sadd(
          set,
          Array.from({ length: 10_000 }, (_, i) => `${session}s${at + i}`),
        );
      }
      await batch.exec();
      expect(await on.raw.scard(set)).toBe(streams + 3);
      // Events and byte totals of the three, the claim of the third.
      const listed = [...keysOf(`${session}1`).slice(0, 2), ...keysOf(`${session}2`).slice(0, 2), ...keysOf(`${session}3`)];
      expect(await on.raw.exists(...listed)).toBe(listed.length);

      await logEveryCommand(on.raw);
      await on.state.events.purge(session);
      // Auto-pipelining's failure came a tick after the command's.
      await new Promise((resolve) => setImmediate(resolve));

      expect(uncaught).toEqual([]);
      // The longest command: a chunk's three keys per stream, and UNLINK.
      const sizes = await commandSizes(on.raw, 'armature-commands');
      expect(sizes.length).toBeGreaterThan(0);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(1 + 3 * CHUNK_SIZE);
      expect(await on.raw.exists(set, ...listed)).toBe(0);
      expect(await on.state.events.streamClaim(`${session}3`)).toBeUndefined();
      // The other session's streams, set and claim are untouched.
      expect(await on.raw.exists(...keysOf('other/1').slice(0, 2), ...keysOf('other/2'))).toBe(5);
      expect((await on.raw.smembers(`${EVENTS}evs:other/`)).sort()).toEqual(['other/1', 'other/2']);
      expect(await on.state.events.streamClaim('other/2')).toEqual({ owner: 'b', requestIds: [2] });
      expect(await on.state.events.getStreamIdForEventId(otherEvent as string)).toBe('other/2');
      await on.state.ping?.();
    } finally {
      process.off('uncaughtException', record);
    }
  },
  10_000,
);
