import type { McpServer as SdkMcpServer } from '@modelcontextprotocol/server';
import type { BuildOptions } from '../builder/build-app-definition.js';
import type { AppDefinition } from '../builder/definitions.js';
import type { AppPart } from '../builder/mounted-part.js';
import type { ContainerAdapter } from '../di/container-adapter.js';
import { TypediContainerAdapter } from '../di/typedi-adapter.js';
import { AppEngine } from '../engine/app-engine.js';
import { pointAtCaller } from '../messages/build-error.js';
import { wireMessages } from '../messages/wire-messages.js';
import type { ServerEventListener } from '../observability/server-events.js';
import { type LoggerOption, startServerLog } from '../observability/server-log.js';
import { RemotePart } from '../remote/remote-part.js';
import { AppRuntime, type RuntimeOptions } from '../runtime/app-runtime.js';
import type { RuntimeStats, ToolErrorReporter } from '../runtime/call-request.js';
import { closeExtensions } from '../runtime/extensions/extension-close.js';
import type { AppState } from '../state/app-state.js';
import { memoryState } from '../state/memory-state.js';
import type { HttpEndpointOptions } from '../transports/http/http-endpoint.js';
import type { SessionRelay } from '../transports/sessions/session-relay.js';
import { type StdioHandle, type StdioOptions, serveOverStdio } from '../transports/stdio/stdio.js';
import { buildApp } from './app-build.js';
import { AppLifecycle } from './app-lifecycle.js';
import { shareApp } from './app-sharing.js';
import {
  type HttpListener,
  type HttpServed,
  httpHandlerOf,
  type ListenHttpOptions,
  listenOn,
  type McpHttpHandler,
} from './http-serving.js';
import { onCloudflareWorkers } from './on-cloudflare-workers.js';
import type { Registrations } from './registrations.js';

export type { HttpListener, ListenHttpOptions, McpHttpHandler } from './http-serving.js';

export interface CreateMcpAppOptions extends BuildOptions, RuntimeOptions {
  /** The DI container seam. Default: typedi (`new TypediContainerAdapter()`). */
  container?: ContainerAdapter;
  /**
   * Told about every unexpected error a tool threw (they become `isError` results), e.g. to send
   * it to an error tracker. `ToolError`s are expected and not reported. Without a `logger` option,
   * it replaces the default line on stderr for a failed call; with one, both are told.
   */
  onError?: ToolErrorReporter;
  /**
   * Where the server's own events are logged (started, stopping, stopped, refused requests, failed
   * calls), with the request id and, when a span is active, the trace id: `'json'` (one JSON object
   * a line on stderr), `'text'` (`[armature] ...` lines on stderr), `{ format, level }` for either
   * with a least level (default `'info'`), your pino-like logger (`info/warn/error(fields, msg)`),
   * or `false`. Never on stdout. Default `{ format: 'text', level: 'error' }`: a line per failed
   * call, as before logs existed. See docs/observability.md.
   */
  logger?: LoggerOption;
  /**
   * Where sessions, resumable events and change notifications live. Default `memoryState()` (this
   * process only). `redisState({ url })` from `@armature/redis` lets several instances serve one
   * endpoint; it needs `requestStateKey`. The app closes the state when it closes.
   */
  state?: AppState;
  /**
   * Whether the request engine answers the frequent requests itself (`tools/call`, `tools/list`,
   * `ping`), with the same bytes as the SDK's request handling but a fraction of its work. Default
   * true; false sends every request through the SDK's public request handling, e.g. to rule the
   * engine out while investigating a problem. `app.stats.engine` counts what the engine answered.
   */
  requestEngine?: boolean;
}

/** A built, ready-to-serve set of `@McpServer` classes. */
export class McpApp {
  readonly definition: AppDefinition;
  private readonly runtime: AppRuntime;
  private readonly engine: AppEngine;
  private readonly lifecycle: AppLifecycle;
  private readonly state: AppState;
  private readonly relay?: SessionRelay;
  /** The remote servers mounted in the app (`mount(prefix, remoteServer(...))`). */
  private readonly remotes: readonly RemotePart[];
  private remotesStarted?: Promise<void>;

  constructor(given: readonly AppPart[], options: CreateMcpAppOptions = {}) {
    const container = options.container ?? new TypediContainerAdapter();
    this.state = options.state ?? memoryState();
    this.definition = buildApp(given, options, container, () => this.runtime);
    // Tasks live in the state's task store unless the options name one.
    const tasks = this.state.tasks && !options.tasks?.store ? { ...options.tasks, store: this.state.tasks } : options.tasks;
    this.runtime = new AppRuntime(this.definition, container, options.onError, {
      ...options,
      tasks,
      rateLimitStore: options.rateLimitStore ?? this.state.rateLimits,
    });
    startServerLog(this.runtime.events, options.logger, options.onError !== undefined);
    this.engine = new AppEngine(this.runtime, options.requestEngine ?? true);
    const { catalog, relay, shared, unshare } = shareApp(this.state, this.runtime);
    this.relay = relay;
    let extensionsClosed: Promise<void> | undefined;
    this.lifecycle = new AppLifecycle(
      this.state,
      shared,
      this.runtime.events,
      () => this.runtime.busy,
      async () => {
        // The extensions close once nothing is served any more, before what the app shares and its state.
        extensionsClosed ??= closeExtensions(this.definition.extensions, this.runtime.events);
        await extensionsClosed;
        await unshare();
      },
    );
    this.lifecycle.track(async () => this.runtime.telemetry.close());
    // With a task queue (redisState) and tools with retries: the tasks of instances that stop run again here.
    if ([...this.definition.tools.values()].some((tool) => tool.taskRetries > 0)) this.lifecycle.track(this.runtime.tasks.resumeLost());
    this.remotes = this.definition.remoteParts.map((part) => new RemotePart(part, this.runtime, this.definition.info));
    if (this.remotes.length > 0) this.lifecycle.track(async () => void (await Promise.allSettled(this.remotes.map((r) => r.close()))));
    this.tools = catalog.registrations('tools');
    this.resources = catalog.registrations('resources');
    this.resourceTemplates = catalog.registrations('resourceTemplates');
    this.prompts = catalog.registrations('prompts');
  }

  /** Enable, disable or remove tools at run time (by name); clients get `notifications/tools/list_changed`. */
  readonly tools: Registrations;
  /** Enable, disable or remove resources at run time (by URI); clients get `notifications/resources/list_changed`. */
  readonly resources: Registrations;
  /** Enable, disable or remove resource templates at run time (by name). */
  readonly resourceTemplates: Registrations;
  /** Enable, disable or remove prompts at run time (by name); clients get `notifications/prompts/list_changed`. */
  readonly prompts: Registrations;

  /**
   * Announces that the resource at `uri` changed: sent as `notifications/resources/updated` to
   * 2025-11-25 connections that subscribed to it and to 2026-07-28 `subscriptions/listen` streams
   * that asked for it. With a shared state (`redisState`) it reaches the clients of every
   * instance; the promise settles once they were told (it never rejects: a store failure is
   * reported on stderr).
   *
   * @example
   * ```ts
   * settings.onChange(() => app.notifyResourceUpdated('config://app'));
   * ```
   */
  notifyResourceUpdated(uri: string): Promise<void> {
    return this.runtime.broadcaster.resourceUpdated(uri);
  }

  /** Announces that the list of resources changed (for resources your methods list dynamically). */
  notifyResourceListChanged(): Promise<void> {
    return this.runtime.broadcaster.resourcesChanged();
  }

  /**
   * Calls `listener` with each of the server's own events from now on (started, stopping, stopped,
   * refused, call-failed: `ServerEvent`), besides the log; returns the function that stops it.
   * A listener that throws is ignored. For alerts and counters of your own.
   */
  onEvent(listener: ServerEventListener): () => void {
    return this.runtime.events.on(listener);
  }

  /** Live DI scopes (0 when idle) and calls served. */
  get stats(): Readonly<RuntimeStats> {
    return this.runtime.stats;
  }

  /**
   * A fresh SDK server for one connection, e.g. `await app.createServer().connect(transport)`
   * with the SDK's `InMemoryTransport` in tests. Never share one between connections.
   */
  createServer(): SdkMcpServer {
    void this.startRemotes();
    return this.engine.createServer();
  }

  /**
   * Serves over stdin/stdout (both protocol revisions). Stray `console.log` output is sent to
   * stderr so that stdout carries protocol messages only.
   */
  listenStdio(options: StdioOptions = {}): StdioHandle {
    if (onCloudflareWorkers())
      throw new Error(wireMessages.notOnWorkers('listenStdio()', 'a Worker has no stdin or stdout, only requests'));
    void this.startRemotes();
    const handle = serveOverStdio((wire) => this.engine.createServer('connection', wire), options, this.runtime.events);
    this.lifecycle.track(() => handle.close());
    this.runtime.events.emit({ event: 'started', transport: 'stdio' });
    return handle;
  }

  /** A node:http / Express handler for the MCP endpoint, with Host/Origin checks on by default. */
  httpHandler(options: HttpEndpointOptions = {}): McpHttpHandler {
    void this.startRemotes();
    return httpHandlerOf(this.served, options);
  }

  /**
   * Serves Streamable HTTP on `http://127.0.0.1:3000/mcp` by default (both protocol revisions).
   *
   * @example
   * ```ts
   * const { url } = await createMcpApp(WeatherServer).listenHttp({ port: 3000 });
   * ```
   */
  async listenHttp(options: ListenHttpOptions = {}): Promise<HttpListener> {
    if (onCloudflareWorkers())
      throw new Error(wireMessages.notOnWorkers('listenHttp()', 'a Worker listens on no port; Cloudflare hands it each request'));
    await this.ready();
    return listenOn(this.served, this.httpHandler(options), options);
  }

  /** What serving HTTP needs of the app. */
  private get served(): HttpServed {
    return { runtime: this.runtime, engine: this.engine, lifecycle: this.lifecycle, relay: this.relay, notReady: () => this.notReady() };
  }

  /**
   * Graceful shutdown: stop accepting (new connections refused, new requests 503, health 503), let
   * running calls finish for up to `deadlineMs`, then close sessions, connections and listeners.
   */
  shutdown(deadlineMs = 10_000): Promise<void> {
    return this.lifecycle.drain(deadlineMs, 'shutdown()');
  }

  /**
   * Shuts down gracefully on SIGTERM and SIGINT (then exits). Opt-in, like NestJS, so a library
   * never takes over a process's signals by surprise.
   *
   * @example
   * ```ts
   * const app = createMcpApp(Server).enableShutdownHooks({ deadlineMs: 15_000 });
   * ```
   */
  enableShutdownHooks(options: { deadlineMs?: number; signals?: NodeJS.Signals[]; exit?: boolean } = {}): this {
    this.lifecycle.onSignals(options);
    return this;
  }

  /**
   * Resolves once the app is connected to its state (at once for the memory state); rejects,
   * naming the store, when a shared store cannot be reached. `listenHttp` waits for it.
   */
  ready(): Promise<void> {
    return Promise.all([this.lifecycle.ready(), this.startRemotes()]).then(() => undefined);
  }

  /**
   * Connects the mounted remote servers (once): settles when each first attempt ended, either way
   * (one that is away is tried again by itself, and its calls say so meanwhile).
   */
  private startRemotes(): Promise<void> {
    this.remotesStarted ??= Promise.all(this.remotes.map((remote) => remote.start())).then(() => undefined);
    return this.remotesStarted;
  }

  /**
   * Why the app cannot serve requests now (shutting down, or its shared state unreachable within a
   * second), or undefined when it can: what the HTTP readiness path answers.
   */
  notReady(): Promise<string | undefined> {
    return this.lifecycle.notReady();
  }

  /** Stops every listener this app started, then closes its state. */
  close(): Promise<void> {
    return this.lifecycle.close();
  }
}

/**
 * Builds an app from `@McpServer` classes, and parts of them mounted under a prefix with `mount()`,
 * checking every declaration before the first request. Throws `ArmatureBuildError` listing all
 * problems, each naming `Class.method` and the fix.
 *
 * @example
 * ```ts
 * const app = createMcpApp([WeatherServer, MathServer]);
 * const composed = createMcpApp([mount('weather', WeatherServer), mount('billing', [BillingServer, InvoicesServer])]);
 * await app.listenHttp({ port: 3000 });
 * ```
 */
export function createMcpApp(servers: AppPart | readonly AppPart[], options: CreateMcpAppOptions = {}): McpApp {
  try {
    return new McpApp(Array.isArray(servers) ? servers : [servers as AppPart], options);
  } catch (error) {
    throw pointAtCaller(error, createMcpApp);
  }
}
