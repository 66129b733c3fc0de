import { DEFAULT_EVENT_STORE_LIMITS, type SharedState } from '@armature/core';
import { Connection } from './connection.js';
import { RedisBus } from './redis-bus.js';
import { RedisCatalogEdits } from './redis-catalog-edits.js';
import { type RedisEventLimits, RedisEventStore } from './redis-event-store.js';
import { RedisInstanceLeases } from './redis-instance-leases.js';
import { RedisRateLimitStore } from './redis-rate-limit-store.js';
import { RedisSessionRecords } from './redis-session-records.js';
import { RedisStreamLeases } from './redis-stream-leases.js';
import { RedisTaskStore } from './redis-task-store.js';

export interface RedisStateOptions {
  /** The Redis server, e.g. `redis://127.0.0.1:6379` or `rediss://user:pass@host:6380/0`. Default `redis://127.0.0.1:6379`. */
  url?: string;
  /** Prefix of every key and channel, so several apps can share one Redis. Default `armature:`. */
  keyPrefix?: string;
  /** Most events kept per SSE stream; the oldest are dropped first. Default 10,000. */
  maxEventsPerStream?: number;
  /** Most bytes kept per SSE stream; the oldest events are dropped first. Default 32 MiB. */
  maxBytesPerStream?: number;
  /** Events of a stream nobody wrote to for this long are dropped. Default 30 minutes. */
  eventTtlMs?: number;
  /**
   * How long start-up waits for Redis before `listenHttp` fails naming it, and how long a change
   * notification or a relay between instances waits for Redis to (re)connect before it is given
   * up (requests are not made to wait: they are answered 503 at once). Default 5,000 ms.
   */
  connectTimeoutMs?: number;
}

/**
 * A state several instances of one app share on Redis: 2025-11-25 sessions (any instance serves
 * any session), their resumable events, traffic between the instance holding a client's stream and
 * the one running its request, change notifications, and tasks (any instance answers for a task
 * another runs; a cancel reaches the handler wherever it runs), and rate-limit counts (a limit holds
 * in total, not per instance). Requests fail fast with 503 naming Redis
 * while it is away; the connections come back by themselves.
 *
 * @example
 * ```ts
 * const app = createMcpApp(Server, {
 *   state: redisState({ url: process.env.REDIS_URL }),
 *   requestStateKey: process.env.MCP_REQUEST_STATE_KEY,
 * });
 * ```
 */
export function redisState(options: RedisStateOptions = {}): SharedState {
  const url = options.url ?? 'redis://127.0.0.1:6379';
  const prefix = options.keyPrefix ?? 'armature:';
  const timeout = options.connectTimeoutMs ?? 5_000;
  // Commands issued in the same tick (a call's record touch, stream claim and priming event; the
  // calls of concurrent requests) leave in one write and are answered in one read.
  const commands = new Connection(url, 'commands', { enableAutoPipelining: true });
  const subscriber = new Connection(url, 'subscriber');
  const limits: RedisEventLimits = {
    maxEventsPerStream: options.maxEventsPerStream ?? DEFAULT_EVENT_STORE_LIMITS.maxEvents,
    maxBytesPerStream: options.maxBytesPerStream ?? DEFAULT_EVENT_STORE_LIMITS.maxBytes,
    ttlMs: options.eventTtlMs ?? 30 * 60_000,
  };
  const bus = new RedisBus(commands, subscriber, prefix, timeout);
  const opened = commands.open(timeout);
  opened.catch(() => undefined);
  return {
    name: 'redis',
    shared: true,
    sessions: new RedisSessionRecords(commands, prefix, timeout),
    events: new RedisEventStore(commands, prefix, limits, () => bus.settled()),
    instances: new RedisInstanceLeases(commands, prefix),
    tasks: new RedisTaskStore(commands, subscriber, prefix, timeout),
    catalog: new RedisCatalogEdits(commands, prefix),
    listens: new RedisStreamLeases(commands, prefix),
    rateLimits: new RedisRateLimitStore(commands, prefix),
    bus: {
      publish: (topic, payload) => bus.publish(topic, payload),
      // The app subscribes when it starts: that is where it waits for both connections.
      subscribe: async (topic, handler) => {
        await opened;
        return bus.subscribe(topic, handler);
      },
    },
    // Both connections: one carries the commands, the other the notifications between instances.
    ping: async () => {
      void subscriber.ready; // throws, naming Redis, while that connection is down
      await commands.ready.ping();
    },
    close: async () => {
      await Promise.all([commands.close(), subscriber.close()]);
    },
  };
}
