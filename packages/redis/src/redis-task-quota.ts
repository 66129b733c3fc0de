import type { AdmissionLimit, KeepOutcome, ResultLimit, TaskLimits, TaskQuota, TaskShare } from '@armature/core';
import type { Connection } from './connection.js';

// Each count is one Lua script, so that instances sharing the Redis never admit past a cap between
// a read and a write. Keys: the owner's open tasks (zset by expiry) and their result bytes (hash),
// the owner's running tasks and everyone's (zsets by lease expiry), and the whole server's open
// tasks (zset by expiry), their result bytes (hash) and its total (a number). The scripts that
// count (admit, keep) first forget what has run out at ARGV[1] (now): an expired task frees its
// share the moment its ttl passes. The whole server's keys never expire as a whole (their entries
// do, one by one), so the total always matches what they hold.

/** The keys of the scripts that take all seven, in this order. */
const KEYS_ALL = 7;

/**
 * What the scripts share: `prune` forgets expired open tasks (and their bytes) and lapsed running
 * shares; `outlive` keeps a key as long as its longest-lived entry.
 */
const PRELUDE = `
local function forgetBytes(taskId)
  local held = redis.call('HGET', KEYS[6], taskId)
  if held then
    redis.call('DECRBY', KEYS[7], held)
    redis.call('HDEL', KEYS[6], taskId)
  end
end
local function prune(now)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
  -- One HDEL each: unpack() of a long list would overflow Lua's stack.
  for _, taskId in ipairs(expired) do redis.call('HDEL', KEYS[2], taskId) end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  for _, taskId in ipairs(redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', now)) do forgetBytes(taskId) end
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
end
local function outlive(key, at)
  if redis.call('PEXPIRETIME', key) < tonumber(at) then redis.call('PEXPIREAT', key, at) end
end
`;

/** ARGV: now, taskId, expiresAt, leaseExpiresAt, maxOpenTasksPerOwner, maxRunningTasksPerOwner, maxRunningTasks, maxOpenTasks. */
const ADMIT = `${PRELUDE}
prune(ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then return 'maxOpenTasksPerOwner' end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 'maxRunningTasksPerOwner' end
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[7]) then return 'maxRunningTasks' end
if redis.call('ZCARD', KEYS[5]) >= tonumber(ARGV[8]) then return 'maxOpenTasks' end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[2])
redis.call('ZADD', KEYS[5], ARGV[3], ARGV[2])
outlive(KEYS[1], ARGV[3])
outlive(KEYS[3], ARGV[4])
return false
`;

/** KEYS: runningOwner, runningAll. ARGV: taskId, leaseExpiresAt. Only a share still held is renewed. */
const RENEW = `
if redis.call('ZADD', KEYS[1], 'XX', 'CH', ARGV[2], ARGV[1]) == 1 then
  if redis.call('PEXPIRETIME', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
end
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[1])
return 1
`;

/** KEYS: runningOwner, runningAll. ARGV: taskId, leaseExpiresAt. A task run again: its running share counts again. */
const RESUMED = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if redis.call('PEXPIRETIME', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIREAT', KEYS[1], ARGV[2]) end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
`;

/**
 * ARGV: now, taskId, bytes, maxResultBytesPerOwner, maxResultBytes. Returns { 1 } kept,
 * { 0, used, limit } over, { 2 } gone.
 */
const KEEP = `${PRELUDE}
prune(ARGV[1])
local expiresAt = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not expiresAt then return { 2 } end
local bytes = tonumber(ARGV[3])
local used = 0
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  if all[i] ~= ARGV[2] then used = used + tonumber(all[i + 1]) end
end
if used + bytes > tonumber(ARGV[4]) then return { 0, used, 'maxResultBytesPerOwner' } end
local mine = tonumber(redis.call('HGET', KEYS[6], ARGV[2]) or '0')
local usedByAll = tonumber(redis.call('GET', KEYS[7]) or '0') - mine
if usedByAll + bytes > tonumber(ARGV[5]) then return { 0, usedByAll, 'maxResultBytes' } end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[6], ARGV[2], ARGV[3])
redis.call('INCRBY', KEYS[7], bytes - mine)
outlive(KEYS[2], expiresAt)
return { 1 }
`;

/** ARGV: taskId. */
const RELEASE = `${PRELUDE}
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
forgetBytes(ARGV[1])
return 1
`;

/**
 * The task limits counted on Redis: the caps hold across every instance sharing it. A running
 * share lives on the task's lease, so the shares of an instance that stopped are freed when its
 * leases lapse.
 */
export class RedisTaskQuota implements TaskQuota {
  constructor(
    private readonly commands: Connection,
    private readonly prefix: string,
  ) {}

  async admit(share: TaskShare, limits: TaskLimits, now: number): Promise<AdmissionLimit | undefined> {
    const refused = (await this.commands.ready.eval(
      ADMIT,
      KEYS_ALL,
      ...this.keys(share.owner),
      String(now),
      share.taskId,
      String(share.expiresAt),
      String(share.leaseExpiresAt),
      String(limits.maxOpenTasksPerOwner),
      String(limits.maxRunningTasksPerOwner),
      String(limits.maxRunningTasks),
      String(limits.maxOpenTasks),
    )) as AdmissionLimit | null;
    return refused ?? undefined;
  }

  async renew(owner: string, taskId: string, leaseExpiresAt: number): Promise<void> {
    await this.commands.ready.eval(RENEW, 2, this.runningKey(owner), this.runningAllKey, taskId, String(leaseExpiresAt));
  }

  async resumed(owner: string, taskId: string, leaseExpiresAt: number): Promise<void> {
    await this.commands.ready.eval(RESUMED, 2, this.runningKey(owner), this.runningAllKey, taskId, String(leaseExpiresAt));
  }

  async stopped(owner: string, taskId: string): Promise<void> {
    const redis = this.commands.ready;
    await redis.multi().zrem(this.runningKey(owner), taskId).zrem(this.runningAllKey, taskId).exec();
  }

  async keep(owner: string, taskId: string, bytes: number, limits: TaskLimits, now: number): Promise<KeepOutcome> {
    const [status, used, limit] = (await this.commands.ready.eval(
      KEEP,
      KEYS_ALL,
      ...this.keys(owner),
      String(now),
      taskId,
      String(bytes),
      String(limits.maxResultBytesPerOwner),
      String(limits.maxResultBytes),
    )) as [number, number?, ResultLimit?];
    if (status === 1) return { kept: true };
    if (status === 2) return { kept: false, gone: true };
    return { kept: false, used: Number(used), limit: limit as ResultLimit };
  }

  async release(owner: string, taskId: string): Promise<void> {
    await this.commands.ready.eval(RELEASE, KEYS_ALL, ...this.keys(owner), taskId);
  }

  private keys(owner: string): string[] {
    const all = `${this.prefix}tasks:all`;
    return [
      this.openKey(owner),
      this.bytesKey(owner),
      this.runningKey(owner),
      this.runningAllKey,
      `${all}:open`,
      `${all}:bytes`,
      `${all}:bytes-total`,
    ];
  }

  private openKey(owner: string): string {
    return `${this.prefix}tasks:open:${owner}`;
  }

  private bytesKey(owner: string): string {
    return `${this.prefix}tasks:bytes:${owner}`;
  }

  private runningKey(owner: string): string {
    return `${this.prefix}tasks:running:${owner}`;
  }

  private get runningAllKey(): string {
    return `${this.prefix}tasks:running`;
  }
}
