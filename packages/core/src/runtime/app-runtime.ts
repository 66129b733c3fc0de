import { randomBytes } from 'node:crypto';
import {
  type CompleteResult,
  createRequestStateCodec,
  type GetPromptResult,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type RequestStateCodec,
  type Resource,
  ResourceNotFoundError,
  type ResourceTemplateType,
  McpServer as SdkMcpServer,
  type ServerCapabilities,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type {
  AppDefinition,
  CompletionDefinition,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ToolDefinition,
} from '../builder/definitions.js';
import type { ContainerAdapter } from '../di/container-adapter.js';
import type { Constructor } from '../metadata/metadata-args.js';
import { CallTimeoutError, filterError, type HandlerPipeline, isAllowed, runIntercepted, withTimeout } from '../pipeline/call-pipeline.js';
import type {
  ErrorFilter,
  ExecutionContext,
  Guard,
  Interceptor,
  McpRequestInfo,
  Middleware,
  Provided,
} from '../pipeline/pipeline-types.js';
import { validateInput } from '../validation/dto-validator.js';
import { formatIssues } from '../validation/validation-issue.js';
import { Catalog, paginate } from './catalog.js';
import { InputRequiredSignal } from './client-requests.js';
import { type Context, SdkRequestContext } from './context.js';
import { ToolError } from './errors.js';
import { type InvokerSettings, invokeTool, maskedMessage, messageOf, type RuntimeStats, type ToolErrorReporter } from './invoke-tool.js';
import { inScope } from './scoped-call.js';
import { toGetPromptResult } from './to-get-prompt-result.js';
import { toReadResourceResult } from './to-read-resource-result.js';

export interface RuntimeOptions {
  /** Items per page of every list (`tools/list`, `resources/list`, ...). Default 100. */
  pageSize?: number;
  /**
   * HMAC key signing the state of 2026-07-28 multi-round-trip calls (`ctx.elicit` and friends).
   * Default: a random key per process; give every instance the same key when several serve one
   * endpoint behind a load balancer.
   */
  requestStateKey?: string | Uint8Array;
  /** How long an unanswered 2026-07-28 round stays valid. Default 600 s. */
  requestStateTtlSeconds?: number;
  /**
   * A call (tool, resource, prompt) running longer is stopped: its signal aborts, the client gets
   * an error, the DI scope is disposed. Default 60,000 ms; 0 turns it off.
   */
  timeoutMs?: number;
  /**
   * Production mode masks the message of unexpected errors (the caller sees a reference, the
   * server logs the error); ToolError and McpError messages are always kept.
   * Default: `process.env.NODE_ENV === 'production'`.
   */
  production?: boolean;
  /** Runs around every request Armature handles; see `Middleware`. */
  middleware?: Middleware[];
  /** Guards for every tool, resource and prompt, before class and method guards. */
  guards?: Provided<Guard>[];
  /** Interceptors around every call, outside class and method interceptors. */
  interceptors?: Provided<Interceptor>[];
  /** The one place to map errors; see `ErrorFilter`. */
  errorFilter?: ErrorFilter;
}

type Handled = ToolDefinition | ResourceDefinition | ResourceTemplateDefinition | PromptDefinition;

/** An SDK server serving one long-lived connection (a 2025-11-25 session, stdio, in memory). */
interface LiveServer {
  readonly mcp: SdkMcpServer;
  /** URIs this connection subscribed to with `resources/subscribe` (2025-11-25). */
  readonly subscriptions: Set<string>;
}

/** Where 2026-07-28 `subscriptions/listen` streams are notified (one per HTTP handler). */
export interface ChangeNotifier {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
  resourceUpdated(uri: string): void;
}

const MODERN = '2026-07-28';
const MAX_COMPLETIONS = 100; // spec: completion values are capped at 100 per response

/**
 * The per-request side of an app: it reads the frozen `AppDefinition` plus the small run-time state
 * dynamic registration changes (which entries are enabled). `createServer()` builds the SDK server
 * for one connection by installing a handful of request handlers over that shared registry:
 * nothing is registered per tool, so the cost does not grow with the number of tools.
 */
export class AppRuntime implements InvokerSettings {
  readonly stats: RuntimeStats = { liveScopes: 0, calls: 0 };
  readonly tools: Catalog<ToolDefinition, Tool>;
  readonly resources: Catalog<ResourceDefinition, Resource>;
  readonly resourceTemplates: Catalog<ResourceTemplateDefinition, ResourceTemplateType>;
  readonly prompts: Catalog<PromptDefinition, Prompt>;
  private readonly live = new Set<LiveServer>();
  private readonly notifiers = new Set<ChangeNotifier>();
  private readonly pageSize: number;
  private readonly capabilities: ServerCapabilities;
  private readonly codec: RequestStateCodec<{ answers: Record<string, unknown> }>;
  readonly timeoutMs: number;
  readonly production: boolean;
  readonly errorFilter?: ErrorFilter;
  private readonly middleware: readonly Middleware[];
  private readonly appGuards: readonly Provided<Guard>[];
  private readonly appInterceptors: readonly Provided<Interceptor>[];
  /** Each handler's pipeline with the app-level guards and interceptors merged in, built once. */
  private readonly pipelines = new Map<Handled, HandlerPipeline>();
  private readonly guardedMemo = new WeakMap<object, { revision: number; guarded: boolean }>();
  /** One Context per request, shared by middleware, guards and the handler. */
  private readonly contexts = new WeakMap<ServerContext, SdkRequestContext>();

  constructor(
    readonly definition: AppDefinition,
    readonly container: ContainerAdapter,
    readonly reportError: ToolErrorReporter,
    options: RuntimeOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 100;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.production = options.production ?? process.env.NODE_ENV === 'production';
    this.errorFilter = options.errorFilter;
    this.middleware = Object.freeze([...(options.middleware ?? [])]);
    this.appGuards = Object.freeze([...(options.guards ?? [])]);
    this.appInterceptors = Object.freeze([...(options.interceptors ?? [])]);
    // requestState comes back from the client: it must be signed, or a client could forge answers.
    this.codec = createRequestStateCodec({
      key: options.requestStateKey ?? randomBytes(32),
      ttlSeconds: options.requestStateTtlSeconds ?? 600,
    });
    this.tools = new Catalog([...definition.tools.values()].map((d) => [d.name, d, d.descriptor as Tool] as const));
    this.resources = new Catalog([...definition.resources.values()].map((d) => [d.uri, d, d.descriptor as Resource] as const));
    this.resourceTemplates = new Catalog(
      definition.resourceTemplates.map((d) => [d.name, d, d.descriptor as ResourceTemplateType] as const),
    );
    this.prompts = new Catalog([...definition.prompts.values()].map((d) => [d.name, d, d.descriptor as Prompt] as const));
    const hasResources = definition.resources.size > 0 || definition.resourceTemplates.length > 0;
    const hasCompletions =
      [...definition.prompts.values()].some((p) => p.completions.size > 0) ||
      definition.resourceTemplates.some((t) => t.completions.size > 0);
    this.capabilities = {
      tools: { listChanged: true },
      logging: {},
      ...(hasResources ? { resources: { subscribe: true, listChanged: true } } : {}),
      ...(definition.prompts.size > 0 ? { prompts: { listChanged: true } } : {}),
      ...(hasCompletions || definition.prompts.size > 0 || hasResources ? { completions: {} } : {}),
    };
  }

  /**
   * A fresh SDK server. `track` keeps it in the set notified of changes until it closes: true for
   * long-lived connections, false for the one-request instances of 2026-07-28 HTTP.
   */
  createServer(track = true): SdkMcpServer {
    const { info, instructions } = this.definition;
    const mcp = new SdkMcpServer(
      { ...info },
      {
        capabilities: this.capabilities,
        ...(instructions ? { instructions } : {}),
        requestState: { verify: (state, ctx) => this.codec.verify(state, ctx) },
      },
    );
    const live: LiveServer = { mcp, subscriptions: new Set() };
    const server = mcp.server;
    const on = <M extends Parameters<typeof server.setRequestHandler>[0]>(
      method: M,
      handler: (request: never, ctx: ServerContext) => unknown,
    ) => server.setRequestHandler(method as never, this.withMiddleware(method as string, handler, server) as never);

    on('tools/list', async (request: { params?: { cursor?: string } }, ctx) => {
      const page = paginate(await this.visible(this.tools, 'tool', ctx, server), request.params?.cursor, this.pageSize);
      return { tools: page.items as Tool[], ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    });
    on('tools/call', (request: { params: { name: string; arguments?: unknown } }, ctx) =>
      this.callTool(request.params.name, request.params.arguments, ctx, server),
    );

    if (this.capabilities.resources) {
      on('resources/list', async (request: { params?: { cursor?: string } }, ctx) => {
        const page = paginate(await this.visible(this.resources, 'resource', ctx, server), request.params?.cursor, this.pageSize);
        return { resources: page.items as Resource[], ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
      });
      on('resources/templates/list', async (request: { params?: { cursor?: string } }, ctx) => {
        const page = paginate(
          await this.visible(this.resourceTemplates, 'resourceTemplate', ctx, server),
          request.params?.cursor,
          this.pageSize,
        );
        return { resourceTemplates: page.items as ResourceTemplateType[], ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
      });
      on('resources/read', (request: { params: { uri: string } }, ctx) => this.readResource(request.params.uri, ctx, server));
      // resources/subscribe is a 2025-11-25 method the SDK does not implement (2026-07-28 uses
      // subscriptions/listen, served by the SDK's entry points).
      on('resources/subscribe', (request: { params: { uri: string } }) => {
        this.assertKnownResource(request.params.uri);
        live.subscriptions.add(request.params.uri);
        return {};
      });
      on('resources/unsubscribe', (request: { params: { uri: string } }) => {
        live.subscriptions.delete(request.params.uri);
        return {};
      });
    }
    if (this.capabilities.prompts) {
      on('prompts/list', async (request: { params?: { cursor?: string } }, ctx) => {
        const page = paginate(await this.visible(this.prompts, 'prompt', ctx, server), request.params?.cursor, this.pageSize);
        return { prompts: page.items as Prompt[], ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
      });
      on('prompts/get', (request: { params: { name: string; arguments?: Record<string, string> } }, ctx) =>
        this.getPrompt(request.params.name, request.params.arguments, ctx, server),
      );
    }
    if (this.capabilities.completions) {
      on('completion/complete', (request: { params: Parameters<AppRuntime['complete']>[0] }, ctx) =>
        this.complete(request.params, ctx, server),
      );
    }

    if (track) {
      this.live.add(live);
      const previous = server.onclose;
      server.onclose = () => {
        this.live.delete(live);
        previous?.();
      };
    }
    return mcp;
  }

  /** Registers where 2026-07-28 change notifications go; returns the unregister function. */
  addNotifier(notifier: ChangeNotifier): () => void {
    this.notifiers.add(notifier);
    return () => this.notifiers.delete(notifier);
  }

  // ---- requests -------------------------------------------------------------------------------

  async callTool(name: string, args: unknown, sdkCtx: ServerContext, server?: SdkMcpServer['server']) {
    const tool = this.tools.get(name);
    const ctx = this.contextOf(sdkCtx, server);
    // A tool the caller may not use is answered exactly like one that does not exist.
    const pipeline = tool ? this.pipelineOf(tool) : undefined;
    const guarded = pipeline !== undefined && (pipeline.guards.length > 0 || pipeline.scopes.length > 0);
    if (!tool || (guarded && !(await this.allowed(tool, 'tool', tool.name, 'call', ctx)))) {
      // Spec 2025-11-25, tools: an unknown tool is a protocol error (-32602), not a tool result.
      const names = (await this.visible(this.tools, 'tool', sdkCtx, server)).map((t) => t.name);
      const hint =
        names.length <= 20
          ? `Available tools: ${names.join(', ') || 'none'}`
          : `Call tools/list to see the ${names.length} available tools`;
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: "${name}". ${hint}`);
    }
    return invokeTool(this, tool, pipeline as HandlerPipeline, args, ctx);
  }

  private assertKnownResource(uri: string): void {
    if (this.resources.get(uri)) return;
    if (this.resourceTemplates.enabledDefinitions().some((t) => t.template.match(uri))) return;
    throw new ResourceNotFoundError(uri);
  }

  async readResource(uri: string, sdkCtx: ServerContext, server?: SdkMcpServer['server']): Promise<ReadResourceResult> {
    const ctx = this.contextOf(sdkCtx, server);
    const resource = this.resources.get(uri);
    if (resource && (await this.allowed(resource, 'resource', uri, 'call', ctx))) {
      return this.run(resource, 'resource', uri, ctx, undefined, async (instance) =>
        toReadResourceResult(uri, resource.descriptor.mimeType, await resource.method.call(instance, ctx)),
      );
    }
    for (const template of this.resourceTemplates.enabledDefinitions()) {
      const variables = template.template.match(uri);
      if (!variables) continue;
      if (!(await this.allowed(template, 'resourceTemplate', template.name, 'call', ctx))) break;
      const params = template.params
        ? await this.validateParams(template.params, variables, `resource template "${template.name}"`)
        : undefined;
      return this.run(template, 'resourceTemplate', template.name, ctx, params, async (instance) => {
        const value = template.params ? await template.method.call(instance, params, ctx) : await template.method.call(instance, ctx);
        return toReadResourceResult(uri, template.descriptor.mimeType, value);
      });
    }
    throw new ResourceNotFoundError(uri);
  }

  async getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    sdkCtx: ServerContext,
    server?: SdkMcpServer['server'],
  ): Promise<GetPromptResult> {
    const prompt = this.prompts.get(name);
    const ctx = this.contextOf(sdkCtx, server);
    if (!prompt || !(await this.allowed(prompt, 'prompt', name, 'call', ctx))) {
      // Only what this caller may see is named (hidden and disabled prompts are not).
      const names = (await this.visible(this.prompts, 'prompt', sdkCtx, server)).map((p) => p.name);
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown prompt: "${name}". Available prompts: ${names.join(', ') || 'none'}`,
      );
    }
    const input = prompt.args ? await this.validateParams(prompt.args, args ?? {}, `prompt "${name}"`) : undefined;
    return this.run(prompt, 'prompt', name, ctx, input, async (instance) => {
      const value = prompt.args ? await prompt.method.call(instance, input, ctx) : await prompt.method.call(instance, ctx);
      return toGetPromptResult(value, prompt.descriptor.description);
    });
  }

  async complete(
    params: {
      ref: { type: string; name?: string; uri?: string };
      argument: { name: string; value: string };
      context?: { arguments?: Record<string, string> };
    },
    sdkCtx: ServerContext,
    server?: SdkMcpServer['server'],
  ): Promise<CompleteResult> {
    let completions: ReadonlyMap<string, CompletionDefinition> | undefined;
    const ctx = this.contextOf(sdkCtx, server);
    if (params.ref.type === 'ref/prompt') {
      const prompt = this.prompts.get(params.ref.name ?? '');
      // Guards apply here too: completing a hidden prompt would reveal it.
      if (!prompt || !(await this.allowed(prompt, 'prompt', prompt.name, 'call', ctx))) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: "${params.ref.name}"`);
      }
      completions = prompt.completions;
    } else if (params.ref.type === 'ref/resource') {
      const template = this.resourceTemplates.enabledDefinitions().find((t) => t.descriptor.uriTemplate === params.ref.uri);
      const resource = this.resources.get(params.ref.uri ?? '');
      const allowed = template
        ? await this.allowed(template, 'resourceTemplate', template.name, 'call', ctx)
        : resource !== undefined && (await this.allowed(resource, 'resource', resource.uri, 'call', ctx));
      // A fixed resource URI has nothing to complete.
      if (!allowed) throw new ResourceNotFoundError(params.ref.uri ?? '');
      completions = template?.completions;
    }
    const source = completions?.get(params.argument.name);
    if (!source) return { completion: { values: [] } };
    const context = { argument: params.argument.name, arguments: params.context?.arguments ?? {} };
    const values =
      source.kind === 'function'
        ? await source.fn(params.argument.value, context)
        : await inScope(this, source.serverClass, ctx, 'completion', async (instance) =>
            source.method.call(instance, params.argument.value, context),
          );
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `Completion for "${params.argument.name}" did not return an array of strings`,
      );
    }
    const capped = values.slice(0, MAX_COMPLETIONS);
    return { completion: { values: capped, total: values.length, hasMore: values.length > capped.length } };
  }

  private async validateParams(dto: Constructor, plain: unknown, what: string): Promise<unknown> {
    const outcome = await validateInput(dto, plain);
    if (!outcome.ok)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, formatIssues(`Invalid arguments for ${what}:`, outcome.issues));
    return outcome.value;
  }

  /**
   * A resource or prompt method inside its interceptors and the timeout. McpError passes through;
   * anything else becomes -32603 with its message (masked in production mode).
   */
  private async run<T>(
    definition: Handled,
    kind: ExecutionContext['kind'],
    name: string,
    ctx: SdkRequestContext,
    args: unknown,
    work: (instance: unknown) => Promise<T>,
  ): Promise<T> {
    const pipeline = this.pipelineOf(definition);
    const execution: ExecutionContext = {
      kind,
      name,
      phase: 'call',
      serverClass: definition.serverClass,
      methodName: definition.methodName,
      context: ctx,
      principal: ctx.principal,
      args,
    };
    try {
      return await inScope(this, definition.serverClass, ctx, definition.where, (instance, scope) =>
        withTimeout(
          pipeline.interceptors.length === 0
            ? work(instance)
            : (runIntercepted(pipeline, execution, scope, () => work(instance)) as Promise<T>),
          this.timeoutMs,
          (reason) => ctx.abort(reason),
        ),
      );
    } catch (thrown) {
      if (thrown instanceof InputRequiredSignal) {
        // Multi-round-trip requests are answered for tools; resources and prompts cannot ask.
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `${definition.where} asked the client for input (ctx.elicit/sample/roots); on 2026-07-28 only tools can do that`,
        );
      }
      const error = filterError(this.errorFilter, thrown, execution);
      if (error instanceof ProtocolError) throw error;
      if (error instanceof CallTimeoutError)
        throw new ProtocolError(ProtocolErrorCode.InternalError, `${definition.where} ${error.message}`);
      if (error instanceof ToolError) throw new ProtocolError(ProtocolErrorCode.InternalError, error.message);
      this.reportError(error, { tool: definition.where, requestId: ctx.requestId });
      throw new ProtocolError(ProtocolErrorCode.InternalError, this.production ? maskedMessage(name, ctx.requestId) : messageOf(error));
    }
  }

  /**
   * The Context of a request: made once and shared, so what middleware sees (and what a guard
   * or interceptor does with it) is the same Context the handler gets, timeout abort included.
   */
  private contextOf(sdkCtx: ServerContext, server: SdkMcpServer['server'] | undefined): SdkRequestContext {
    let ctx = this.contexts.get(sdkCtx);
    if (!ctx) {
      ctx = new SdkRequestContext(sdkCtx, { server, codec: this.codec });
      this.contexts.set(sdkCtx, ctx);
    }
    return ctx;
  }

  // ---- pipeline -------------------------------------------------------------------------------

  /** The OAuth scopes a JSON-RPC request needs (`@RequireScopes` of what it calls), for HTTP step-up. */
  requiredScopes(method: string, params: Record<string, unknown> | undefined): readonly string[] {
    let definition: Handled | undefined;
    if (method === 'tools/call') definition = this.tools.get(String(params?.name));
    else if (method === 'prompts/get') definition = this.prompts.get(String(params?.name));
    else if (method === 'resources/read') {
      const uri = String(params?.uri);
      definition = this.resources.get(uri) ?? this.resourceTemplates.enabledDefinitions().find((t) => t.template.match(uri));
    }
    return definition ? this.pipelineOf(definition).scopes : [];
  }

  /** True while any call is running (graceful shutdown waits for this to turn false). */
  get busy(): boolean {
    return this.stats.liveScopes > 0;
  }

  /** The handler's pipeline with app-level guards and interceptors merged in (built once). */
  pipelineOf(definition: Handled): HandlerPipeline {
    let pipeline = this.pipelines.get(definition);
    if (!pipeline) {
      const own = definition.pipeline;
      pipeline =
        this.appGuards.length === 0 && this.appInterceptors.length === 0
          ? own
          : Object.freeze({
              guards: Object.freeze([...this.appGuards, ...own.guards]),
              interceptors: Object.freeze([...this.appInterceptors, ...own.interceptors]),
              scopes: own.scopes,
            });
      this.pipelines.set(definition, pipeline);
    }
    return pipeline;
  }

  /** Whether the caller may use (or see) a handler: its scopes, then its guards. */
  private async allowed(
    definition: Handled,
    kind: ExecutionContext['kind'],
    name: string,
    phase: 'list' | 'call',
    ctx: Context,
  ): Promise<boolean> {
    const pipeline = this.pipelineOf(definition);
    if (pipeline.guards.length === 0 && pipeline.scopes.length === 0) return true;
    const execution: ExecutionContext = {
      kind,
      name,
      phase,
      serverClass: definition.serverClass,
      methodName: definition.methodName,
      context: ctx,
      principal: ctx.principal,
    };
    if (pipeline.guards.length === 0) return isAllowed(pipeline, execution, undefined);
    const scope = this.container.createScope(ctx);
    try {
      return await isAllowed(pipeline, execution, scope);
    } finally {
      try {
        await scope.dispose();
      } catch (error) {
        // Like a call's own scope: a failing dispose is reported, never sent to the caller.
        this.reportError(error, { tool: `${name} (guards)`, requestId: ctx.requestId });
      }
    }
  }

  /** The list a caller sees: the cached list when nothing is guarded, else filtered by the guards. */
  private async visible<D extends Handled, V>(
    catalog: Catalog<D, V>,
    kind: ExecutionContext['kind'],
    sdkCtx: ServerContext,
    server: SdkMcpServer['server'] | undefined,
  ): Promise<readonly V[]> {
    // Whether anything enabled is guarded is worked out once per catalog change, so an unguarded
    // list request returns the cached list without walking the definitions.
    let memo = this.guardedMemo.get(catalog);
    if (!memo || memo.revision !== catalog.revision) {
      const guarded = catalog
        .enabledDefinitions()
        .some((d) => this.pipelineOf(d).guards.length > 0 || this.pipelineOf(d).scopes.length > 0);
      memo = { revision: catalog.revision, guarded };
      this.guardedMemo.set(catalog, memo);
    }
    if (!memo.guarded) return catalog.list();
    const definitions = catalog.enabledDefinitions();
    const ctx = this.contextOf(sdkCtx, server);
    const views = catalog.list();
    const out: V[] = [];
    for (let i = 0; i < definitions.length; i++) {
      const d = definitions[i] as D;
      const name = 'uri' in d ? d.uri : d.name;
      if (await this.allowed(d, kind, name, 'list', ctx)) out.push(views[i] as V);
    }
    return out;
  }

  /** Wraps a request handler in the app's middleware (none: the handler itself). */
  private withMiddleware(
    method: string,
    handler: (request: never, ctx: ServerContext) => unknown,
    server: SdkMcpServer['server'],
  ): (request: never, ctx: ServerContext) => unknown {
    if (this.middleware.length === 0) return handler;
    return async (request, sdkCtx) => {
      const info: McpRequestInfo = {
        method,
        params: (request as { params?: Record<string, unknown> }).params,
        context: this.contextOf(sdkCtx, server),
      };
      const fromHandler = new WeakSet<object>();
      let next = async () => {
        try {
          return await handler(request, sdkCtx);
        } catch (error) {
          if (typeof error === 'object' && error !== null) fromHandler.add(error);
          throw error;
        }
      };
      for (let i = this.middleware.length - 1; i >= 0; i--) {
        const middleware = this.middleware[i] as Middleware;
        const inner = next;
        next = () => middleware(info, inner);
      }
      try {
        return await next();
      } catch (error) {
        if (typeof error === 'object' && error !== null && fromHandler.has(error)) throw error;
        // Seed rule: an exception from middleware is answered as JSON-RPC -32603.
        this.reportError(error, { tool: `middleware (${method})`, requestId: sdkCtx.mcpReq.id });
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          this.production ? maskedMessage(`${method} middleware`, sdkCtx.mcpReq.id) : messageOf(error),
        );
      }
    };
  }

  // ---- notifications --------------------------------------------------------------------------

  /** Tells subscribers that `uri` changed: 2025-11-25 connections that subscribed, and 2026-07-28 listeners. */
  resourceUpdated(uri: string): void {
    for (const server of this.live) {
      const modern = server.mcp.server.getNegotiatedProtocolVersion() === MODERN;
      // On a modern stdio connection the SDK routes it to matching subscriptions/listen streams.
      if (modern || server.subscriptions.has(uri)) void server.mcp.server.sendResourceUpdated({ uri }).catch(() => undefined);
    }
    for (const notifier of this.notifiers) notifier.resourceUpdated(uri);
  }

  toolsChanged(): void {
    for (const server of this.live) if (server.mcp.isConnected()) void server.mcp.server.sendToolListChanged().catch(() => undefined);
    for (const notifier of this.notifiers) notifier.toolsChanged();
  }

  resourcesChanged(): void {
    for (const server of this.live) if (server.mcp.isConnected()) void server.mcp.server.sendResourceListChanged().catch(() => undefined);
    for (const notifier of this.notifiers) notifier.resourcesChanged();
  }

  promptsChanged(): void {
    for (const server of this.live) if (server.mcp.isConnected()) void server.mcp.server.sendPromptListChanged().catch(() => undefined);
    for (const notifier of this.notifiers) notifier.promptsChanged();
  }

  /** Number of long-lived connections currently open. */
  get connections(): number {
    return this.live.size;
  }
}
