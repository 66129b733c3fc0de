import { Container, type ContainerInstance } from 'typedi';
import { Context } from '../context/context.js';
import { Principal } from '../context/principal.js';
import type { BuildProblem } from '../messages/build-error.js';
import { callMessages } from '../messages/call-messages.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import type { Constructor } from '../metadata/metadata-args.js';
import { injectRecords } from '../seams/typedi.js';
import type { ContainerAdapter, RequestScope } from './container-adapter.js';

/** How to build one request-scoped class, worked out once at start-up. */
interface ConstructionPlan {
  readonly target: Constructor;
  readonly params: ReadonlyArray<(scope: TypediRequestScope) => unknown>;
  readonly properties: ReadonlyArray<readonly [string, (scope: TypediRequestScope) => unknown]>;
}

const PRIMITIVES = new Set<unknown>([String, Number, Boolean, Object, Array, Function, Symbol, undefined]);

/**
 * typedi behind Armature's container seam. Services stay typedi singletons (resolved from the
 * root container, created once); the server classes and `@RequestScoped` services get one
 * instance per call, built in the call's scope, so they can inject the `Context`.
 *
 * Constructor parameter types are read once in `prepare`: a call never touches Reflect.
 */
export class TypediContainerAdapter implements ContainerAdapter {
  private readonly plans = new Map<Constructor, ConstructionPlan>();
  private readonly overrides = new Map<unknown, unknown>();

  /**
   * @param root the typedi container singletons come from. Pass `new ContainerInstance('name')`
   *   for an isolated set of singletons (tests): typedi then builds its own copies there.
   */
  constructor(readonly root: ContainerInstance = Container.of()) {}

  /**
   * Replaces `token` with `value` everywhere it is injected, singletons included (they are
   * registered in `root`, so typedi builds dependants with the replacement). For tests.
   */
  override<T>(token: Constructor<T> | string, value: T): this {
    this.overrides.set(token, value);
    this.root.set(token as never, value as never);
    return this;
  }

  /** @internal */
  overrideFor(token: unknown): unknown {
    return this.overrides.get(token);
  }

  prepare({ servers, requestScoped }: { servers: readonly Constructor[]; requestScoped: readonly Constructor[] }): BuildProblem[] {
    const scoped = new Set([...servers, ...requestScoped]);
    const problems: BuildProblem[] = [];
    for (const target of scoped) this.plans.set(target, this.plan(target, scoped, problems));
    return problems;
  }

  has(token: Constructor): boolean {
    return this.overrides.has(token) || this.plans.has(token) || Container.has(token as never) || this.root.has(token as never);
  }

  createScope(ctx: Context): RequestScope {
    return new TypediRequestScope(this, ctx);
  }

  /** @internal */
  planFor(target: Constructor): ConstructionPlan | undefined {
    return this.plans.get(target);
  }

  private plan(target: Constructor, scoped: Set<Constructor>, problems: BuildProblem[]): ConstructionPlan {
    const reflected = Reflect.getMetadata?.('design:paramtypes', target) as unknown[] | undefined;
    if (reflected === undefined && target.length > 0) {
      problems.push(problem(MESSAGES.noConstructorMetadata, target.name, target.length));
    }
    const paramTypes = reflected ?? [];
    const handlers = injectRecords();
    const params = paramTypes.map((type, index) => {
      const handler = handlers.find((h) => h.index === index && (h.object === target || h.object === Object.getPrototypeOf(target)));
      if (handler) return (scope: TypediRequestScope) => handler.value(scope);
      if (PRIMITIVES.has(type)) return () => undefined;
      this.checkDependency(type as Constructor, `parameter ${index} of ${target.name}`, scoped, problems, new Set());
      return (scope: TypediRequestScope) => scope.get(type as Constructor);
    });
    const properties = handlers
      .filter(
        (h) =>
          h.propertyName !== undefined &&
          ((h.object as { constructor: unknown }).constructor === target ||
            target.prototype instanceof (h.object as { constructor: Constructor }).constructor),
      )
      .map((h) => [h.propertyName as string, (scope: TypediRequestScope) => h.value(scope)] as const);
    return { target, params, properties };
  }

  /**
   * Checks, once at start-up, what a call would otherwise find out the hard way: a dependency
   * typedi does not know, or a singleton that needs something that only exists per request (the
   * Context, the Principal, a `@RequestScoped` service): it would be built once with none to give it.
   */
  private checkDependency(
    type: Constructor,
    usedBy: string,
    scoped: Set<Constructor>,
    problems: BuildProblem[],
    seen: Set<Constructor>,
  ): void {
    if (type === Context || type === Principal || scoped.has(type) || seen.has(type)) return;
    seen.add(type);
    if (this.overrides.has(type)) return;
    if (!Container.has(type as never) && !this.root.has(type as never)) {
      problems.push(problem(MESSAGES.unknownService, type.name, type.name, usedBy));
      return;
    }
    const deps = (Reflect.getMetadata?.('design:paramtypes', type) as unknown[] | undefined) ?? [];
    deps.forEach((dep, index) => {
      if (dep === Context || dep === Principal || scoped.has(dep as Constructor)) {
        const what =
          dep === Context
            ? "the request's Context"
            : dep === Principal
              ? "the request's Principal"
              : `the request-scoped ${(dep as Function).name}`;
        problems.push(problem(MESSAGES.singletonNeedsRequest, type.name, type.name, usedBy, what));
        return;
      }
      if (typeof dep === 'function' && !PRIMITIVES.has(dep)) {
        this.checkDependency(dep as Constructor, `parameter ${index} of ${type.name}`, scoped, problems, seen);
      }
    });
  }
}

/** One call's scope over typedi. */
export class TypediRequestScope implements RequestScope {
  /**
   * The instances made in this scope, in the order they were made: the first in fields of its
   * own (most scopes make one, the server class), the others in a map made when a second comes.
   */
  private firstToken: unknown;
  private first: unknown;
  private more?: Map<unknown, unknown>;
  private disposed = false;

  constructor(
    private readonly adapter: TypediContainerAdapter,
    private readonly ctx: Context,
  ) {}

  get<T>(token: Constructor<T>): T {
    if (this.disposed) throw new Error(callMessages.scopeDisposed(String(token?.name)));
    if (token === (Context as unknown)) return this.ctx as T;
    if (token === (Principal as unknown)) return this.ctx.principal as T;
    const replaced = this.adapter.overrideFor(token);
    if (replaced !== undefined) return replaced as T;
    const existing = token === this.firstToken ? this.first : this.more?.get(token);
    if (existing !== undefined) return existing as T;
    const plan = this.adapter.planFor(token);
    if (!plan) return this.adapter.root.get(token as never) as T;
    const Target = plan.target as unknown as new (...args: unknown[]) => T;
    // Most server classes take nothing: no argument array to build for them.
    const instance = plan.params.length === 0 ? new Target() : new Target(...plan.params.map((resolve) => resolve(this)));
    for (let i = 0; i < plan.properties.length; i++) {
      const [name, resolve] = plan.properties[i] as (typeof plan.properties)[number];
      (instance as Record<string, unknown>)[name] = resolve(this);
    }
    if (this.first === undefined) {
      this.firstToken = token;
      this.first = instance;
    } else {
      this.more ??= new Map();
      this.more.set(token, instance);
    }
    return instance;
  }

  /** Synchronous when no instance has a disposal hook (most scopes): nothing to wait for then. */
  dispose(): void | Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const { first, more } = this;
    this.firstToken = this.first = this.more = undefined;
    if (first === undefined) return;
    const hooked: unknown[] = [];
    if (typeof disposalHookOf(first) === 'function') hooked.push(first);
    if (more) for (const instance of more.values()) if (typeof disposalHookOf(instance) === 'function') hooked.push(instance);
    // Dependents first: an instance may still use what it depends on while it disposes.
    return hooked.length === 0 ? undefined : disposeInOrder(hooked.reverse());
  }
}

/** An instance's disposal hook: `[Symbol.asyncDispose]`, `[Symbol.dispose]` or `destroy`. */
function disposalHookOf(instance: unknown): unknown {
  const hooks = instance as Record<string | symbol, unknown>;
  return (Symbol.asyncDispose && hooks[Symbol.asyncDispose]) || (Symbol.dispose && hooks[Symbol.dispose]) || hooks.destroy;
}

/** Runs each instance's hook in turn; every hook runs even when one throws, the first failure is rethrown after. */
async function disposeInOrder(instances: readonly unknown[]): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const instance of instances) {
    try {
      await (disposalHookOf(instance) as () => unknown).call(instance);
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}
