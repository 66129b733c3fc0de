import type { AdmissionLimit, KeepOutcome, TaskLimits, TaskQuota, TaskShare } from '@armature/core';
import type { Connection } from './connection.js';

// Each count is one Lua script, so that instances sharing the Redis never admit past a cap between
// a read and a write. Keys: the owner's open tasks (zset by expiry) and their result bytes (hash),
// the owner's running tasks and everyone's (zsets by lease expiry). The scripts that count (admit,
// keep) first forget what has run out at ARGV[1] (now): an expired task frees its share the moment
// its ttl passes.

/**
 * What the scripts share: `prune` forgets expired open tasks (and their bytes) and lapsed running
 * shares (KEYS: open, bytes[, runningOwner, runningAll]); `outlive` keeps a key as long as its
 * longest-lived entry.
 */
const PRELUDE = `
local function prune(now)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
  -- One HDEL each: unpack() of a long list would overflow Lua's stack.
  for _, taskId in ipairs(expired) do redis.call('HDEL', KEYS[2], taskId) end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if KEYS[3] then
    redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  end
end
local function outlive(key, at)
  if redis.call('PEXPIRETIME', key) < tonumber(at) then redis.call('PEXPIREAT', key, at) end
end
`;

/** ARGV: now, taskId, expiresAt, leaseExpiresAt, maxOpenTasksPerOwner, maxRunningTasksPerOwner, maxRunningTasks. */
const ADMIT = `${PRELUDE}
prune(ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then return 'maxOpenTasksPerOwner' end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return 'maxRunningTasksPerOwner' end
if redis.call('ZCARD', KEYS[4]) >= tonumber(ARGV[7]) then return 'maxRunningTasks' end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[2])
outlive(KEYS[1], ARGV[3])
outlive(KEYS[3], ARGV[4])
return false
`;

/** KEYS: runningOwner, runningAll. ARGV: taskId, leaseExpiresAt. Only a share still held is renewed. */
const RENEW = `${PRELUDE}
if redis.call('ZADD', KEYS[1], 'XX', 'CH', ARGV[2], ARGV[1]) == 1 then outlive(KEYS[1], ARGV[2]) end
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[1])
return 1
`;

/** ARGV: now, taskId, bytes, maxResultBytesPerOwner. Returns { 1 } kept, { 0, used } over, { 2 } gone. */
const KEEP = `${PRELUDE}
prune(ARGV[1])
local expiresAt = redis.call('ZSCORE', KEYS[1], ARGV[2])
if not expiresAt then return { 2 } end
local used = 0
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  if all[i] ~= ARGV[2] then used = used + tonumber(all[i + 1]) end
end
if used + tonumber(ARGV[3]) > tonumber(ARGV[4]) then return { 0, used } end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
outlive(KEYS[2], expiresAt)
return { 1 }
`;

/** KEYS: open, bytes, runningOwner, runningAll. ARGV: taskId. */
const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
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
      4,
      ...this.keys(share.owner),
      String(now),
      share.taskId,
      String(share.expiresAt),
      String(share.leaseExpiresAt),
      String(limits.maxOpenTasksPerOwner),
      String(limits.maxRunningTasksPerOwner),
      String(limits.maxRunningTasks),
    )) as AdmissionLimit | null;
    return refused ?? undefined;
  }

  async renew(owner: string, taskId: string, leaseExpiresAt: number): Promise<void> {
    await this.commands.ready.eval(RENEW, 2, this.runningKey(owner), this.runningAllKey, taskId, String(leaseExpiresAt));
  }

  async stopped(owner: string, taskId: string): Promise<void> {
    const redis = this.commands.ready;
    await redis.multi().zrem(this.runningKey(owner), taskId).zrem(this.runningAllKey, taskId).exec();
  }

  async keep(owner: string, taskId: string, bytes: number, limits: TaskLimits, now: number): Promise<KeepOutcome> {
    const [status, used] = (await this.commands.ready.eval(
      KEEP,
      2,
      this.openKey(owner),
      this.bytesKey(owner),
      String(now),
      taskId,
      String(bytes),
      String(limits.maxResultBytesPerOwner),
    )) as [number, number?];
    if (status === 1) return { kept: true };
    if (status === 2) return { kept: false, gone: true };
    return { kept: false, used: Number(used) };
  }

  async release(owner: string, taskId: string): Promise<void> {
    await this.commands.ready.eval(RELEASE, 4, ...this.keys(owner), taskId);
  }

  private keys(owner: string): [string, string, string, string] {
    return [this.openKey(owner), this.bytesKey(owner), this.runningKey(owner), this.runningAllKey];
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
