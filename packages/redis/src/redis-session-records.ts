import type { SessionCaps, SessionRecord, SessionRecords } from '@armature/core';
import type { Connection } from './connection.js';
import { setChunks } from './set-chunks.js';

// Changes fields of a record that still exists (a lapsed one is not brought back without expiry).
const UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`;

// Opens a session if the caps allow: the live sessions of every instance are the members of
// KEYS[2] (and of the client, KEYS[3]) whose score, their expiry, is still ahead; lapsed ones are
// dropped first. ARGV: now, ttl, maxSessions, maxSessionsPerClient, client ('' for none), the
// session's id, then the record's hash fields.
const OPEN = `
local now, ttl = tonumber(ARGV[1]), tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 'maxSessions' end
local client = ARGV[5] ~= ''
if client then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 'maxSessionsPerClient' end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 7))
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SADD', KEYS[4], ARGV[6])
redis.call('ZADD', KEYS[2], now + ttl, ARGV[6])
if client then
  redis.call('ZADD', KEYS[3], now + ttl, ARGV[6])
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return false
`;

// Pushes a live session's expiry back, in its record and in the caps' counts. ARGV: now, ttl, the
// session's id.
const TOUCH = `
if redis.call('PEXPIRE', KEYS[1], ARGV[2]) == 0 then return false end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
local expiry = tonumber(ARGV[1]) + tonumber(ARGV[2])
redis.call('ZADD', KEYS[3], 'XX', expiry, ARGV[3])
local client = redis.call('HGET', KEYS[1], 'client')
if client then
  redis.call('ZADD', KEYS[4] .. client, 'XX', expiry, ARGV[3])
  if redis.call('PTTL', KEYS[4] .. client) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[4] .. client, ARGV[2]) end
end
return redis.call('HGET', KEYS[1], 'logLevel') or ''
`;

/**
 * 2025-11-25 session records on Redis: one hash per session expiring with the session's idle
 * timeout, its subscriptions as a set, an index of subscribers per resource URI and one of live
 * sessions. Index entries of lapsed sessions are dropped when next read.
 */
export class RedisSessionRecords implements SessionRecords {
  private readonly scripts: Record<'open' | 'update' | 'touch', ReturnType<Connection['script']>>;

  constructor(
    private readonly connection: Connection,
    private readonly prefix: string,
    /** How long the reads of a change notification (`all`, `subscribers`) wait for Redis to (re)connect. */
    private readonly settleMs: number,
  ) {
    this.scripts = {
      open: connection.script('armatureOpenSession', 4, OPEN),
      update: connection.script('armatureUpdateSession', 1, UPDATE),
      touch: connection.script('armatureTouchSession', 4, TOUCH),
    };
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const hash = await this.connection.ready.hgetall(this.key(id));
    if (!hash.record) return undefined;
    const record = JSON.parse(hash.record) as SessionRecord;
    return { ...record, initialized: hash.initialized === '1', ...(hash.logLevel ? { logLevel: hash.logLevel } : {}) };
  }

  async open(id: string, record: SessionRecord, ttlMs: number, caps: SessionCaps): Promise<keyof SessionCaps | undefined> {
    const client = record.client ?? '';
    const refused = await this.scripts.open(
      this.key(id),
      this.liveKey,
      this.clientKey(client),
      this.allKey,
      Date.now(),
      ttlMs,
      caps.maxSessions,
      caps.maxSessionsPerClient,
      client,
      id,
      ...this.fields(record),
    );
    return typeof refused === 'string' ? (refused as keyof SessionCaps) : undefined;
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

  /** The hash fields of a record (its client too, for the caps' counts). */
  private fields(record: SessionRecord): string[] {
    const { initialized, logLevel, ...rest } = record;
    return [
      'record',
      JSON.stringify(rest),
      'initialized',
      initialized ? '1' : '0',
      ...(logLevel ? ['logLevel', logLevel] : []),
      ...(record.client !== undefined ? ['client', record.client] : []),
    ];
  }

  async update(id: string, patch: Partial<Pick<SessionRecord, 'initialized' | 'logLevel'>>): Promise<void> {
    const fields: string[] = [];
    if (patch.initialized !== undefined) fields.push('initialized', patch.initialized ? '1' : '0');
    if (patch.logLevel !== undefined) fields.push('logLevel', patch.logLevel);
    if (fields.length > 0) await this.scripts.update(this.key(id), ...fields);
  }

  async touch(id: string, ttlMs: number): Promise<Pick<SessionRecord, 'logLevel'> | undefined> {
    const logLevel = await this.scripts.touch(this.key(id), this.subsKey(id), this.liveKey, this.clientKey(''), Date.now(), ttlMs, id);
    if (typeof logLevel !== 'string') return undefined;
    return logLevel === '' ? {} : { logLevel };
  }

  async delete(id: string): Promise<void> {
    const redis = this.connection.ready;
    const uris = await redis.smembers(this.subsKey(id));
    const client = await redis.hget(this.key(id), 'client');
    const batch = redis.multi().del(this.key(id), this.subsKey(id)).srem(this.allKey, id).zrem(this.liveKey, id);
    if (client !== null) batch.zrem(this.clientKey(client), id);
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

  /**
   * The members of index `set` whose session still exists; the others are removed from it. A chunk
   * at a time: lapsed sessions stay in the index until it is next read, so between two change
   * notifications it can grow past 100,000 ids, and one SREM of them all overflowed ioredis's stack.
   */
  private async live(set: string): Promise<string[]> {
    const redis = await this.connection.settled(this.settleMs);
    // SSCAN may give an id twice.
    const live = new Set<string>();
    for await (const ids of setChunks(redis, set)) {
      const exists = await Promise.all(ids.map((id) => redis.exists(this.key(id))));
      const gone = ids.filter((_, i) => exists[i] === 0);
      if (gone.length > 0) await redis.srem(set, gone);
      for (const [i, id] of ids.entries()) if (exists[i] === 1) live.add(id);
    }
    return Array.from(live);
  }

  private get allKey(): string {
    return `${this.prefix}sessions`;
  }

  /** Live sessions by expiry, for the total cap. */
  private get liveKey(): string {
    return `${this.prefix}sessions-live`;
  }

  /** A client's live sessions by expiry, for the per-client cap (`clientKey('')` is the prefix). */
  private clientKey(client: string): string {
    return `${this.prefix}sessions-client:${client}`;
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
