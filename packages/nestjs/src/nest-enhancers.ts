import { type Constructor, getMetadataStorage, type MetadataStorage } from '@armature/core';
import { Scope, type Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { HANDLER_KINDS } from './discover-servers.js';
import type { NestRequestScope } from './nest-container-adapter.js';

/** A Nest guard or interceptor as settled at start-up: its singleton, or the token to resolve in each call's context. */
export interface EnhancerRef<T> {
  readonly instance?: T;
  readonly token?: unknown;
}

/** The enhancers of one handler, and the method Nest's `getHandler()` returns for it. */
export interface HandlerEnhancers<T> {
  readonly handler: Function;
  readonly enhancers: readonly EnhancerRef<T>[];
}

/**
 * Nest's guards or interceptors (one metadata key) for each MCP handler: the global ones, then
 * those on the server class, then on the method, as Nest orders them for a controller. Worked out
 * once at start-up; a request-scoped one is resolved in the call's Nest context.
 */
export class NestEnhancers<T> {
  private readonly byHandler = new Map<Constructor, Map<string, HandlerEnhancers<T>>>();
  private count = 0;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly metadataKey: string,
  ) {}

  /** True when some handler has at least one (else the bridge stays out of the way). */
  get any(): boolean {
    return this.count > 0;
  }

  /** A global enhancer (`APP_GUARD`, `APP_INTERCEPTOR`) from the provider Nest made of it. */
  static globalRef<T>(instance: unknown, token: unknown): EnhancerRef<T> {
    return instance !== undefined ? Object.freeze({ instance: instance as T }) : Object.freeze({ token });
  }

  /** Settles the enhancers of every handler of `serverClass`. */
  addServer(serverClass: Constructor, global: readonly EnhancerRef<T>[], storage: MetadataStorage = getMetadataStorage()): void {
    const onClass = this.refsOf(Reflect.getMetadata(this.metadataKey, serverClass));
    const byMethod = new Map<string, HandlerEnhancers<T>>();
    for (const kind of HANDLER_KINDS) {
      for (
        let target: unknown = serverClass;
        typeof target === 'function' && target !== Function.prototype;
        target = Object.getPrototypeOf(target)
      ) {
        for (const { methodName } of storage.handlersOf(target as Constructor, kind)) {
          if (byMethod.has(methodName)) continue;
          const handler = (serverClass.prototype as Record<string, Function>)[methodName] as Function;
          const enhancers = [...global, ...onClass, ...this.refsOf(Reflect.getMetadata(this.metadataKey, handler))];
          this.count += enhancers.length;
          byMethod.set(methodName, Object.freeze({ handler, enhancers: Object.freeze(enhancers) }));
        }
      }
    }
    this.byHandler.set(serverClass, byMethod);
  }

  /** The handler's enhancers, or undefined when it has none. */
  of(serverClass: Constructor, methodName: string): HandlerEnhancers<T> | undefined {
    const entry = this.byHandler.get(serverClass)?.get(methodName);
    return entry && entry.enhancers.length > 0 ? entry : undefined;
  }

  /** The instance for this call: the singleton, or one built in the call's Nest context. */
  static instanceOf<T>(ref: EnhancerRef<T>, scope: NestRequestScope): T | Promise<T> {
    return ref.instance ?? scope.resolve<T>(ref.token);
  }

  private refsOf(listed: unknown): EnhancerRef<T>[] {
    if (!Array.isArray(listed)) return [];
    return listed.map((item) => {
      if (typeof item !== 'function') return Object.freeze({ instance: item as T });
      // Nest registers every class named in @UseGuards/@UseInterceptors as an injectable of the host module.
      const { scope } = this.moduleRef.introspect(item as Type);
      return Object.freeze(
        scope === Scope.DEFAULT || scope === undefined
          ? { instance: this.moduleRef.get(item as Constructor, { strict: false }) as T }
          : { token: item },
      );
    });
  }
}
