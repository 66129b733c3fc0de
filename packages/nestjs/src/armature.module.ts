import { Context, Principal } from '@armature/core';
import { type DynamicModule, Module, type Provider, Scope } from '@nestjs/common';
import { DiscoveryModule, REQUEST } from '@nestjs/core';
import { ArmatureHost } from './armature-host.js';
import type { ArmatureModuleAsyncOptions, ArmatureModuleOptions } from './armature-options.js';
import { isMcpRequest } from './mcp-request.js';
import { ARMATURE_OPTIONS, MCP_CONTEXT } from './tokens.js';

/** The call's Context and Principal for request-scoped providers (undefined while serving REST). */
const PER_CALL_PROVIDERS: Provider[] = [
  {
    provide: MCP_CONTEXT,
    scope: Scope.REQUEST,
    inject: [REQUEST],
    useFactory: (request: unknown) => (isMcpRequest(request) ? request.context : undefined),
  },
  { provide: Context, useExisting: MCP_CONTEXT },
  {
    provide: Principal,
    scope: Scope.REQUEST,
    inject: [REQUEST],
    useFactory: (request: unknown) => (isMcpRequest(request) ? request.principal : undefined),
  },
];

const EXPORTS = [ArmatureHost, MCP_CONTEXT, Context, Principal];

/**
 * Serves the app's `@McpServer` providers over MCP, with Nest's injector, guards and lifecycle.
 * Import it once (it is global): every module's `@McpServer` providers are found.
 *
 * @example
 * ```ts
 * @Module({ imports: [ArmatureModule.forRoot({ http: { path: '/mcp' } }), NotesModule] })
 * class AppModule {}
 * ```
 */
@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest dynamic module is a class with static forRoot/forRootAsync
export class ArmatureModule {
  static forRoot(options: ArmatureModuleOptions = {}): DynamicModule {
    return {
      module: ArmatureModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [{ provide: ARMATURE_OPTIONS, useValue: options }, ...PER_CALL_PROVIDERS, ArmatureHost],
      exports: EXPORTS,
    };
  }

  /**
   * Options made by a factory, e.g. from `ConfigService`.
   *
   * @example
   * ```ts
   * ArmatureModule.forRootAsync({
   *   imports: [ConfigModule],
   *   inject: [ConfigService],
   *   useFactory: (config: ConfigService) => ({ http: { path: config.get('MCP_PATH') } }),
   * })
   * ```
   */
  static forRootAsync(options: ArmatureModuleAsyncOptions): DynamicModule {
    return {
      module: ArmatureModule,
      global: true,
      imports: [DiscoveryModule, ...(options.imports ?? [])],
      providers: [
        { provide: ARMATURE_OPTIONS, inject: options.inject ?? [], useFactory: options.useFactory as (...args: unknown[]) => unknown },
        ...PER_CALL_PROVIDERS,
        ArmatureHost,
      ],
      exports: EXPORTS,
    };
  }
}
