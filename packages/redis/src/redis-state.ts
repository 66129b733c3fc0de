import { DEFAULT_EVENT_STORE_LIMITS, type SharedState } from '@armature/core';
import { Connection } from './connection.js';
import { RedisBus } from './redis-bus.js';
import { RedisCatalogEdits } from './redis-catalog-edits.js';
import { type RedisEventLimits, RedisEventStore } from './redis-event-store.js';
import { RedisInstanceLeases } from './redis-instance-leases.js';
import { redisKeys } from './redis-keys.js';
import { RedisRateLimitStore } from './redis-rate-limit-store.js';
import { RedisSessionRecords } from './redis-session-records.js';
import { RedisStreamLeases } from './redis-stream-leases.js';
import { type RedisClusterNode, targetOf } from './redis-target.js';
import { RedisTaskStore } from './redis-task-store.js';

export interface RedisStateOptions {
  /** The Redis server, e.g. `redis://127.0.0.1:6379` or `rediss://user:pass@host:6380/0`. Default `redis://127.0.0.1:6379`. */
  url?: string;
  /**
   * A Redis Cluster instead of one Redis: one or more of its nodes (ioredis finds the others). The
   * user, password and TLS (`rediss://`) of the first node given as a URL apply to every node.
   * Not together with `url`.
   */
  cluster?: readonly RedisClusterNode[];
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
   * notification, a relay between instances or a catalogue edit waits for Redis to (re)connect before it is given
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
 * while it is away; the connections come back by themselves. On one Redis (`url`) or a Redis
 * Cluster (`cluster`: the keys each atomic step touches share a hash tag, see redis-keys.ts).
 *
 * @example
 * ```ts
 * const app = createMcpApp(Server, {
 *   state: redisState({ url: process.env.REDIS_URL }),
 *   requestStateKey: process.env.MCP_REQUEST_STATE_KEY,
 * });
 * // On a Redis Cluster: some of its nodes.
 * redisState({ cluster: [{ host: 'redis-1', port: 6379 }, { host: 'redis-2', port: 6379 }] });
 * ```
 */
export function redisState(options: RedisStateOptions = {}): SharedState {
  const prefix = options.keyPrefix ?? 'armature:';
  const target = targetOf(options, prefix);
  const keys = redisKeys(prefix);
  const timeout = options.connectTimeoutMs ?? 5_000;
  // Commands issued in the same tick (a call's record touch, stream claim and priming event; the
  // calls of concurrent requests) leave in one write and are answered in one read.
  const commands = new Connection(target, 'commands', { autoPipelining: true });
  const subscriber = new Connection(target, 'subscriber');
  const limits: RedisEventLimits = {
    maxEventsPerStream: options.maxEventsPerStream ?? DEFAULT_EVENT_STORE_LIMITS.maxEvents,
    maxBytesPerStream: options.maxBytesPerStream ?? DEFAULT_EVENT_STORE_LIMITS.maxBytes,
    ttlMs: options.eventTtlMs ?? 30 * 60_000,
  };
  const bus = new RedisBus(commands, subscriber, keys.channels, timeout);
  const opened = commands.open(timeout);
  opened.catch(() => undefined);
  return {
    name: 'redis',
    shared: true,
    sessions: new RedisSessionRecords(commands, keys.sessions, timeout),
    events: new RedisEventStore(commands, keys.events, keys.channels, limits, () => bus.settled()),
    instances: new RedisInstanceLeases(commands, keys.plain),
    tasks: new RedisTaskStore(commands, subscriber, keys.tasks, keys.channels, timeout),
    catalog: new RedisCatalogEdits(commands, keys.plain, timeout),
    listens: new RedisStreamLeases(commands, keys.plain),
    rateLimits: new RedisRateLimitStore(commands, keys.plain),
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
