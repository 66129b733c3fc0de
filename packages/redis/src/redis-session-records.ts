import type { SessionRecord, SessionRecords } from '@armature/core';
import type { Connection } from './connection.js';

// Changes fields of a record that still exists (a lapsed one is not brought back without expiry).
const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`;

/**
 * 2025-11-25 session records on Redis: one hash per session expiring with the session's idle
 * timeout, its subscriptions as a set, an index of subscribers per resource URI and one of live
 * sessions. Index entries of lapsed sessions are dropped when next read.
 */
export class RedisSessionRecords implements SessionRecords {
  constructor(
    private readonly connection: Connection,
    private readonly prefix: string,
  ) {}

  async get(id: string): Promise<SessionRecord | undefined> {
    const hash = await this.connection.ready.hgetall(this.key(id));
    if (!hash.record) return undefined;
    const record = JSON.parse(hash.record) as SessionRecord;
    return { ...record, initialized: hash.initialized === '1', ...(hash.logLevel ? { logLevel: hash.logLevel } : {}) };
  }

  async put(id: string, record: SessionRecord, ttlMs: number): Promise<void> {
    const { initialized, logLevel, ...rest } = record;
    await this.connection.ready
      .multi()
      .hset(this.key(id), { record: JSON.stringify(rest), initialized: initialized ? '1' : '0', ...(logLevel ? { logLevel } : {}) })
      .pexpire(this.key(id), ttlMs)
      .sadd(this.allKey, id)
      .exec();
  }

  async update(id: string, patch: Partial<Pick<SessionRecord, 'initialized' | 'logLevel'>>): Promise<void> {
    const fields: string[] = [];
    if (patch.initialized !== undefined) fields.push('initialized', patch.initialized ? '1' : '0');
    if (patch.logLevel !== undefined) fields.push('logLevel', patch.logLevel);
    if (fields.length > 0) await this.connection.ready.eval(UPDATE, 1, this.key(id), ...fields);
  }

  async touch(id: string, ttlMs: number): Promise<Pick<SessionRecord, 'logLevel'> | undefined> {
    const replies = await this.connection.ready
      .multi()
      .pexpire(this.key(id), ttlMs)
      .pexpire(this.subsKey(id), ttlMs)
      .hget(this.key(id), 'logLevel')
      .exec();
    const [[, extended] = [], , [, logLevel] = []] = replies ?? [];
    if (extended !== 1) return undefined;
    return typeof logLevel === 'string' ? { logLevel } : {};
  }

  async delete(id: string): Promise<void> {
    const redis = this.connection.ready;
    const uris = await redis.smembers(this.subsKey(id));
    const batch = redis.multi().del(this.key(id), this.subsKey(id)).srem(this.allKey, id);
    for (const uri of uris) batch.srem(this.uriKey(uri), id);
    await batch.exec();
  }

  async subscribe(id: string, uri: string): Promise<void> {
    const ttl = await this.connection.ready.pttl(this.key(id));
    const batch = this.connection.ready.multi().sadd(this.subsKey(id), uri).sadd(this.uriKey(uri), id);
    if (ttl > 0) batch.pexpire(this.subsKey(id), ttl);
    await batch.exec();
  }

  async unsubscribe(id: string, uri: string): Promise<void> {
    await this.connection.ready.multi().srem(this.subsKey(id), uri).srem(this.uriKey(uri), id).exec();
  }

  subscribers(uri: string): Promise<string[]> {
    return this.live(this.uriKey(uri));
  }

  all(): Promise<string[]> {
    return this.live(this.allKey);
  }

  /** The members of index `set` whose session still exists; the others are removed from it. */
  private async live(set: string): Promise<string[]> {
    const redis = this.connection.ready;
    const ids = await redis.smembers(set);
    if (ids.length === 0) return [];
    const exists = await Promise.all(ids.map((id) => redis.exists(this.key(id))));
    const gone = ids.filter((_, i) => exists[i] === 0);
    if (gone.length > 0) await redis.srem(set, ...gone);
    return ids.filter((_, i) => exists[i] === 1);
  }

  private get allKey(): string {
    return `${this.prefix}sessions`;
  }

  private key(id: string): string {
    return `${this.prefix}session:${id}`;
  }

  private subsKey(id: string): string {
    return `${this.prefix}session-subs:${id}`;
  }

  private uriKey(uri: string): string {
    return `${this.prefix}subscribers:${uri}`;
  }
}
