import { randomUUID } from 'node:crypto';
import type { StreamLeases } from '@armature/core';
import type { Connection } from './connection.js';

// Holds one more stream of a client if fewer than ARGV[2] are held: members of KEYS[1] by expiry,
// lapsed ones (their instance died, or stopped renewing) dropped first. ARGV: now, max, ttl, lease.
const ACQUIRE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** Stream leases on Redis: one sorted set per client, its members the leases by expiry. */
export class RedisStreamLeases implements StreamLeases {
  constructor(
    private readonly connection: Connection,
    private readonly prefix: string,
  ) {}

  async acquire(client: string, max: number, ttlMs: number): Promise<string | undefined> {
    const lease = randomUUID();
    const held = await this.connection.ready.eval(ACQUIRE, 1, this.key(client), Date.now(), max, ttlMs, lease);
    return held === 1 ? lease : undefined;
  }

  async renew(client: string, lease: string, ttlMs: number): Promise<void> {
    await this.connection.ready
      .multi()
      .zadd(this.key(client), 'XX', Date.now() + ttlMs, lease)
      .pexpire(this.key(client), ttlMs)
      .exec();
  }

  async release(client: string, lease: string): Promise<void> {
    await this.connection.ready.zrem(this.key(client), lease);
  }

  private key(client: string): string {
    return `${this.prefix}listens-client:${client}`;
  }
}
