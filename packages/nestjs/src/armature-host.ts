import {
  ArmatureBuildError,
  type AuthOptions,
  type BuildProblem,
  type Constructor,
  createMcpApp,
  type Guard,
  type Interceptor,
  type McpApp,
  type Provided,
} from '@armature/core';
import {
  type BeforeApplicationShutdown,
  type CanActivate,
  type ExceptionFilter,
  Inject,
  Injectable,
  type NestInterceptor,
  type OnApplicationBootstrap,
  type OnModuleInit,
  Optional,
  type PipeTransform,
  type Type,
} from '@nestjs/common';
import { EXCEPTION_FILTERS_METADATA, GUARDS_METADATA, INTERCEPTORS_METADATA, PIPES_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig, DiscoveryService, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { ArmatureGuardAuthOptions, ArmatureModuleOptions } from './armature-options.js';
import { discoverServers } from './discover-servers.js';
import { withHttpExceptions } from './http-exceptions.js';
import { mountOnHttpAdapter } from './http-mount.js';
import { NestContainerAdapter } from './nest-container-adapter.js';
import { NestEnhancers } from './nest-enhancers.js';
import { NestGuardVerifier } from './nest-guard.verifier.js';
import { NestGuardsGuard } from './nest-guards.js';
import { NestInterceptorsInterceptor } from './nest-interceptors.js';
import { nestMessages } from './nest-messages.js';
import { isValidationPipe } from './nest-pipes.js';
import { ARMATURE_OPTIONS } from './tokens.js';

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

  constructor(
    @Inject(ARMATURE_OPTIONS) private readonly options: ArmatureModuleOptions,
    private readonly discovery: DiscoveryService,
    private readonly moduleRef: ModuleRef,
    private readonly config: ApplicationConfig,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  /** The built Armature app (available once Nest has initialised its modules). */
  get app(): McpApp {
    if (!this.built) throw new Error(nestMessages.notBuilt());
    return this.built;
  }

  onModuleInit(): void {
    const { servers, problems } = discoverServers(this.discovery);
    const adapter = new NestContainerAdapter(this.moduleRef, (token) => this.knows(token));
    const config = this.config;
    // Global enhancers are read where Nest keeps them (useGlobal* and APP_* alike), statics first.
    const guards = new NestEnhancers<CanActivate>(this.moduleRef, GUARDS_METADATA, {
      statics: () => config.getGlobalGuards(),
      requestScoped: () => config.getGlobalRequestGuards().map((wrapper) => wrapper.token),
    });
    const interceptors = new NestEnhancers<NestInterceptor>(this.moduleRef, INTERCEPTORS_METADATA, {
      statics: () => config.getGlobalInterceptors(),
      requestScoped: () => config.getGlobalRequestInterceptors().map((wrapper) => wrapper.token),
    });
    const filters = new NestEnhancers<ExceptionFilter>(this.moduleRef, EXCEPTION_FILTERS_METADATA, {
      statics: () => config.getGlobalFilters(),
      requestScoped: () => config.getGlobalRequestFilters().map((wrapper) => wrapper.token),
    });
    // Validation pipes have nothing left to do on MCP: Armature validated the DTO with the same rules.
    const pipes = new NestEnhancers<PipeTransform>(this.moduleRef, PIPES_METADATA, {
      statics: () => config.getGlobalPipes().filter((pipe) => !isValidationPipe(pipe)),
      requestScoped: () =>
        config
          .getGlobalRequestPipes()
          .filter((wrapper) => !isValidationPipe(wrapper.metatype))
          .map((wrapper) => wrapper.token),
    });
    for (const server of servers) {
      adapter.provide(server.serverClass, server.token, server.instance);
      guards.addServer(server.serverClass);
      interceptors.addServer(server.serverClass);
      filters.addServer(server.serverClass);
      pipes.addServer(server.serverClass);
    }
    if (servers.length === 0) throw new ArmatureBuildError([nestMessages.noServer()], nestMessages.heading, nestMessages.scope);
    const http = this.options.http === false ? undefined : (this.options.http ?? {});
    if (http?.auth && http.authenticate) problems.push(nestMessages.authTwice());
    const appGuards: Provided<Guard>[] = [...(this.options.guards ?? [])];
    if (guards.any) {
      adapter.providePerCall(NestGuardsGuard, (scope) => new NestGuardsGuard(guards, scope));
      appGuards.unshift(NestGuardsGuard);
    }
    // Nest's interceptors run inside Armature's app-level ones, as the class and method level do.
    const appInterceptors: Provided<Interceptor>[] = [...(this.options.interceptors ?? [])];
    if (interceptors.any || filters.any || pipes.any) {
      adapter.providePerCall(NestInterceptorsInterceptor, (scope) => new NestInterceptorsInterceptor(interceptors, filters, pipes, scope));
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
    if (http) {
      const { authenticate, ...endpoint } = http;
      const handler = app.httpHandler(authenticate ? { ...endpoint, auth: this.guardAuth(authenticate) } : endpoint);
      mountOnHttpAdapter(this.adapterHost, http.path ?? '/mcp', (req, res) => void handler(req, res));
    }
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

  /** `http.authenticate` as core's `auth`: the guard (built once by Nest's injector) behind a `TokenVerifier`. */
  private guardAuth({ guard, principal, ...auth }: ArmatureGuardAuthOptions): AuthOptions {
    let instance: Promise<CanActivate> | undefined;
    const built = () => (instance ??= typeof guard === 'function' ? this.moduleRef.create(guard) : Promise.resolve(guard));
    return { ...auth, verifier: new NestGuardVerifier(built, principal) };
  }

  private knows(token: Constructor): boolean {
    try {
      this.moduleRef.introspect(token as Type);
      return true;
    } catch {
      return false;
    }
  }
}
