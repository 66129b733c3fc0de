import { createHash } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import type { DeliveryRecord, DeliveryStatus, EventsStore, LogLimits, LogPage, SubscriptionRecord } from './events-store.js';
import { nextStatus } from './memory-events-store.js';

export interface RedisEventsStoreOptions {
  /** The Redis server, e.g. `redis://127.0.0.1:6379`. Default `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key, so several apps share one Redis. Default `armature:events:`. */
  keyPrefix?: string;
  /** A Redis Cluster instead of `url`: some of its nodes (ioredis finds the others), as `redisState({ cluster })`. */
  cluster?: readonly { host: string; port: number }[];
}

// Takes the due deliveries and pushes their due time to the end of the lease in one step, so two
// instances never take the same delivery while its lease runs.
const CLAIM = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], ARGV[2], id) end
return ids`;

// Appends to an event type's poll log, each entry naming the entry before it (so a reader can tell
// a gap), trims the log by count and age, and remembers the newest id.
const APPEND = `
local previous = redis.call('GET', KEYS[2]) or '0-0'
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'body', ARGV[2], 'previous', previous)
redis.call('XTRIM', KEYS[1], 'MINID', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('SET', KEYS[2], id, 'PX', ARGV[4])
return id`;

/**
 * Subscriptions and pending deliveries on Redis, shared by every instance of the app: a subscription
 * is a key that expires with it (and an entry in its event's index, scored by expiry); a delivery is
 * a key and an entry in one due-time index, whose score a claim moves to the end of its lease.
 */
export class RedisEventsStore implements EventsStore {
  readonly shared = true;
  private readonly client: Redis | Cluster;
  private readonly prefix: string;

  constructor(options: RedisEventsStoreOptions = {}) {
    const redisOptions = { maxRetriesPerRequest: 1, connectionName: 'armature-events' };
    this.client = options.cluster
      ? new Cluster([...options.cluster], { redisOptions })
      : new Redis(options.url ?? 'redis://127.0.0.1:6379', redisOptions);
    this.client.on('error', () => undefined);
    this.prefix = options.keyPrefix ?? 'armature:events:';
  }

  // Every key under one hash tag: on a Redis Cluster they share a slot, as the MULTIs and MGETs need.
  private key(...parts: string[]): string {
    return `{${this.prefix}}${parts.join(':')}`;
  }

  async saveSubscription(record: SubscriptionRecord): Promise<void> {
    const ttl = Math.max(1, record.expiresAt - Date.now());
    await this.client
      .multi()
      .set(this.key('sub', record.id), JSON.stringify(record), 'PX', ttl)
      .zadd(this.key('subs', record.name), record.expiresAt, record.id)
      .zadd(this.principalKey(record.principal), record.expiresAt, record.id)
      .exec();
  }

  private principalKey(principal: string): string {
    return this.key('principal', createHash('sha256').update(principal).digest('hex').slice(0, 32));
  }

  async status(id: string): Promise<DeliveryStatus | undefined> {
    const raw = await this.client.get(this.key('status', id));
    return raw === null ? undefined : (JSON.parse(raw) as DeliveryStatus);
  }

  async recordAttempt(id: string, at: number, error: string | undefined, expiresAt: number): Promise<void> {
    // Read and written without a lock: two instances recording at once keep one of the two outcomes.
    const next = nextStatus(await this.status(id), at, error);
    await this.client.set(this.key('status', id), JSON.stringify(next), 'PX', Math.max(1, expiresAt - Date.now()));
  }

  async countOf(principal: string, now: number): Promise<number> {
    const index = this.principalKey(principal);
    await this.client.zremrangebyscore(index, '-inf', String(now));
    return this.client.zcard(index);
  }

  async subscription(id: string, now: number): Promise<SubscriptionRecord | undefined> {
    const raw = await this.client.get(this.key('sub', id));
    const record = raw === null ? undefined : (JSON.parse(raw) as SubscriptionRecord);
    return record && record.expiresAt > now ? record : undefined;
  }

  async removeSubscription(id: string): Promise<boolean> {
    const raw = await this.client.get(this.key('sub', id));
    if (raw === null) return false;
    const record = JSON.parse(raw) as SubscriptionRecord;
    const [[, removed] = []] =
      (await this.client
        .multi()
        .del(this.key('sub', id))
        .del(this.key('status', id))
        .zrem(this.key('subs', record.name), id)
        .zrem(this.principalKey(record.principal), id)
        .exec()) ?? [];
    return removed === 1;
  }

  async subscriptionsTo(name: string, now: number): Promise<SubscriptionRecord[]> {
    const index = this.key('subs', name);
    await this.client.zremrangebyscore(index, '-inf', String(now));
    const ids = await this.client.zrange(index, '0', '-1');
    if (ids.length === 0) return [];
    const raws = await this.client.mget(ids.map((id) => this.key('sub', id)));
    return raws
      .filter((raw): raw is string => raw !== null)
      .map((raw) => JSON.parse(raw) as SubscriptionRecord)
      .filter((record) => record.expiresAt > now);
  }

  async markVerified(key: string, until: number): Promise<void> {
    await this.client.set(this.key('verified', key), '1', 'PX', Math.max(1, until - Date.now()));
  }

  async isVerified(key: string): Promise<boolean> {
    return (await this.client.exists(this.key('verified', key))) === 1;
  }

  async enqueue(deliveries: readonly DeliveryRecord[], dueAt: number): Promise<void> {
    if (deliveries.length === 0) return;
    const batch = this.client.multi();
    for (const record of deliveries) {
      batch.set(this.key('delivery', record.id), JSON.stringify(record));
      batch.zadd(this.key('due'), dueAt, record.id);
    }
    await batch.exec();
  }

  async claimDue(now: number, leaseMs: number, max: number): Promise<DeliveryRecord[]> {
    const ids = (await this.client.eval(CLAIM, 1, this.key('due'), String(now), String(now + leaseMs), String(max))) as string[];
    if (ids.length === 0) return [];
    const raws = await this.client.mget(ids.map((id) => this.key('delivery', id)));
    const claimed: DeliveryRecord[] = [];
    for (const [i, raw] of raws.entries()) {
      if (raw !== null) claimed.push(JSON.parse(raw) as DeliveryRecord);
      // An index entry whose record is gone (finished elsewhere between the two steps) is dropped.
      else await this.client.zrem(this.key('due'), ids[i] as string);
    }
    return claimed;
  }

  async finish(id: string): Promise<void> {
    await this.client.multi().zrem(this.key('due'), id).del(this.key('delivery', id)).exec();
  }

  async retryAt(record: DeliveryRecord, dueAt: number): Promise<void> {
    await this.client.multi().set(this.key('delivery', record.id), JSON.stringify(record)).zadd(this.key('due'), dueAt, record.id).exec();
  }

  async nextDue(): Promise<number | undefined> {
    const [, score] = await this.client.zrange(this.key('due'), '0', '0', 'WITHSCORES');
    return score === undefined ? undefined : Number(score);
  }

  async appendToLog(name: string, body: string, now: number, limits: LogLimits): Promise<void> {
    await this.client.eval(
      APPEND,
      2,
      this.key('log', name),
      this.key('log-last', name),
      String(limits.maxEvents),
      body,
      String(now - limits.maxAgeMs),
      String(limits.maxAgeMs * 2),
    );
  }

  async readLog(name: string, cursor: string | null, max: number): Promise<LogPage | undefined> {
    const newest = (await this.client.get(this.key('log-last', name))) ?? undefined;
    if (cursor === null) return { bodies: [], cursors: [], cursor: newest ?? '0-0', truncated: false, hasMore: false };
    if (!/^\d{1,15}-\d{1,15}$/.test(cursor)) return undefined;
    const entries = await this.client.xrange(this.key('log', name), `(${cursor}`, '+', 'COUNT', String(max + 1));
    const page = entries.slice(0, max).map(([id, fields]) => ({ id, body: fields[1] as string, previous: fields[3] as string }));
    const first = page[0];
    // Each entry names the one before it: when that is newer than the cursor, entries between were dropped.
    const truncated = first ? compareIds(first.previous, cursor) > 0 : newest !== undefined && compareIds(newest, cursor) > 0;
    return {
      bodies: page.map((entry) => entry.body),
      cursors: page.map((entry) => entry.id),
      cursor: page[page.length - 1]?.id ?? (truncated ? (newest as string) : cursor),
      truncated,
      hasMore: entries.length > max,
    };
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am === bm ? as - bs : am - bm;
}

/**
 * A Redis store for `events({ store })`, so several instances share subscriptions and pending
 * deliveries (use the Redis of `redisState`).
 */
export function redisEventsStore(options: RedisEventsStoreOptions = {}): EventsStore {
  return new RedisEventsStore(options);
}
