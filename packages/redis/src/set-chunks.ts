import type { Cluster, Redis } from 'ioredis';

/** Most members of a chunk, and the COUNT asked of each SSCAN. */
export const CHUNK_SIZE = 500;

/**
 * The members of set `key` in chunks of at most CHUNK_SIZE, walked with SSCAN. A set that grows
 * with callers' activity (a session's streams, the index of sessions) can hold 100,000 members:
 * read with SMEMBERS and passed on in one command, its members blocked Redis for the whole reply
 * and overflowed the stack of ioredis, which spreads a command's arguments. A command built from a
 * chunk has a bounded number of arguments whatever the set's size. SSCAN returns every member the
 * set holds throughout the walk, some of them twice; its COUNT is only a hint, so a reply is cut to
 * CHUNK_SIZE here.
 */
export async function* setChunks(redis: Redis | Cluster, key: string): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, members] = await redis.sscan(key, cursor, 'COUNT', CHUNK_SIZE);
    cursor = next;
    for (let at = 0; at < members.length; at += CHUNK_SIZE) yield members.slice(at, at + CHUNK_SIZE);
  } while (cursor !== '0');
}
