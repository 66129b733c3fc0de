import {
  type ExecutionContext as ArmatureExecution,
  type Constructor,
  type Guard,
  getMetadataStorage,
  type MetadataStorage,
} from '@armature/core';
import { type CanActivate, HttpException, Scope, type Type } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants.js';
import type { ModuleRef } from '@nestjs/core';
import { isObservable, lastValueFrom } from 'rxjs';
import { HANDLER_KINDS } from './discover-servers.js';
import { McpExecutionContext } from './mcp-execution-context.js';
import type { NestRequestScope } from './nest-container-adapter.js';

/** A Nest guard as settled at start-up: its singleton, or the token to resolve in each call's context. */
export interface NestGuardRef {
  readonly instance?: CanActivate;
  readonly token?: unknown;
}

interface HandlerGuards {
  readonly handler: Function;
  readonly guards: readonly NestGuardRef[];
}

/**
 * Nest's guards for MCP calls: the global ones (`APP_GUARD`), then `@UseGuards` on the server class,
 * then on the method, as Nest orders them for a controller. Worked out once at start-up per
 * handler; a guard that denies (returns false or throws an `HttpException`, as
 * `UnauthorizedException`) hides the tool from lists and refuses the call, exactly like an
 * Armature guard. Any other exception from a guard is a bug in it and fails the request.
 */
export class NestGuards {
  private readonly byHandler = new Map<Constructor, Map<string, HandlerGuards>>();
  private count = 0;

  constructor(private readonly moduleRef: ModuleRef) {}

  /** True when some handler has at least one Nest guard (else the bridge stays out of the way). */
  get any(): boolean {
    return this.count > 0;
  }

  /** Settles the guards of every handler of `serverClass`. */
  addServer(serverClass: Constructor, global: readonly NestGuardRef[], storage: MetadataStorage = getMetadataStorage()): void {
    const classGuards = this.refsOf(Reflect.getMetadata(GUARDS_METADATA, serverClass));
    const byMethod = new Map<string, HandlerGuards>();
    for (const kind of HANDLER_KINDS) {
      for (
        let target: unknown = serverClass;
        typeof target === 'function' && target !== Function.prototype;
        target = Object.getPrototypeOf(target)
      ) {
        for (const { methodName } of storage.handlersOf(target as Constructor, kind)) {
          if (byMethod.has(methodName)) continue;
          const handler = (serverClass.prototype as Record<string, Function>)[methodName] as Function;
          const guards = [...global, ...classGuards, ...this.refsOf(Reflect.getMetadata(GUARDS_METADATA, handler))];
          this.count += guards.length;
          byMethod.set(methodName, Object.freeze({ handler, guards: Object.freeze(guards) }));
        }
      }
    }
    this.byHandler.set(serverClass, byMethod);
  }

  /** Global guards from the `APP_GUARD` providers Nest discovered. */
  static globalRef(instance: unknown, token: unknown): NestGuardRef {
    return instance !== undefined ? Object.freeze({ instance: instance as CanActivate }) : Object.freeze({ token });
  }

  async canActivate(execution: ArmatureExecution, scope: NestRequestScope): Promise<boolean> {
    const entry = this.byHandler.get(execution.serverClass)?.get(execution.methodName);
    if (!entry || entry.guards.length === 0) return true;
    const context = new McpExecutionContext(execution, entry.handler);
    for (const ref of entry.guards) {
      const guard = ref.instance ?? (await scope.resolve<CanActivate>(ref.token));
      try {
        const verdict = guard.canActivate(context);
        if (!(isObservable(verdict) ? await lastValueFrom(verdict) : await verdict)) return false;
      } catch (error) {
        if (error instanceof HttpException) return false;
        throw error;
      }
    }
    return true;
  }

  private refsOf(listed: unknown): NestGuardRef[] {
    if (!Array.isArray(listed)) return [];
    const refs: NestGuardRef[] = [];
    for (const item of listed) {
      if (typeof item !== 'function') {
        refs.push(Object.freeze({ instance: item as CanActivate }));
        continue;
      }
      // Nest registers every class named in @UseGuards as an injectable of the host module.
      const { scope } = this.moduleRef.introspect(item as Type);
      refs.push(
        Object.freeze(
          scope === Scope.DEFAULT || scope === undefined
            ? { instance: this.moduleRef.get(item as Constructor, { strict: false }) as CanActivate }
            : { token: item },
        ),
      );
    }
    return refs;
  }
}

/**
 * The one Armature guard standing for Nest's guards: core resolves it from each call's DI scope,
 * so request-scoped Nest guards are built in the call's Nest context.
 */
export class NestGuardsGuard implements Guard {
  constructor(
    private readonly guards: NestGuards,
    private readonly scope: NestRequestScope,
  ) {}

  canActivate(execution: ArmatureExecution): Promise<boolean> {
    return this.guards.canActivate(execution, this.scope);
  }
}
