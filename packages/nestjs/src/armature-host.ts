import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ArmatureBuildError,
  type BuildProblem,
  type Constructor,
  createMcpApp,
  type Guard,
  type Interceptor,
  type McpApp,
  type McpHttpHandler,
  type Provided,
} from '@armature/core';
import {
  type BeforeApplicationShutdown,
  type CanActivate,
  Inject,
  Injectable,
  type NestInterceptor,
  type OnApplicationBootstrap,
  type OnModuleInit,
  Optional,
  type Type,
} from '@nestjs/common';
import { GUARDS_METADATA, INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import { APP_GUARD, APP_INTERCEPTOR, DiscoveryService, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { ArmatureModuleOptions } from './armature-options.js';
import { discoverServers } from './discover-servers.js';
import { withHttpExceptions } from './http-exceptions.js';
import { mountOnHttpAdapter } from './http-mount.js';
import { NestContainerAdapter } from './nest-container-adapter.js';
import { type EnhancerRef, NestEnhancers } from './nest-enhancers.js';
import { NestGuardsGuard } from './nest-guards.js';
import { NestInterceptorsInterceptor } from './nest-interceptors.js';
import { nestMessages } from './nest-messages.js';
import { ARMATURE_OPTIONS } from './tokens.js';

interface GlobalEnhancerWrapper {
  readonly token: unknown;
  readonly instance: unknown;
  readonly isTransient: boolean;
  isDependencyTreeStatic(): boolean;
}

/**
 * The MCP side of a Nest app: finds the `@McpServer` providers when Nest initialises its modules,
 * builds the Armature app from them once (one `ArmatureBuildError` for every problem), serves it on
 * Nest's HTTP adapter and/or stdio, and shuts it down with Nest.
 *
 * @example
 * ```ts
 * const app = await NestFactory.create(AppModule);
 * await app.listen(3000);
 * app.get(ArmatureHost).app.notifyResourceUpdated('notes://all');
 * ```
 */
@Injectable()
export class ArmatureHost implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private built?: McpApp;
  private handler?: McpHttpHandler;

  constructor(
    @Inject(ARMATURE_OPTIONS) private readonly options: ArmatureModuleOptions,
    private readonly discovery: DiscoveryService,
    private readonly moduleRef: ModuleRef,
    @Optional() adapterHost?: HttpAdapterHost,
  ) {
    if (options.http !== false) {
      mountOnHttpAdapter(adapterHost, options.http?.path ?? '/mcp', (req, res) => this.serveHttp(req, res));
    }
  }

  /** The built Armature app (available once Nest has initialised its modules). */
  get app(): McpApp {
    if (!this.built) throw new Error(nestMessages.notBuilt());
    return this.built;
  }

  onModuleInit(): void {
    const { servers, problems } = discoverServers(this.discovery);
    const adapter = new NestContainerAdapter(this.moduleRef, (token) => this.knows(token));
    const guards = new NestEnhancers<CanActivate>(this.moduleRef, GUARDS_METADATA);
    const interceptors = new NestEnhancers<NestInterceptor>(this.moduleRef, INTERCEPTORS_METADATA);
    const globalGuards = this.globalEnhancers<CanActivate>(APP_GUARD);
    const globalInterceptors = this.globalEnhancers<NestInterceptor>(APP_INTERCEPTOR);
    for (const server of servers) {
      adapter.provide(server.serverClass, server.token, server.instance);
      guards.addServer(server.serverClass, globalGuards);
      interceptors.addServer(server.serverClass, globalInterceptors);
    }
    if (servers.length === 0) throw new ArmatureBuildError([nestMessages.noServer()], nestMessages.heading, nestMessages.scope);
    const appGuards: Provided<Guard>[] = [...(this.options.guards ?? [])];
    if (guards.any) {
      adapter.providePerCall(NestGuardsGuard, (scope) => new NestGuardsGuard(guards, scope));
      appGuards.unshift(NestGuardsGuard);
    }
    // Nest's interceptors run inside Armature's app-level ones, as the class and method level do.
    const appInterceptors: Provided<Interceptor>[] = [...(this.options.interceptors ?? [])];
    if (interceptors.any) {
      adapter.providePerCall(NestInterceptorsInterceptor, (scope) => new NestInterceptorsInterceptor(interceptors, scope));
      appInterceptors.push(NestInterceptorsInterceptor);
    }
    // Nest's problems and the builder's are reported together, in one error.
    let app: McpApp | undefined;
    const all: BuildProblem[] = [...problems];
    try {
      app = createMcpApp(
        servers.map((server) => server.serverClass),
        {
          ...this.options,
          guards: appGuards,
          interceptors: appInterceptors,
          errorFilter: withHttpExceptions(this.options.errorFilter),
          container: adapter,
        },
      );
    } catch (error) {
      if (!(error instanceof ArmatureBuildError)) throw error;
      all.push(...error.problems);
    }
    if (all.length > 0 || !app) throw new ArmatureBuildError(all, nestMessages.heading, nestMessages.scope);
    this.built = app;
    if (this.options.http !== false) this.handler = app.httpHandler(this.options.http ?? {});
  }

  onApplicationBootstrap(): void {
    const stdio = this.options.stdio;
    // The app tracks the handle: its shutdown closes stdio as well.
    if (stdio) this.app.listenStdio(stdio === true ? {} : stdio);
  }

  /** Lets running calls finish (up to `shutdownDeadlineMs`), then closes MCP sessions and streams. */
  async beforeApplicationShutdown(): Promise<void> {
    // The endpoint answers 503 to new requests from here on, while running calls finish.
    await this.built?.shutdown(this.options.shutdownDeadlineMs ?? 10_000);
  }

  private serveHttp(req: IncomingMessage, res: ServerResponse): void {
    const handler = this.handler;
    if (handler) {
      void handler(req, res);
      return;
    }
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: nestMessages.notReady() } }));
  }

  private knows(token: Constructor): boolean {
    try {
      this.moduleRef.introspect(token as Type);
      return true;
    } catch {
      return false;
    }
  }

  /** The `APP_GUARD` or `APP_INTERCEPTOR` providers, in the order Nest applies them. */
  private globalEnhancers<T>(kind: string): EnhancerRef<T>[] {
    const refs: EnhancerRef<T>[] = [];
    for (const wrapper of this.discovery.getProviders() as unknown as GlobalEnhancerWrapper[]) {
      // Nest registers each under the token `APP_GUARD (UUID: ...)`.
      if (typeof wrapper.token !== 'string' || !wrapper.token.startsWith(`${kind} `)) continue;
      const isStatic = wrapper.isDependencyTreeStatic() && !wrapper.isTransient;
      refs.push(NestEnhancers.globalRef<T>(isStatic ? wrapper.instance : undefined, wrapper.token));
    }
    return refs;
  }
}
