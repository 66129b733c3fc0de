import { Redis, type RedisOptions } from 'ioredis';

/**
 * One ioredis connection that never queues a command while Redis is away: a command then fails at
 * once with a message naming the server, so a request gets its 503 instead of waiting. It
 * reconnects by itself, and says so once per outage on stderr.
 */
export class Connection {
  readonly client: Redis;
  private lastError?: string;
  private reported = false;

  constructor(
    readonly url: string,
    role: string,
    options: RedisOptions = {},
  ) {
    this.client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 5_000,
      retryStrategy: (times) => Math.min(times * 100, 1_000),
      connectionName: `armature-${role}`,
      ...options,
    });
    this.client.on('error', (error: Error) => {
      this.lastError = error.message;
      if (this.reported) return;
      this.reported = true;
      process.stderr.write(`[armature] redis at ${this.shownUrl} (${role}) is unreachable: ${error.message}; reconnecting\n`);
    });
    this.client.on('ready', () => {
      if (this.reported) process.stderr.write(`[armature] redis at ${this.shownUrl} (${role}) is back\n`);
      this.reported = false;
    });
  }

  /** The URL without its password, for messages. */
  get shownUrl(): string {
    try {
      const url = new URL(this.url);
      if (url.password) url.password = '***';
      return url.toString();
    } catch {
      return 'the configured URL';
    }
  }

  /** Connects, or rejects naming the server once `timeoutMs` passed. */
  async open(timeoutMs: number): Promise<void> {
    if (this.client.status === 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(`redis at ${this.shownUrl} did not answer within ${timeoutMs} ms${this.lastError ? ` (${this.lastError})` : ''}`),
          ),
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
  get ready(): Redis {
    if (this.client.status !== 'ready') {
      throw new Error(`redis at ${this.shownUrl} is not connected (${this.client.status}${this.lastError ? `: ${this.lastError}` : ''})`);
    }
    return this.client;
  }

  /**
   * The client once it is connected: at once when it is, else as soon as it (re)connects within
   * `boundMs`; after that (or once the connection was closed) the failure `ready` gives. For the
   * work no request waits on (change notifications, relays between instances), which Redis
   * (re)connecting should delay, not lose.
   */
  async settled(boundMs: number): Promise<Redis> {
    const { client } = this;
    if (client.status === 'ready' || client.status === 'end') return this.ready;
    if (client.status === 'wait') void client.connect().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    let onReady: (() => void) | undefined;
    await new Promise<void>((resolve) => {
      onReady = resolve;
      timer = setTimeout(resolve, boundMs);
      client.once('ready', onReady);
      client.once('end', onReady);
    }).finally(() => {
      clearTimeout(timer);
      if (onReady) {
        client.off('ready', onReady);
        client.off('end', onReady);
      }
    });
    return this.ready;
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
