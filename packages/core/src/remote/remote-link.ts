import type { Client, Transport } from '@modelcontextprotocol/client';
import type { RemotePartDefinition } from '../builder/definitions.js';
import type { RemoteHttpTarget, RemoteStdioTarget } from '../builder/remote-server.js';
import { MODERN_REVISION } from '../context/revisions.js';
import { messageOf } from '../messages/call-messages.js';
import { remoteMessages } from '../messages/remote-messages.js';
import type { ServerEvents } from '../observability/server-events.js';
import { clientCodecOf } from '../seams/client-codec.js';
import { onClosed, withOrderedDelivery } from '../seams/sdk-callbacks.js';
import { type ClientSdk, clientSdk, loadedClientSdk } from './client-sdk.js';
import { DirectCall, DirectConnectionError } from './direct-call.js';
import { RemoteRelay } from './remote-relay.js';

/** Thrown when the remote server cannot be reached now; its message is what the caller reads. */
export class RemoteUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RemoteUnavailableError';
  }
}

/** What a link tells its part. */
export interface LinkListener {
  /** The remote answered a (re)connection: fetch its catalogue. */
  connected(client: Client): Promise<void>;
  /** The remote said its list of `kind` changed. */
  changed(kind: 'tools' | 'prompts' | 'resources'): void;
  /** The remote said the resource at `uri` (its own URI) changed. */
  updated(uri: string): void;
}

const FIRST_RETRY_MS = 250;
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_CALL_MS = 600_000;
const DEFAULT_MAX_RECONNECT_MS = 30_000;
/** What the app tells a remote it may ask (what the app's own clients may be asked is decided per call). */
const CLIENT_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

/**
 * The app's connection to one remote server, through the official client: made when the app
 * starts, made again by itself (with a growing delay) when the remote goes away, and at once when
 * a call needs it. A request the remote never received (its process had exited, its HTTP session
 * is gone, nothing listens) is sent again once over the new connection; one it may have received
 * is not.
 */
export class RemoteLink {
  readonly relay: RemoteRelay;
  readonly timeoutMs: number;
  readonly maxCallMs: number;
  private client?: Client;
  /** The direct path of the tool calls, made once the remote is found to speak 2026-07-28 over HTTP. */
  private direct?: DirectCall;
  private connecting?: Promise<Client>;
  private retry?: NodeJS.Timeout;
  private failures = 0;
  private closed = false;
  private checking = false;
  /** Requests in progress on each connection. */
  private readonly inUse = new Map<Client, number>();
  private lastReason = 'not connected yet';

  constructor(
    private readonly part: RemotePartDefinition,
    private readonly clientInfo: { name: string; version: string },
    private readonly listener: LinkListener,
    private readonly events: ServerEvents,
  ) {
    this.relay = new RemoteRelay(this.stdio !== undefined);
    this.timeoutMs = part.remote.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxCallMs = part.remote.options.maxCallMs ?? DEFAULT_MAX_CALL_MS;
  }

  private get stdio(): RemoteStdioTarget | undefined {
    const options = this.part.remote.options as Partial<RemoteStdioTarget>;
    return typeof options.command === 'string' ? (options as RemoteStdioTarget) : undefined;
  }

  /** The remote, for messages: its URL or command line. */
  get label(): string {
    return this.part.remote.label;
  }

  /** The protocol revision spoken, once connected. */
  get revision(): string | undefined {
    return this.client?.getNegotiatedProtocolVersion();
  }

  /** The direct path of a tool call on `client`'s connection, when the remote speaks 2026-07-28 over HTTP. */
  directPath(client: Client): DirectCall | undefined {
    // A remote restarted on another revision keeps the pool, not the path.
    return client === this.client && client.getNegotiatedProtocolVersion() === MODERN_REVISION ? this.direct : undefined;
  }

  /** The connected client: the current one, the one being made, or one made now (a call does not wait out the retry delay). */
  connected(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed) return Promise.reject(new RemoteUnavailableError(this.unavailable('the app is closing')));
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Runs `work` with the client. When the remote turns out to have gone before the request
   * reached it, the link reconnects and runs `work` once more; any other failure is `work`'s.
   */
  async use<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const client = await this.connected();
    try {
      return await this.counted(client, work);
    } catch (error) {
      if (this.closed || !neverReached(error)) {
        if (isConnectionLoss(error)) this.lost(client, reasonOf(error));
        throw error;
      }
      this.lost(client, reasonOf(error));
      const again = await this.connected();
      return this.counted(again, work);
    }
  }

  /**
   * Runs `work` on `client`, counted: a connection found lost is closed only once its requests
   * settled by themselves, so a request that never reached the remote fails as such (and is sent
   * again) rather than as closed under it.
   */
  private async counted<T>(client: Client, work: (client: Client) => Promise<T>): Promise<T> {
    this.inUse.set(client, (this.inUse.get(client) ?? 0) + 1);
    try {
      return await work(client);
    } finally {
      const left = (this.inUse.get(client) ?? 1) - 1;
      if (left > 0) this.inUse.set(client, left);
      else {
        this.inUse.delete(client);
        if (this.client !== client) void client.close().catch(() => undefined);
      }
    }
  }

  /** What a caller reads while the remote cannot be reached. */
  unavailable(reason = this.lastReason): string {
    return remoteMessages.unavailable(this.part.naming.where, this.part.remote.label, reason);
  }

  /** Stops reconnecting and closes the connection (the remote's process ends with it). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    const client = this.client ?? (await this.connecting?.catch(() => undefined));
    this.client = undefined;
    this.direct?.close();
    await client?.close().catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    clearTimeout(this.retry);
    this.retry = undefined;
    const sdk = await clientSdk();
    const client = this.newClient(sdk);
    try {
      await client.connect(withOrderedDelivery(this.transport(sdk)), { timeout: this.timeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      this.lastReason = reasonOf(error);
      this.scheduleRetry();
      throw new RemoteUnavailableError(this.unavailable());
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new RemoteUnavailableError(this.unavailable('the app is closing'));
    }
    // A 2025-11-25 remote logs per connection: everything, and each call's client gets what its level lets through.
    if (client.getServerCapabilities()?.logging && client.getNegotiatedProtocolVersion() !== MODERN_REVISION)
      await client.setLoggingLevel('debug').catch(() => undefined);
    if (!this.stdio && client.getNegotiatedProtocolVersion() === MODERN_REVISION) this.direct ??= await this.directCall(sdk, client);
    this.client = client;
    this.failures = 0;
    onClosed(client, () => this.lost(client, 'the connection closed'));
    // Over HTTP a broken standalone stream is the only sign of a restarted remote between calls.
    client.onerror = () => this.check(client);
    this.events.emit({
      event: 'remote-up',
      part: this.part.naming.where,
      remote: this.part.remote.label,
      revision: client.getNegotiatedProtocolVersion() ?? 'unknown',
    });
    // The catalogue is fetched before any call is let through: a caller never sees a stale one after a restart.
    await this.listener.connected(client).catch((error) => this.lost(client, reasonOf(error)));
    if (this.client !== client) throw new RemoteUnavailableError(this.unavailable());
    return client;
  }

  private newClient(sdk: ClientSdk): Client {
    const { protocolVersion } = this.part.remote.options;
    const changed = (kind: 'tools' | 'prompts' | 'resources') => ({
      autoRefresh: false,
      debounceMs: 20,
      onChanged: () => this.listener.changed(kind),
    });
    const client = new sdk.Client(this.clientInfo, {
      capabilities: CLIENT_CAPABILITIES,
      ...(protocolVersion === '2025-11-25' ? {} : { versionNegotiation: { mode: 'auto' as const } }),
      listChanged: { tools: changed('tools'), prompts: changed('prompts'), resources: changed('resources') },
    });
    this.relay.attach(client, sdk);
    client.setNotificationHandler('notifications/resources/updated', (notification) => this.listener.updated(notification.params.uri));
    return client;
  }

  private transport(sdk: ClientSdk): Transport {
    const stdio = this.stdio;
    if (stdio) {
      return new sdk.StdioClientTransport({
        command: stdio.command,
        args: stdio.args ? [...stdio.args] : undefined,
        env: stdio.env ? { ...stdio.env } : undefined,
        cwd: stdio.cwd,
        stderr: stdio.stderr ?? 'inherit',
      });
    }
    const http = this.part.remote.options as RemoteHttpTarget;
    return new sdk.StreamableHTTPClientTransport(new URL(http.url), http.headers ? { requestInit: { headers: { ...http.headers } } } : {});
  }

  /** The direct path, with the envelope the official client sends and its codec (none when that cannot be used). */
  private async directCall(sdk: ClientSdk, client: Client): Promise<DirectCall | undefined> {
    const http = this.part.remote.options as RemoteHttpTarget;
    const codec = clientCodecOf(client);
    return (
      codec &&
      DirectCall.open(
        new URL(http.url),
        http.headers,
        {
          [sdk.PROTOCOL_VERSION_META_KEY]: MODERN_REVISION,
          [sdk.CLIENT_INFO_META_KEY]: this.clientInfo,
          [sdk.CLIENT_CAPABILITIES_META_KEY]: CLIENT_CAPABILITIES,
        },
        sdk,
        codec,
      )
    );
  }

  /** Asks the remote whether it is still there after an error on its connection. */
  private check(client: Client): void {
    if (this.checking || this.client !== client) return;
    this.checking = true;
    client
      .ping({ timeout: this.timeoutMs })
      .catch((error) => {
        if (neverReached(error) || isConnectionLoss(error)) this.lost(client, reasonOf(error));
      })
      .finally(() => {
        this.checking = false;
      });
  }

  /** The remote went away (`client` is the connection that saw it): reconnect, later. */
  private lost(client: Client, reason: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.lastReason = reason;
    // A later close of this client finds it no longer current, and does nothing.
    client.onerror = undefined;
    if (!this.inUse.has(client)) void client.close().catch(() => undefined);
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.closed || this.retry) return;
    const max = this.part.remote.options.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_MS;
    const delay = Math.min(max, FIRST_RETRY_MS * 2 ** this.failures);
    this.failures++;
    this.events.emit({
      event: 'remote-down',
      part: this.part.naming.where,
      remote: this.part.remote.label,
      reason: this.lastReason,
      retryInMs: delay,
    });
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.connected().catch(() => undefined);
    }, delay);
    // A remote's reconnection never keeps the process alive by itself.
    this.retry.unref();
  }
}

/** True when `error` means the request never reached the remote: safe to send again. */
function neverReached(error: unknown): boolean {
  const sdk = loadedClientSdk();
  return causes(error).some(
    (cause) =>
      // The HTTP session is gone (the remote restarted): it answered 404 without running anything.
      (sdk !== undefined && cause instanceof sdk.SdkHttpError && cause.status === 404) ||
      (sdk !== undefined && cause instanceof sdk.SdkError && cause.code === sdk.SdkErrorCode.NotConnected) ||
      // Nothing listens, or no such host: no byte of the request was taken.
      ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH'].includes(String((cause as { code?: unknown }).code)),
  );
}

/** `error` and what it wraps (`cause`, or the SDK's `data.cause`), outermost first. */
function causes(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let cause = error; cause instanceof Error && chain.length < 6; ) {
    chain.push(cause);
    cause = cause.cause ?? (cause as { data?: { cause?: unknown } }).data?.cause;
  }
  return chain;
}

/** True when `error` means the connection is no longer usable. */
export function isConnectionLoss(error: unknown): boolean {
  const sdk = loadedClientSdk();
  if (sdk && error instanceof sdk.SdkError)
    return error.code === sdk.SdkErrorCode.ConnectionClosed || error.code === sdk.SdkErrorCode.SendFailed;
  return error instanceof DirectConnectionError || (error instanceof TypeError && error.message === 'fetch failed');
}

/** The short reason of a failed connection, for logs and callers: the system error under the SDK's and fetch's, when there is one. */
function reasonOf(error: unknown): string {
  return causes(error).find((cause) => 'syscall' in cause)?.message ?? messageOf(error);
}
