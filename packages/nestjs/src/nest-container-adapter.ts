import { type Constructor, type ContainerAdapter, Context, Principal, type RequestScope } from '@armature/core';
import { ContextIdFactory, type ModuleRef } from '@nestjs/core';
import { httpRequestStorage } from './http-request-storage.js';
import { type MutableMcpRequest, mcpRequestOf } from './mcp-request.js';
import { nestMessages } from './nest-messages.js';

/** A token this adapter answers from the call itself rather than from Nest's injector. */
type PerCallValue = (scope: NestRequestScope) => unknown;

/**
 * Nest's injector behind Armature's container seam. Singletons (the usual Nest provider) are
 * taken once at start-up and stay singletons; a request-scoped or transient provider, or one that
 * depends on one, gets a fresh instance per MCP call: each call has its own Nest context id, with
 * `REQUEST` bound to an `McpRequest`, a view of the HTTP request of the MCP POST (so
 * `MCP_CONTEXT` and `Context` inject the call's Context, and `request.user` what Passport found).
 * A provider that fails to build fails that call only, as a tool error.
 */
export class NestContainerAdapter implements ContainerAdapter {
  private readonly singletons = new Map<unknown, unknown>();
  private readonly perCall = new Map<unknown, PerCallValue>();
  /** Nest tokens of providers registered under another token than their class (`useClass`). */
  private readonly tokens = new Map<unknown, unknown>();
  private readonly known: (token: Constructor) => boolean;

  constructor(
    private readonly moduleRef: ModuleRef,
    known: (token: Constructor) => boolean,
  ) {
    this.known = known;
    this.perCall.set(Context, (scope) => scope.ctx);
    this.perCall.set(Principal, (scope) => scope.ctx.principal);
  }

  /** Registers what a token resolves to: the singleton when there is one, else the Nest token to resolve per call. */
  provide(token: Constructor, nestToken: unknown, singleton: unknown): void {
    if (singleton !== undefined) this.singletons.set(token, singleton);
    else if (nestToken !== token) this.tokens.set(token, nestToken);
  }

  /** Answers `token` from each call's scope (the guards bridge registers itself this way). */
  providePerCall(token: unknown, value: PerCallValue): void {
    this.perCall.set(token, value);
  }

  has(token: Constructor): boolean {
    return this.singletons.has(token) || this.perCall.has(token) || this.tokens.has(token) || this.known(token);
  }

  createScope(ctx: Context): NestRequestScope {
    return new NestRequestScope(this, this.moduleRef, ctx);
  }

  /** @internal */
  singletonOf(token: unknown): unknown {
    return this.singletons.get(token);
  }

  /** @internal */
  perCallOf(token: unknown): PerCallValue | undefined {
    return this.perCall.get(token);
  }

  /** @internal */
  nestTokenOf(token: unknown): unknown {
    return this.tokens.get(token) ?? token;
  }
}

/** One MCP call's Nest context: its context id and its `REQUEST`. */
export class NestRequestScope implements RequestScope {
  readonly contextId = ContextIdFactory.create();
  /** The call's `REQUEST`: a view of the HTTP request of the MCP POST (none over stdio). */
  readonly request: MutableMcpRequest;
  private disposed = false;

  constructor(
    private readonly adapter: NestContainerAdapter,
    private readonly moduleRef: ModuleRef,
    readonly ctx: Context,
  ) {
    this.request = mcpRequestOf(ctx, httpRequestStorage.getStore());
    moduleRef.registerRequestByContextId(this.request, this.contextId);
  }

  get<T>(token: Constructor<T>): T | Promise<T> {
    const singleton = this.adapter.singletonOf(token);
    if (singleton !== undefined) return singleton as T;
    const perCall = this.adapter.perCallOf(token);
    if (perCall) return perCall(this) as T;
    return this.resolve(this.adapter.nestTokenOf(token));
  }

  /** Resolves a Nest token in this call's context (request-scoped providers are built for it). */
  resolve<T>(nestToken: unknown): Promise<T> {
    if (this.disposed) return Promise.reject(new Error(nestMessages.scopeEnded(nestToken)));
    return this.moduleRef.resolve(nestToken as Constructor<T>, this.contextId, { strict: false });
  }

  dispose(): void {
    // Nest keeps per-context instances in weak maps keyed by the context id: dropping the id
    // (this scope) releases them. Nothing may resolve in it afterwards.
    this.disposed = true;
  }
}
