import { type TaskRecord, type TaskStore, type TaskUpdate, TaskWatchers } from '@armature/core';
import type { Connection } from './connection.js';
import { RedisTaskQueue } from './redis-task-queue.js';
import { RedisTaskQuota } from './redis-task-quota.js';

// Changes a task that exists and is not terminal, in one step: the fields given (field, value
// pairs; the outcome stays JSON text Lua never decodes), `lastUpdatedAt` unless the update only
// renews the lease, and a notice to every instance. A new `ttlMs` moves the hash's expiry to
// createdAt + ttlMs. ARGV: renewal ('1' or '0'), now, the questions' change, the channel, the task's
// id, then the fields. The questions' change as JSON whose values are JSON texts (kept as
// they are): `ask` adds `q:<key>` fields; `answer` moves an outstanding `q:<key>` to `a:<key>`
// (other keys are ignored); `settle` removes both; once no `q:` field is left, an input_required
// task is working again. Returns the task's fields, or nil.
const UPDATE = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'completed' or status == 'failed' or status == 'cancelled' then return nil end
if #ARGV > 5 then redis.call('HSET', KEYS[1], unpack(ARGV, 6)) end
for i = 6, #ARGV, 2 do
  if ARGV[i] == 'ttlMs' then
    local createdAt = cjson.decode(redis.call('HGET', KEYS[1], 'fixed')).createdAt
    redis.call('PEXPIREAT', KEYS[1], string.format('%d', createdAt + tonumber(ARGV[i + 1])))
  end
end
if ARGV[3] ~= '' then
  local questions = cjson.decode(ARGV[3])
  for _, pair in ipairs(questions.ask) do redis.call('HSET', KEYS[1], 'q:' .. pair[1], pair[2]) end
  for _, pair in ipairs(questions.answer) do
    if redis.call('HDEL', KEYS[1], 'q:' .. pair[1]) == 1 then redis.call('HSET', KEYS[1], 'a:' .. pair[1], pair[2]) end
  end
  for _, key in ipairs(questions.settle) do redis.call('HDEL', KEYS[1], 'q:' .. key, 'a:' .. key) end
  local open = false
  for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
    if string.sub(field, 1, 2) == 'q:' then open = true break end
  end
  if not open and redis.call('HGET', KEYS[1], 'status') == 'input_required' then redis.call('HSET', KEYS[1], 'status', 'working') end
end
if ARGV[1] == '0' then
  redis.call('HSET', KEYS[1], 'lastUpdatedAt', ARGV[2])
  redis.call('PUBLISH', ARGV[4], ARGV[5])
end
return redis.call('HGETALL', KEYS[1])
`;

// Stores a new task expiring with its ttl and indexes it under its owner; the index lives as long
// as the owner's longest-lived task. ARGV: expiresAt, createdAt, taskId, then the hash's fields.
const CREATE = `
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
if redis.call('PEXPIRETIME', KEYS[2]) < tonumber(ARGV[1]) then redis.call('PEXPIREAT', KEYS[2], ARGV[1]) end
return 1
`;

/** What never changes in a task, kept as one JSON field. */
type Fixed = Pick<TaskRecord, 'taskId' | 'owner' | 'caller' | 'tool' | 'createdAt' | 'ttlMs' | 'pollIntervalMs' | 'extension' | 'retries'>;

/** The `q:<key>` (questions) or `a:<key>` (answers) fields of a task's hash, by key; undefined when none. */
function prefixed(hash: Record<string, string>, prefix: 'q:' | 'a:'): Record<string, unknown> | undefined {
  const entries = Object.entries(hash)
    .filter(([field]) => field.startsWith(prefix))
    .map(([field, value]) => [field.slice(prefix.length), JSON.parse(value) as unknown] as const);
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The questions' change of an update, for the script (see UPDATE); '' when there is none. */
function questionsOf(update: TaskUpdate): string {
  if (!update.ask && !update.answer && !update.settle) return '';
  const pairs = (values: Readonly<Record<string, unknown>> = {}) =>
    Object.entries(values).map(([key, value]) => [key, JSON.stringify(value)]);
  // Lua's cjson reads an empty array as an empty table either way.
  return JSON.stringify({ ask: pairs(update.ask), answer: pairs(update.answer), settle: update.settle ?? [] });
}

function decode(hash: Record<string, string>): TaskRecord | undefined {
  if (!hash.fixed || !hash.status) return undefined;
  const fixed = JSON.parse(hash.fixed) as Fixed;
  const inputRequests = prefixed(hash, 'q:');
  const inputResponses = prefixed(hash, 'a:');
  return {
    ...(inputRequests ? { inputRequests } : {}),
    ...(inputResponses ? { inputResponses } : {}),
    ...fixed,
    // Cut since creation (a cancelled task is kept a short while only).
    ...(hash.ttlMs !== undefined ? { ttlMs: Number(hash.ttlMs) } : {}),
    status: hash.status as TaskRecord['status'],
    lastUpdatedAt: Number(hash.lastUpdatedAt),
    leaseExpiresAt: Number(hash.leaseExpiresAt),
    ...(hash.statusMessage !== undefined ? { statusMessage: hash.statusMessage } : {}),
    ...(hash.attempt !== undefined ? { attempt: Number(hash.attempt) } : {}),
    ...(hash.outcome !== undefined ? { outcome: JSON.parse(hash.outcome) as TaskRecord['outcome'] } : {}),
  };
}

function fieldsOf(update: TaskUpdate): string[] {
  const fields: string[] = [];
  if (update.status !== undefined) fields.push('status', update.status);
  if (update.statusMessage !== undefined) fields.push('statusMessage', update.statusMessage);
  if (update.outcome !== undefined) fields.push('outcome', JSON.stringify(update.outcome));
  if (update.leaseExpiresAt !== undefined) fields.push('leaseExpiresAt', String(update.leaseExpiresAt));
  if (update.ttlMs !== undefined) fields.push('ttlMs', String(update.ttlMs));
  if (update.attempt !== undefined) fields.push('attempt', String(update.attempt));
  return fields;
}

/**
 * Tasks on Redis, so that any instance answers `tasks/get`, `tasks/result`, `tasks/list` and
 * `tasks/cancel` for a task another instance runs: one hash per task expiring with its ttl, an
 * index of each owner's tasks by creation time, and a channel telling every instance which task
 * changed (how a cancel reaches the instance running the handler). The rules (owners, leases,
 * ttl bounds) are the task service's, as with the in-memory store. The counts behind the task
 * limits live beside the tasks, so the caps hold across instances.
 */
export class RedisTaskStore implements TaskStore {
  readonly quota: RedisTaskQuota;
  readonly queue: RedisTaskQueue;
  private readonly watchers = new TaskWatchers();
  private subscribed?: Promise<void>;

  constructor(
    private readonly commands: Connection,
    private readonly subscriber: Connection,
    /** Prefix of every key (hash-tagged: a task, its owner's index, the counts and the queue share one cluster slot). */
    private readonly prefix: string,
    /** Prefix of the channel (untagged, as the bus names its channels). */
    private readonly channels: string,
    private readonly openTimeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.quota = new RedisTaskQuota(commands, prefix);
    this.queue = new RedisTaskQueue(commands, prefix);
    subscriber.client.on('message', (channel: string, taskId: string) => {
      if (channel !== this.channel || !this.watchers.has(taskId)) return;
      this.get(taskId).then(
        (record) => {
          if (record) this.watchers.tell(record);
        },
        () => undefined,
      );
    });
  }

  async create(record: TaskRecord): Promise<void> {
    const { taskId, owner, caller, tool, createdAt, ttlMs, pollIntervalMs, extension, retries } = record;
    const fixed: Fixed = {
      taskId,
      owner,
      ...(caller ? { caller } : {}),
      tool,
      createdAt,
      ttlMs,
      pollIntervalMs,
      ...(extension ? { extension } : {}),
      ...(retries ? { retries } : {}),
    };
    const fields = ['fixed', JSON.stringify(fixed), 'lastUpdatedAt', String(record.lastUpdatedAt), ...fieldsOf(record)];
    await this.commands.ready.eval(
      CREATE,
      2,
      this.key(taskId),
      this.ownerKey(owner),
      String(createdAt + ttlMs),
      String(createdAt),
      taskId,
      ...fields,
    );
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return decode(await this.commands.ready.hgetall(this.key(taskId)));
  }

  async list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string } | undefined> {
    let offset = 0;
    if (cursor !== undefined) {
      const decoded = /^o(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (!decoded) return undefined;
      offset = Number(decoded[1]);
    }
    const redis = this.commands.ready;
    const ids = await redis.zrange(this.ownerKey(owner), String(offset), String(offset + limit - 1));
    const tasks: TaskRecord[] = [];
    const gone: string[] = [];
    for (const id of ids) {
      const record = await this.get(id);
      if (record) tasks.push(record);
      else gone.push(id);
    }
    // Tasks past their ttl leave the index when a page meets them.
    if (gone.length > 0) await redis.zrem(this.ownerKey(owner), ...gone);
    const total = await redis.zcard(this.ownerKey(owner));
    const next = offset + ids.length - gone.length;
    return next < total ? { tasks, nextCursor: Buffer.from(`o${next}`).toString('base64url') } : { tasks };
  }

  async update(taskId: string, update: TaskUpdate): Promise<TaskRecord | undefined> {
    const fields = fieldsOf(update);
    const questions = questionsOf(update);
    if (fields.length === 0 && questions === '') return this.get(taskId);
    const renewal = questions === '' && fields.length === 2 && fields[0] === 'leaseExpiresAt';
    const reply = (await this.commands.ready.eval(
      UPDATE,
      1,
      this.key(taskId),
      renewal ? '1' : '0',
      String(this.now()),
      questions,
      this.channel,
      taskId,
      ...fields,
    )) as string[] | null;
    if (!reply) return undefined;
    const hash: Record<string, string> = {};
    for (let i = 0; i + 1 < reply.length; i += 2) hash[reply[i] as string] = reply[i + 1] as string;
    return decode(hash);
  }

  watch(taskId: string, listener: (record: TaskRecord) => void): () => void {
    const stop = this.watchers.add(taskId, listener);
    this.subscribed ??= this.subscribe();
    return stop;
  }

  /** One channel for all tasks: a notice names the task; each instance reads it back if it watches it. */
  private async subscribe(): Promise<void> {
    try {
      await this.subscriber.open(this.openTimeoutMs);
      // ioredis subscribes again by itself after a reconnection.
      await this.subscriber.ready.subscribe(this.channel);
    } catch (error) {
      this.subscribed = undefined;
      process.stderr.write(`[armature] redis task notices are not received yet: ${(error as Error).message}\n`);
    }
  }

  private key(taskId: string): string {
    return `${this.prefix}task:${taskId}`;
  }

  private ownerKey(owner: string): string {
    return `${this.prefix}tasks:owner:${owner}`;
  }

  private get channel(): string {
    return `${this.channels}bus:tasks`;
  }
}
