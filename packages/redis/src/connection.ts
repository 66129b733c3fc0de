import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';

/** Where the connections go: one Redis (a URL), or a Redis Cluster (some of its nodes; ioredis finds the rest). */
export type RedisTarget =
  | { readonly url: string }
  | {
      readonly nodes: readonly { readonly host: string; readonly port: number }[];
      /** What every node connection uses (user, password, TLS). */
      readonly nodeOptions: Pick<RedisOptions, 'username' | 'password' | 'tls'>;
    };

/** The target for messages: a URL without its password, or the cluster's nodes as given. */
function shown(target: RedisTarget): string {
  if ('nodes' in target) return `redis cluster at ${target.nodes.map((node) => `${node.host}:${node.port}`).join(',')}`;
  try {
    const url = new URL(target.url);
    if (url.password) url.password = '***';
    return `redis at ${url.toString()}`;
  } catch {
    return 'redis at the configured URL';
  }
}

/** One ioredis client to `target`: a `Redis`, or a `Cluster` whose node connections take the same policy. */
function clientFor(target: RedisTarget, role: string, autoPipelining: boolean): Redis | Cluster {
  const policy = {
    maxRetriesPerRequest: 0,
    connectTimeout: 5_000,
    connectionName: `armature-${role}`,
  } satisfies RedisOptions;
  const retry = (times: number) => Math.min(times * 100, 1_000);
  if ('url' in target) {
    return new Redis(target.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      enableAutoPipelining: autoPipelining,
      retryStrategy: retry,
      ...policy,
    });
  }
  const options: ClusterOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: autoPipelining,
    clusterRetryStrategy: retry,
    // A busy machine may answer CLUSTER SLOTS slower than ioredis's 1 s default.
    slotsRefreshTimeout: 5_000,
    redisOptions: { ...policy, ...target.nodeOptions },
  };
  return new Cluster(
    target.nodes.map((node) => ({ host: node.host, port: node.port })),
    options,
  );
}

/**
 * One ioredis connection (to one Redis, or a Redis Cluster) that never queues a command while
 * Redis is away: a command then fails at once with a message naming the server, so a request gets
 * its 503 instead of waiting. It reconnects by itself, and says so once per outage on stderr.
 */
export class Connection {
  readonly client: Redis | Cluster;
  /** The server for messages (`redis at redis://...`, `redis cluster at host:port,...`), no password. */
  readonly shown: string;
  private lastError?: string;
  private reported = false;

  constructor(target: RedisTarget, role: string, options: { autoPipelining?: boolean } = {}) {
    this.shown = shown(target);
    this.client = clientFor(target, role, options.autoPipelining ?? false);
    const failed = (error: Error) => {
      this.lastError = error.message;
      if (this.reported) return;
      this.reported = true;
      process.stderr.write(`[armature] ${this.shown} (${role}) is unreachable: ${error.message}; reconnecting\n`);
    };
    this.client.on('error', failed);
    // A cluster reports the failures of its node connections apart.
    this.client.on('node error', failed);
    this.client.on('ready', () => {
      if (this.reported) process.stderr.write(`[armature] ${this.shown} (${role}) is back\n`);
      this.reported = false;
    });
  }

  /** The wait for the next `ready` or `end`, shared by every `settled` caller while it lasts. */
  private nextReady: Promise<void> | undefined;

  /** Connects, or rejects naming the server once `timeoutMs` passed. */
  async open(timeoutMs: number): Promise<void> {
    if (this.client.status === 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${this.shown} did not answer within ${timeoutMs} ms${this.lastError ? ` (${this.lastError})` : ''}`)),
        timeoutMs,
      );
    });
    try {
      if (this.client.status === 'wait') void this.client.connect().catch(() => undefined);
      await Promise.race([new Promise<void>((resolve) => this.client.once('ready', () => resolve())), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The client, or a fast failure naming the server when it is not connected. */
  get ready(): Redis | Cluster {
    if (this.client.status !== 'ready') {
      throw new Error(`${this.shown} is not connected (${this.client.status}${this.lastError ? `: ${this.lastError}` : ''})`);
    }
    return this.client;
  }

  /**
   * The client once it is connected: at once when it is, else as soon as it (re)connects within
   * `boundMs`; after that (or once the connection was closed) the failure `ready` gives. For the
   * work no request waits on (change notifications, relays between instances), which Redis
   * (re)connecting should delay, not lose.
   */
  async settled(boundMs: number): Promise<Redis | Cluster> {
    const { client } = this;
    if (client.status === 'ready' || client.status === 'end') return this.ready;
    if (client.status === 'wait') void client.connect().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    await Promise.race([this.readyOrEnd(), bound]).finally(() => clearTimeout(timer));
    return this.ready;
  }

  /**
   * Settles at the connection's next `ready` or `end`: one listener pair however many wait (each
   * waiter's own listener went past the emitter's limit of 10 while Redis connected at start).
   */
  private readyOrEnd(): Promise<void> {
    this.nextReady ??= new Promise<void>((resolve) => {
      const done = () => {
        this.client.off('ready', done);
        this.client.off('end', done);
        this.nextReady = undefined;
        resolve();
      };
      this.client.on('ready', done);
      this.client.on('end', done);
    });
    return this.nextReady;
  }

  /**
   * A Lua script run by its SHA (`EVALSHA`, loaded again by itself if Redis lost it): Redis neither
   * receives nor hashes the script's text per call. Fails fast like `ready` while Redis is away.
   */
  script(name: string, numberOfKeys: number, lua: string): (...keysThenArgs: (string | number)[]) => Promise<unknown> {
    this.client.defineCommand(name, { numberOfKeys, lua });
    const run = (this.client as unknown as Record<string, (...keysThenArgs: (string | number)[]) => Promise<unknown>>)[name];
    if (!run) throw new Error(`ioredis did not define the command ${name}`);
    return (...keysThenArgs) => run.apply(this.ready, keysThenArgs);
  }

  async close(): Promise<void> {
    if (this.client.status === 'end') return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}
