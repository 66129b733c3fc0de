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
import { validateInput } from '../validation/dto-validator.js';
import { formatIssues } from '../validation/validation-issue.js';
import { Catalog, paginate } from './catalog.js';
import { type Context, SdkRequestContext } from './context.js';
import { invokeTool, messageOf, type RuntimeStats, type ToolErrorReporter, type ToolInvoker } from './invoke-tool.js';
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
}

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
export class AppRuntime implements ToolInvoker {
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

  constructor(
    readonly definition: AppDefinition,
    readonly container: ContainerAdapter,
    readonly reportError: ToolErrorReporter,
    options: RuntimeOptions = {},
  ) {
    this.pageSize = options.pageSize ?? 100;
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

    server.setRequestHandler('tools/list', (request) => {
      const page = paginate(this.tools.list(), request.params?.cursor, this.pageSize);
      return { tools: page.items as Tool[], ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    });
    server.setRequestHandler('tools/call', (request, ctx) => this.callTool(request.params.name, request.params.arguments, ctx, server));

    if (this.capabilities.resources) {
      server.setRequestHandler('resources/list', (request) => {
        const page = paginate(this.resources.list(), request.params?.cursor, this.pageSize);
        return { resources: page.items as Resource[], ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
      });
      server.setRequestHandler('resources/templates/list', (request) => {
        const page = paginate(this.resourceTemplates.list(), request.params?.cursor, this.pageSize);
        return { resourceTemplates: page.items as ResourceTemplateType[], ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
      });
      server.setRequestHandler('resources/read', (request, ctx) => this.readResource(request.params.uri, ctx, server));
      // resources/subscribe is a 2025-11-25 method the SDK does not implement (2026-07-28 uses
      // subscriptions/listen, served by the SDK's entry points).
      server.setRequestHandler('resources/subscribe', (request) => {
        this.assertKnownResource(request.params.uri);
        live.subscriptions.add(request.params.uri);
        return {};
      });
      server.setRequestHandler('resources/unsubscribe', (request) => {
        live.subscriptions.delete(request.params.uri);
        return {};
      });
    }
    if (this.capabilities.prompts) {
      server.setRequestHandler('prompts/list', (request) => {
        const page = paginate(this.prompts.list(), request.params?.cursor, this.pageSize);
        return { prompts: page.items as Prompt[], ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
      });
      server.setRequestHandler('prompts/get', (request, ctx) => this.getPrompt(request.params.name, request.params.arguments, ctx, server));
    }
    if (this.capabilities.completions) {
      server.setRequestHandler('completion/complete', (request, ctx) => this.complete(request.params, ctx, server));
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

  callTool(name: string, args: unknown, sdkCtx: ServerContext, server?: SdkMcpServer['server']) {
    const tool = this.tools.get(name);
    if (!tool) {
      // Spec 2025-11-25, tools: an unknown tool is a protocol error (-32602), not a tool result.
      const names = this.tools.list().map((t) => t.name);
      const hint =
        names.length <= 20 ? `Available tools: ${names.join(', ')}` : `Call tools/list to see the ${names.length} available tools`;
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: "${name}". ${hint}`);
    }
    return invokeTool(this, tool, args, new SdkRequestContext(sdkCtx, { server, codec: this.codec }));
  }

  private assertKnownResource(uri: string): void {
    if (this.resources.get(uri)) return;
    if (this.resourceTemplates.enabledDefinitions().some((t) => t.template.match(uri))) return;
    throw new ResourceNotFoundError(uri);
  }

  async readResource(uri: string, sdkCtx: ServerContext, server?: SdkMcpServer['server']): Promise<ReadResourceResult> {
    const ctx = new SdkRequestContext(sdkCtx, { server, codec: this.codec });
    const resource = this.resources.get(uri);
    if (resource) {
      return this.run(resource.serverClass, ctx, resource.where, async (instance) =>
        toReadResourceResult(uri, resource.descriptor.mimeType, await resource.method.call(instance, ctx)),
      );
    }
    for (const template of this.resourceTemplates.enabledDefinitions()) {
      const variables = template.template.match(uri);
      if (!variables) continue;
      const params = template.params
        ? await this.validateParams(template.params, variables, `resource template "${template.name}"`)
        : undefined;
      return this.run(template.serverClass, ctx, template.where, async (instance) => {
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
    if (!prompt) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown prompt: "${name}". Available prompts: ${this.prompts.keys().join(', ')}`,
      );
    }
    const ctx = new SdkRequestContext(sdkCtx, { server, codec: this.codec });
    const input = prompt.args ? await this.validateParams(prompt.args, args ?? {}, `prompt "${name}"`) : undefined;
    return this.run(prompt.serverClass, ctx, prompt.where, async (instance) => {
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
    if (params.ref.type === 'ref/prompt') {
      const prompt = this.prompts.get(params.ref.name ?? '');
      if (!prompt) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: "${params.ref.name}"`);
      completions = prompt.completions;
    } else if (params.ref.type === 'ref/resource') {
      const template = this.resourceTemplates.enabledDefinitions().find((t) => t.descriptor.uriTemplate === params.ref.uri);
      // A fixed resource URI has nothing to complete.
      if (!template && !this.resources.get(params.ref.uri ?? '')) {
        throw new ResourceNotFoundError(params.ref.uri ?? '');
      }
      completions = template?.completions;
    }
    const source = completions?.get(params.argument.name);
    if (!source) return { completion: { values: [] } };
    const context = { argument: params.argument.name, arguments: params.context?.arguments ?? {} };
    const ctx = new SdkRequestContext(sdkCtx, { server, codec: this.codec });
    const values =
      source.kind === 'function'
        ? await source.fn(params.argument.value, context)
        : await this.run(source.serverClass, ctx, 'completion', async (instance) =>
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

  /** A resource, prompt or completion method: McpError passes through, anything else is -32603 with its message. */
  private async run<T>(serverClass: Constructor, ctx: Context, where: string, work: (instance: unknown) => Promise<T>): Promise<T> {
    try {
      return await inScope(this, serverClass, ctx, where, work);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      this.reportError(error, { tool: where, requestId: ctx.requestId });
      throw new ProtocolError(ProtocolErrorCode.InternalError, messageOf(error));
    }
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
