import { ArmatureBuildError, type BuildProblem, DEFAULT_EVENT_STORE_LIMITS, type SharedState } from '@armature/core';
import { Connection, type RedisTarget } from './connection.js';
import { REDIS_BUILD_MESSAGES as M } from './messages.js';
import { RedisBus } from './redis-bus.js';
import { RedisCatalogEdits } from './redis-catalog-edits.js';
import { type RedisEventLimits, RedisEventStore } from './redis-event-store.js';
import { RedisInstanceLeases } from './redis-instance-leases.js';
import { redisKeys } from './redis-keys.js';
import { RedisRateLimitStore } from './redis-rate-limit-store.js';
import { RedisSessionRecords } from './redis-session-records.js';
import { RedisStreamLeases } from './redis-stream-leases.js';
import { RedisTaskStore } from './redis-task-store.js';

/** A node of a Redis Cluster: its address, or a `redis://` / `rediss://` URL (user and password in it). */
export type RedisClusterNode = { host: string; port: number } | string;

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

/** Where `redisState` connects, or every problem of its options at once (ARM194, ARM195). */
function targetOf(options: RedisStateOptions, prefix: string): RedisTarget {
  const problems: BuildProblem[] = [];
  const problem = (definition: (typeof M)[keyof typeof M], message: string) =>
    problems.push({ where: 'redisState', code: definition.code, message, fix: definition.fix() });
  if (/[{}]/.test(prefix)) problem(M.badKeyPrefix, M.badKeyPrefix.message(prefix));
  const { cluster } = options;
  let target: RedisTarget = { url: options.url ?? 'redis://127.0.0.1:6379' };
  if (cluster !== undefined) {
    if (options.url !== undefined) problem(M.badServer, M.badServer.message('both url and cluster are given'));
    if (!Array.isArray(cluster) || cluster.length === 0)
      problem(M.badServer, M.badServer.message('cluster must list one or more nodes of the Redis Cluster'));
    else {
      const nodes = cluster.map(nodeOf);
      nodes.forEach((node, i) => {
        if (!node)
          problem(
            M.badServer,
            M.badServer.message(`cluster[${i}] is ${shownNode(cluster[i])}, not { host, port } nor a redis:// or rediss:// URL`),
          );
      });
      const first = cluster.find((node): node is string => typeof node === 'string');
      if (nodes.every(Boolean))
        target = { nodes: nodes as { host: string; port: number }[], nodeOptions: first ? credentialsOf(new URL(first)) : {} };
    }
  }
  if (problems.length > 0) throw new ArmatureBuildError(problems, 'Armature cannot use this Redis', 'in redisState({...})');
  return target;
}

/** A cluster node's host and port, or undefined when it is neither { host, port } nor a Redis URL. */
function nodeOf(node: unknown): { host: string; port: number } | undefined {
  if (typeof node === 'string') {
    const url = URL.canParse(node) ? new URL(node) : undefined;
    if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || !url.hostname) return undefined;
    return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 6379) };
  }
  if (typeof node !== 'object' || node === null) return undefined;
  const { host, port } = node as { host?: unknown; port?: unknown };
  if (typeof host !== 'string' || host === '' || !Number.isInteger(port) || (port as number) < 1 || (port as number) > 65_535)
    return undefined;
  return { host, port: port as number };
}

/** A refused node for the message: as JSON, cut short, without the password a URL may hold. */
function shownNode(node: unknown): string {
  if (typeof node === 'string') {
    const hidden = node.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
    return JSON.stringify(hidden.length > 100 ? `${hidden.slice(0, 100)}...` : hidden);
  }
  try {
    return JSON.stringify(node) ?? String(node);
  } catch {
    return String(node);
  }
}

/** The user, password and TLS a node URL names. */
function credentialsOf(url: URL): Extract<RedisTarget, { nodes: unknown }>['nodeOptions'] {
  return {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
