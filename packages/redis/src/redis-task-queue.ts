import type { HeldJob, TaskJob, TaskQueue } from '@armature/core';
import type { Connection } from './connection.js';

// The task retry queue is a Redis Streams consumer group: one stream of jobs, one group of every
// instance (each a consumer). Redis keeps, per job, which consumer holds it, how long since it
// last vouched for it (idle time) and how many times it was delivered (the attempt): XAUTOCLAIM
// hands the jobs idle past the lease to another consumer, counting one delivery more. A job
// leaves the stream when its task ends.

const GROUP = 'runners';

// Queues a job and delivers it at once to the instance that queued it (its first run starts
// there): nothing else reads new jobs (`>`), so the one read is the one just added.
// KEYS: stream. ARGV: consumer, job (JSON).
const HOLD = `
redis.pcall('XGROUP', 'CREATE', KEYS[1], '${GROUP}', '$', 'MKSTREAM')
local id = redis.call('XADD', KEYS[1], '*', 'job', ARGV[2])
local read = redis.call('XREADGROUP', 'GROUP', '${GROUP}', ARGV[1], 'COUNT', 1, 'STREAMS', KEYS[1], '>')
if read[1][2][1][1] ~= id then return redis.error_reply('the task queue delivered another job than the one just queued') end
return id
`;

// The consumer still runs these jobs: each it still holds is claimed again by itself (JUSTID: its
// idle time starts again, its delivery count stays); returns those another consumer took or that ended.
// KEYS: stream. ARGV: consumer, tickets...
const RENEW = `
local lost = {}
for i = 2, #ARGV do
  local pending = redis.call('XPENDING', KEYS[1], '${GROUP}', ARGV[i], ARGV[i], 1)
  if #pending == 1 and pending[1][2] == ARGV[1] then
    redis.call('XCLAIM', KEYS[1], '${GROUP}', ARGV[1], 0, ARGV[i], 'JUSTID')
  else
    table.insert(lost, ARGV[i])
  end
end
return lost
`;

// Takes over the jobs idle past the lease (their instance stopped), one delivery more each, and
// returns them with their delivery count (the attempt). Consumers gone for `forgetMs` with nothing
// pending are forgotten, so instances that come and go leave nothing behind.
// KEYS: stream. ARGV: consumer, minIdleMs, count, forgetMs.
const CLAIM = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
local claimed = redis.call('XAUTOCLAIM', KEYS[1], '${GROUP}', ARGV[1], ARGV[2], '0-0', 'COUNT', ARGV[3])
local jobs = {}
for _, entry in ipairs(claimed[2]) do
  local pending = redis.call('XPENDING', KEYS[1], '${GROUP}', entry[1], entry[1], 1)
  table.insert(jobs, { entry[1], entry[2][2], pending[1][4] })
end
for _, consumer in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], '${GROUP}')) do
  local info = {}
  for i = 1, #consumer, 2 do info[consumer[i]] = consumer[i + 1] end
  if info['pending'] == 0 and info['idle'] > tonumber(ARGV[4]) then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], '${GROUP}', info['name'])
  end
end
return jobs
`;

/** A consumer that vouched for nothing this long, and holds nothing, is forgotten. */
const FORGET_CONSUMER_MS = 60 * 60_000;

/**
 * The task retry queue on Redis Streams (a consumer group of every instance): at-least-once runs
 * of retriable tasks, across the instances sharing the Redis. No dependency beyond ioredis.
 */
export class RedisTaskQueue implements TaskQueue {
  constructor(
    private readonly commands: Connection,
    private readonly prefix: string,
  ) {}

  async hold(consumer: string, job: TaskJob): Promise<string> {
    return (await this.commands.ready.eval(HOLD, 1, this.key, consumer, JSON.stringify(job))) as string;
  }

  async renew(consumer: string, tickets: readonly string[]): Promise<string[]> {
    if (tickets.length === 0) return [];
    return (await this.commands.ready.eval(RENEW, 1, this.key, consumer, ...tickets)) as string[];
  }

  async done(ticket: string): Promise<void> {
    await this.commands.ready.multi().xack(this.key, GROUP, ticket).xdel(this.key, ticket).exec();
  }

  async claim(consumer: string, minIdleMs: number, count: number): Promise<HeldJob[]> {
    const rows = (await this.commands.ready.eval(
      CLAIM,
      1,
      this.key,
      consumer,
      String(minIdleMs),
      String(count),
      String(FORGET_CONSUMER_MS),
    )) as [string, string, number][];
    return rows.map(([ticket, job, delivered]) => ({ ticket, job: JSON.parse(job) as TaskJob, attempt: Number(delivered) }));
  }

  private get key(): string {
    return `${this.prefix}tasks:jobs`;
  }
}
