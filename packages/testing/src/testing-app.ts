import {
  type Constructor,
  type ContainerAdapter,
  type CreateMcpAppOptions,
  createMcpApp,
  type LogLevel,
  type McpApp,
  TypediContainerAdapter,
} from '@armature/core';
import {
  type CallToolResult,
  Client,
  type ClientCapabilities,
  type GetPromptResult,
  InMemoryTransport,
  type ProgressCallback,
  type ReadResourceResult,
  type Tool,
} from '@modelcontextprotocol/client';

/** What `overrideProvider` accepts: a class, or a string token. */
export type ProviderToken<T = unknown> = Constructor<T> | string;

export interface TestingAppOptions extends Omit<CreateMcpAppOptions, 'container' | 'onError'> {
  /** The `@McpServer` classes to serve, as `createMcpApp` takes them. */
  servers: Constructor | readonly Constructor[];
  /**
   * The DI container. Default: typedi with an isolated root container, so the singletons (and the
   * overrides) of one testing app never leak into another or into the global `Container`.
   */
  container?: ContainerAdapter;
  /**
   * Told about unexpected errors tools threw (they become `isError` results). Default: recorded in
   * `TestingApp.errors` instead of printed.
   */
  onError?: CreateMcpAppOptions['onError'];
  /**
   * Whether the client reads the message of an unexpected error (not only `ToolError`s). Default
   * true here, so a failing test shows why; `false` tests the masked text your callers read.
   */
  exposeErrors?: boolean;
  /** Capabilities the test client declares (e.g. `{ elicitation: {} }`). Default none. */
  clientCapabilities?: ClientCapabilities;
  /**
   * The level the client asks for with `logging/setLevel` right after connecting, so that
   * `ctx.log.*` calls arrive in `TestingApp.logs`. Default `'debug'`; `false` sends none.
   */
  logLevel?: LogLevel | false;
}

/** A `notifications/message` the server sent during the test. */
export interface ReceivedLog {
  level: LogLevel;
  logger?: string;
  data: unknown;
}

/** An error a tool threw that became an `isError` result. */
export interface ReportedError {
  tool: string;
  requestId: unknown;
  /** The id the caller's masked message names (with `exposeErrors: false`, what your callers read). */
  errorId?: string;
  error: unknown;
}

export interface CallToolOptions {
  /** The request's `_meta` (the tool sees it as `ctx.meta`). */
  meta?: Record<string, unknown>;
  /** Receives `notifications/progress`; giving it makes the client send a progress token. */
  onprogress?: ProgressCallback;
  /** Aborting it cancels the call (`notifications/cancelled`; the tool's `ctx.signal` fires). */
  signal?: AbortSignal;
  /** Milliseconds before the client gives up. Default: the SDK's (60 s). */
  timeout?: number;
}

interface Overridable {
  override(token: ProviderToken, value: unknown): unknown;
}

function canOverride(container: ContainerAdapter): container is ContainerAdapter & Overridable {
  return typeof (container as Partial<Overridable>).override === 'function';
}

function tokenName(token: ProviderToken): string {
  return typeof token === 'string' ? `"${token}"` : token.name;
}

/** An app built by the production pipeline, with the official client connected in memory. */
export class TestingApp {
  /** @internal: use `createTestingApp(...).compile()`. */
  constructor(
    /** The built app (its `definition`, its `stats`). */
    readonly app: McpApp,
    /** The official `@modelcontextprotocol/client` Client, connected to a fresh server of `app`. */
    readonly client: Client,
    /** Every log notification received, in order. */
    readonly logs: readonly ReceivedLog[],
    /** Every unexpected error a tool threw (unless `onError` was given), in order. */
    readonly errors: readonly ReportedError[],
    private readonly closeServer: () => Promise<void>,
  ) {}

  /**
   * Calls a tool through the whole pipeline (argument guards, DTO validation, DI scope, result
   * conversion) and returns the `CallToolResult` the client received. Tool failures come back as
   * results with `isError: true`; protocol errors (unknown tool, `McpError`) reject.
   *
   * @example
   * ```ts
   * const result = await t.callTool('get_forecast', { city: 'Oslo' });
   * expect(result.structuredContent).toEqual({ city: 'Oslo', summary: 'sunny' });
   * ```
   */
  callTool(name: string, args: Record<string, unknown> = {}, options: CallToolOptions = {}): Promise<CallToolResult> {
    const { meta, ...requestOptions } = options;
    return this.client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, requestOptions);
  }

  /** The `tools/list` the client sees, every page of it. */
  async listTools(): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /**
   * Reads a resource (fixed URI or one matching a template). An unknown URI or invalid template
   * variables reject with the protocol error the client gets.
   */
  readResource(uri: string): Promise<ReadResourceResult> {
    return this.client.readResource({ uri });
  }

  /** Gets a prompt with its (string) arguments. Invalid arguments reject with the protocol error. */
  getPrompt(name: string, args: Record<string, string> = {}): Promise<GetPromptResult> {
    return this.client.getPrompt({ name, arguments: args });
  }

  /** Disconnects the client and closes the server. */
  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
    await this.closeServer();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * A stand-in for a provider: any of its public members, with their types. Private and protected
 * members are left out (a class with `private readonly db` would otherwise accept only instances of
 * itself), and so are members the test does not need: a call to a missing one fails the test.
 */
export type Fake<T> = Partial<T>;

/** Chooses what replaces one provider; returned by `TestingAppBuilder.overrideProvider`. */
export interface ProviderOverride<T> {
  /** Use this object wherever the provider is injected. */
  useValue(value: Fake<T>): TestingAppBuilder;
  /** Use what this function returns (called once, by `compile()`). */
  useFactory(factory: () => Fake<T>): TestingAppBuilder;
  /** Use `new Replacement()` (no constructor arguments). */
  useClass(replacement: new () => Fake<T>): TestingAppBuilder;
}

/**
 * Collects provider overrides, then builds the app with `compile()`. The app is built by
 * `createMcpApp`, the same function production uses: a test never runs a separate "test mode".
 */
export class TestingAppBuilder {
  private readonly overrides = new Map<ProviderToken, () => unknown>();

  constructor(private readonly options: TestingAppOptions) {}

  /**
   * Replaces a provider everywhere it is injected, including inside singletons that depend on it.
   *
   * @example
   * ```ts
   * const t = await createTestingApp({ servers: [WeatherServer] })
   *   .overrideProvider(WeatherApi)
   *   .useValue({ forecast: async () => 'sunny' })
   *   .compile();
   * ```
   */
  overrideProvider<T>(token: ProviderToken<T>): ProviderOverride<T> {
    const set = (make: () => unknown) => {
      this.overrides.set(token, make);
      return this;
    };
    return {
      useValue: (value) => set(() => value),
      useFactory: (factory) => set(factory),
      useClass: (replacement) => set(() => new replacement()),
    };
  }

  /**
   * Builds the app (throwing `ArmatureBuildError` exactly as production start-up would), connects the
   * official client over the in-memory transport and returns the `TestingApp`.
   */
  async compile(): Promise<TestingApp> {
    const { servers, container: given, onError, clientCapabilities, logLevel = 'debug', exposeErrors = true, ...appOptions } = this.options;
    const container = given ?? new TypediContainerAdapter(isolatedTypediRoot());
    if (this.overrides.size > 0 && !canOverride(container)) {
      const names = [...this.overrides.keys()].map(tokenName).join(', ');
      throw new Error(
        `overrideProvider(${names}) needs a container adapter with override(token, value), and the one given has none. ` +
          'Fix: leave `container` out (the default typedi adapter can override), or register the fakes in your own container.',
      );
    }
    for (const [token, make] of this.overrides) (container as ContainerAdapter & Overridable).override(token, make());

    const reported: ReportedError[] = [];
    const app = createMcpApp(servers, {
      ...appOptions,
      exposeErrors,
      container,
      onError: onError ?? ((error, info) => reported.push({ error, ...info })),
    });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const server = app.createServer();
    await server.connect(serverTransport);
    const client = new Client({ name: 'armature-testing', version: '1.0.0' }, { capabilities: clientCapabilities ?? {} });
    const logs: ReceivedLog[] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      const { level, logger, data } = notification.params;
      logs.push(logger === undefined ? { level, data } : { level, logger, data });
    });
    try {
      await client.connect(clientTransport);
      if (logLevel !== false) await client.setLoggingLevel(logLevel);
    } catch (error) {
      await server.close();
      throw error;
    }
    return new TestingApp(app, client, logs, reported, () => server.close());
  }
}

/**
 * Starts a testing module for `@McpServer` classes: override providers, then `compile()`.
 *
 * @example
 * ```ts
 * const t = await createTestingApp({ servers: [WeatherServer] }).overrideProvider(WeatherApi).useValue(fake).compile();
 * const result = await t.callTool('get_forecast', { city: 'Oslo' });
 * await t.close();
 * ```
 */
export function createTestingApp(options: TestingAppOptions): TestingAppBuilder {
  return new TestingAppBuilder(options);
}

let isolatedCount = 0;

/**
 * A fresh typedi `ContainerInstance`, made with the class of the copy `@armature/core` uses: a second
 * copy of typedi would hold a second registry of `@Service` classes and find none of the user's.
 */
function isolatedTypediRoot(): TypediContainerAdapter['root'] {
  const ContainerInstance = new TypediContainerAdapter().root.constructor as new (id: string) => TypediContainerAdapter['root'];
  isolatedCount += 1;
  return new ContainerInstance(`armature-testing-${isolatedCount}`);
}
