import { type Constructor, getMetadataStorage, type MetadataStorage } from '@armature/core';
import { Scope, type Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { HANDLER_KINDS } from './discover-servers.js';
import type { NestRequestScope } from './nest-container-adapter.js';

/** A Nest enhancer as settled at start-up: its singleton, or the token to resolve in each call's context. */
export interface EnhancerRef<T> {
  readonly instance?: T;
  readonly token?: unknown;
}

/** The enhancers of one handler, and the method Nest's `getHandler()` returns for it. */
export interface HandlerEnhancers<T> {
  readonly handler: Function;
  readonly enhancers: readonly EnhancerRef<T>[];
}

/** Where an enhancer kind's global ones live (`useGlobalGuards` and `APP_GUARD`, say), read per call as Nest does. */
export interface GlobalEnhancerSource<T> {
  /** The singletons, in the order Nest applies them. */
  statics(): readonly T[];
  /** The tokens of the request-scoped or transient `APP_*` providers, applied after the singletons. */
  requestScoped(): readonly unknown[];
}

interface HandlerEntry<T> {
  readonly handler: Function;
  readonly local: readonly EnhancerRef<T>[];
}

/**
 * Nest's guards, interceptors or filters (one metadata key) for each MCP handler: the global ones,
 * then those on the server class, then on the method, as Nest orders them for a controller
 * (filters are asked in the reverse order: method first). Class and method ones are worked out
 * once at start-up; the global ones are read per call, so one added by `useGlobal*` after
 * `ArmatureModule` started applies as it does to REST. A request-scoped one is resolved in the
 * call's Nest context.
 */
export class NestEnhancers<T> {
  private readonly byHandler = new Map<Constructor, Map<string, HandlerEntry<T>>>();
  private localCount = 0;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly metadataKey: string,
    private readonly globals: GlobalEnhancerSource<T>,
  ) {}

  /** True when some handler has at least one (else the bridge stays out of the way). */
  get any(): boolean {
    return this.localCount > 0 || this.globals.statics().length > 0 || this.globals.requestScoped().length > 0;
  }

  /** Settles the class and method enhancers of every handler of `serverClass`. */
  addServer(serverClass: Constructor, storage: MetadataStorage = getMetadataStorage()): void {
    const onClass = this.refsOf(Reflect.getMetadata(this.metadataKey, serverClass));
    const byMethod = new Map<string, HandlerEntry<T>>();
    for (const kind of HANDLER_KINDS) {
      for (
        let target: unknown = serverClass;
        typeof target === 'function' && target !== Function.prototype;
        target = Object.getPrototypeOf(target)
      ) {
        for (const { methodName } of storage.handlersOf(target as Constructor, kind)) {
          if (byMethod.has(methodName)) continue;
          const handler = (serverClass.prototype as Record<string, Function>)[methodName] as Function;
          const local = [...onClass, ...this.refsOf(Reflect.getMetadata(this.metadataKey, handler))];
          this.localCount += local.length;
          byMethod.set(methodName, Object.freeze({ handler, local: Object.freeze(local) }));
        }
      }
    }
    this.byHandler.set(serverClass, byMethod);
  }

  /** The handler's enhancers, global first, or undefined when it is not an MCP handler. */
  of(serverClass: Constructor, methodName: string): HandlerEnhancers<T> | undefined {
    const entry = this.byHandler.get(serverClass)?.get(methodName);
    if (!entry) return undefined;
    const global: EnhancerRef<T>[] = [
      ...this.globals.statics().map((instance) => ({ instance })),
      ...this.globals.requestScoped().map((token) => ({ token })),
    ];
    return { handler: entry.handler, enhancers: global.length === 0 ? entry.local : [...global, ...entry.local] };
  }

  /** The instance for this call: the singleton, or one built in the call's Nest context. */
  static instanceOf<T>(ref: EnhancerRef<T>, scope: NestRequestScope): T | Promise<T> {
    return ref.instance ?? scope.resolve<T>(ref.token);
  }

  private refsOf(listed: unknown): EnhancerRef<T>[] {
    if (!Array.isArray(listed)) return [];
    return listed.map((item) => {
      if (typeof item !== 'function') return Object.freeze({ instance: item as T });
      // Nest registers every class named in @UseGuards/@UseInterceptors/@UseFilters as an injectable of the host module.
      const { scope } = this.moduleRef.introspect(item as Type);
      return Object.freeze(
        scope === Scope.DEFAULT || scope === undefined
          ? { instance: this.moduleRef.get(item as Constructor, { strict: false }) as T }
          : { token: item },
      );
    });
  }
}
