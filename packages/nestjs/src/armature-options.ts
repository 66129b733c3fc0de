import type { CreateMcpAppOptions, HttpEndpointOptions, StdioOptions } from '@armature/core';
import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';

/** The Streamable HTTP endpoint Armature mounts on Nest's HTTP adapter. */
export interface ArmatureHttpOptions extends HttpEndpointOptions {
  /** Path of the MCP endpoint, on Nest's own port. Default `/mcp`. */
  path?: string;
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
