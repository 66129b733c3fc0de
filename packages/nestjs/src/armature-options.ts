import type { AuthOptions, CreateMcpAppOptions, HttpEndpointOptions, StdioOptions } from '@armature/core';
import type { CanActivate, InjectionToken, ModuleMetadata, OptionalFactoryDependency, Type } from '@nestjs/common';

/** The Armature principal made from the user a Nest guard authenticated (`extra.sub` names the user). */
export interface NestPrincipal {
  readonly clientId: string;
  readonly scopes: string[];
  /** Seconds since the epoch; a principal past it is refused. */
  readonly expiresAt?: number;
  readonly extra: Record<string, unknown> & { readonly sub: string };
}

/**
 * Bearer-token auth by the guard your REST routes use (`AuthGuard('jwt')`), run when the MCP
 * request arrives: what it puts on `request.user` becomes the Armature principal, so scopes
 * (`@RequireScopes`), session and task ownership follow the Nest user. A refused token is answered
 * 401 with `WWW-Authenticate`, as MCP authorization says; `resource` and `authorizationServers`
 * are advertised in the protected-resource metadata.
 */
export interface ArmatureGuardAuthOptions extends Omit<AuthOptions, 'verifier'> {
  /** The guard that authenticates the bearer token, as a class (built by Nest's injector) or an instance. */
  guard: Type<CanActivate> | CanActivate;
  /** The principal for the user the guard left on `request.user`. */
  principal: (user: never) => NestPrincipal;
}

/** The Streamable HTTP endpoint Armature mounts on Nest's HTTP adapter. */
export interface ArmatureHttpOptions extends HttpEndpointOptions {
  /** Path of the MCP endpoint, on Nest's own port. Default `/mcp`. */
  path?: string;
  /** Authenticate MCP requests with a Nest guard (instead of `auth`'s `TokenVerifier`). */
  authenticate?: ArmatureGuardAuthOptions;
}

/** What `ArmatureModule.forRoot` takes: `createMcpApp`'s options, less the container (Nest's injector is). */
export interface ArmatureModuleOptions extends Omit<CreateMcpAppOptions, 'container'> {
  /**
   * The Streamable HTTP endpoint on Nest's HTTP adapter (Express or Fastify), mounted behind the
   * app's middleware with Nest's body parsers skipping it, so that Armature reads the raw body with
   * its own limits. Default `{ path: '/mcp' }`; `false` mounts nothing. Ignored by a standalone
   * application context (no HTTP adapter).
   */
  http?: ArmatureHttpOptions | false;
  /**
   * Serve over stdin/stdout once Nest has bootstrapped, typically with
   * `NestFactory.createApplicationContext(AppModule, { logger: false })` (Nest's logger writes to stdout).
   */
  stdio?: boolean | StdioOptions;
  /** How long running calls may finish when Nest shuts down, before sessions are closed. Default 10 s. */
  shutdownDeadlineMs?: number;
}

/** `ArmatureModule.forRootAsync`: options made by a factory, e.g. from `ConfigService`. */
export interface ArmatureModuleAsyncOptions {
  imports?: ModuleMetadata['imports'];
  inject?: Array<InjectionToken | OptionalFactoryDependency>;
  useFactory: (...args: never[]) => ArmatureModuleOptions | Promise<ArmatureModuleOptions>;
}
