import type { Context } from '../context/context.js';
import type { Guard, Interceptor, Provided } from '../context/execution-context.js';
import type { ContainerAdapter } from '../di/container-adapter.js';
import type { BuildProblem } from '../messages/build-error.js';
import { MESSAGES, problem } from '../messages/message-catalog.js';
import type { Constructor, HandlerKind } from '../metadata/metadata-args.js';
import type { MetadataStorage } from '../metadata/metadata-storage.js';
import type { InputPlan } from '../validation/prepare-arguments.js';
import type { CallPlan, ProviderPlan, RemotePlanBase } from './definitions.js';
import { type RateLimitPlan, rateLimitPlan } from './rate-limit-plans.js';

type Method = (...args: unknown[]) => unknown;

/** What every plan of one build shares: app-level guards, interceptors and rate limits, and how providers resolve. */
export class PlanContext {
  private readonly providers = new Map<unknown, ProviderPlan<unknown>>();
  /** Each decorator's rate limit planned (and its problems reported) once, however many handlers it covers. */
  private readonly rateLimitPlans = new Map<string, RateLimitPlan | undefined>();
  readonly appGuards: readonly ProviderPlan<Guard>[];
  readonly appInterceptors: readonly ProviderPlan<Interceptor>[];
  readonly appRateLimits: readonly RateLimitPlan[];
  /** Tags every handler planned here carries (a mounted part's). */
  readonly partTags: readonly string[] = [];

  constructor(
    readonly storage: MetadataStorage,
    private readonly container: ContainerAdapter | undefined,
    readonly problems: BuildProblem[],
    app: { guards?: readonly Provided<Guard>[]; interceptors?: readonly Provided<Interceptor>[]; rateLimits?: readonly unknown[] },
  ) {
    this.appGuards = this.providersOf('guard', app.guards ?? [], 'createMcpApp');
    this.appInterceptors = this.providersOf('interceptor', app.interceptors ?? [], 'createMcpApp');
    const rateLimits = Array.isArray(app.rateLimits) ? app.rateLimits : app.rateLimits === undefined ? [] : [app.rateLimits];
    this.appRateLimits = rateLimits.flatMap((rule, i) => rateLimitPlan(rule, 'createMcpApp', i, `rateLimits[${i}]`, problems) ?? []);
  }

  /**
   * What every plan made here without a decorated method shares (a remote part's entries, an
   * extension's methods and resources): the app's (and the part's) guards, interceptors, rate
   * limits and tags, told `serverClass` as the class a call is for.
   */
  sharedBase(serverClass: Constructor): RemotePlanBase {
    const guards = this.appGuards;
    return Object.freeze({
      serverClass,
      guards,
      interceptors: this.appInterceptors,
      scopes: Object.freeze([]),
      guarded: guards.length > 0,
      rateLimits: this.appRateLimits,
      tags: this.partTags,
    });
  }

  /**
   * The context of one mounted part's handlers: the part's guards and interceptors after the
   * app's, its tags before each handler's; providers are still made once for the whole app.
   */
  forPart(part: {
    readonly where: string;
    readonly options: { readonly guards?: readonly unknown[]; readonly interceptors?: readonly unknown[]; readonly tags?: unknown };
  }): PlanContext {
    const { where } = part;
    return Object.create(this, {
      appGuards: { value: Object.freeze([...this.appGuards, ...this.providersOf<Guard>('guard', part.options.guards ?? [], where)]) },
      appInterceptors: {
        value: Object.freeze([
          ...this.appInterceptors,
          ...this.providersOf<Interceptor>('interceptor', part.options.interceptors ?? [], where),
        ]),
      },
      partTags: { value: this.tagsOf(part.options.tags, where) },
    }) as PlanContext;
  }

  /** `tags` checked (a list of non-empty strings), or none after reporting. */
  tagsOf(tags: unknown, where: string): readonly string[] {
    if (tags === undefined) return [];
    if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string' && tag !== '')) {
      this.problems.push(problem(MESSAGES.tagsInvalid, where, JSON.stringify(tags) ?? String(tags)));
      return [];
    }
    return Object.freeze([...tags]);
  }

  /** The plans of the rate limits found for a handler: the app's first, then the class chain's, then the method's. */
  rateLimitsOf(found: readonly { rule: unknown; where: string }[]): RateLimitPlan[] {
    const plans = [...this.appRateLimits];
    const seen = new Map<string, number>();
    for (const { rule, where } of found) {
      const n = seen.get(where) ?? 0;
      seen.set(where, n + 1);
      const id = `${where}#${n}`;
      if (!this.rateLimitPlans.has(id)) this.rateLimitPlans.set(id, rateLimitPlan(rule, where, n, '@RateLimit', this.problems));
      const plan = this.rateLimitPlans.get(id);
      if (plan) plans.push(plan);
    }
    return plans;
  }

  /**
   * Checks each guard or interceptor and decides once how a call obtains it: from the request's
   * DI scope when the container provides the class, else one instance constructed now (shared by
   * every handler that names the class).
   */
  providersOf<T>(role: 'guard' | 'interceptor', provided: readonly unknown[], where: string): ProviderPlan<T>[] {
    const method = role === 'guard' ? 'canActivate' : 'intercept';
    const plans: ProviderPlan<T>[] = [];
    for (const item of provided) {
      const label = typeof item === 'function' ? item.name || 'an anonymous class' : String(item);
      const implemented =
        typeof item === 'function'
          ? typeof (item.prototype as Record<string, unknown>)?.[method] === 'function'
          : typeof item === 'object' && item !== null && typeof (item as Record<string, unknown>)[method] === 'function';
      if (!implemented) {
        this.problems.push(
          role === 'guard'
            ? problem(MESSAGES.guardWithoutCanActivate, where, label)
            : problem(MESSAGES.interceptorWithoutIntercept, where, label),
        );
        continue;
      }
      const plan = this.providerPlan(role, item, label, where);
      if (plan) plans.push(plan as ProviderPlan<T>);
    }
    return plans;
  }

  private providerPlan(role: 'guard' | 'interceptor', item: unknown, label: string, where: string): ProviderPlan<unknown> | undefined {
    if (typeof item !== 'function') return { from: 'instance', instance: item, label };
    const known = this.providers.get(item);
    if (known) return known;
    const token = item as Constructor;
    const fromScope = this.container?.has ? this.container.has(token) : token.length > 0;
    let plan: ProviderPlan<unknown>;
    if (fromScope) plan = Object.freeze({ from: 'scope', token, label });
    else {
      try {
        plan = Object.freeze({ from: 'instance', instance: new (token as unknown as new () => unknown)(), label });
      } catch (error) {
        this.problems.push(
          problem(MESSAGES.providerConstructionFailed, where, role, label, error instanceof Error ? error.message : String(error)),
        );
        return undefined;
      }
    }
    this.providers.set(item, plan);
    return plan;
  }
}

/** Arguments of `buildCallPlan`: what the handler is and how it is called. */
export interface PlanSource {
  readonly kind: HandlerKind;
  readonly name: string;
  readonly serverClass: Constructor;
  readonly methodName: string;
  readonly method: Method;
  readonly input: InputPlan;
  /** True when the method takes the input before the Context (`(input, ctx)`); false for `(ctx)`. */
  readonly takesInput: boolean;
  /** The decorator's `tags` option, unchecked. */
  readonly tags?: unknown;
}

/**
 * The frozen plan of one handler: its guards, interceptors and rate limits (app-level first, then
 * the class chain's, then the method's), required scopes, input plan and invocation.
 */
export function buildCallPlan(planning: PlanContext, source: PlanSource): CallPlan {
  const where = `${source.serverClass.name}.${source.methodName}`;
  const found = planning.storage.pipelineOf(source.serverClass, source.methodName);
  const guards = [...planning.appGuards, ...planning.providersOf<Guard>('guard', found.guards, where)];
  const interceptors = [...planning.appInterceptors, ...planning.providersOf<Interceptor>('interceptor', found.interceptors, where)];
  for (const scope of found.scopes) {
    if (typeof scope !== 'string' || scope === '' || /\s/.test(scope))
      planning.problems.push(problem(MESSAGES.invalidScope, where, String(scope)));
  }
  const rateLimits = planning.rateLimitsOf(found.rateLimits);
  const tags = [...planning.partTags, ...planning.tagsOf(source.tags, where)];
  const { method } = source;
  return Object.freeze({
    kind: source.kind,
    name: source.name,
    where,
    serverClass: source.serverClass,
    methodName: source.methodName,
    guards: Object.freeze(guards),
    interceptors: Object.freeze(interceptors),
    scopes: Object.freeze([...found.scopes]),
    guarded: guards.length > 0 || found.scopes.length > 0,
    rateLimits: Object.freeze(rateLimits),
    tags: Object.freeze([...new Set(tags)]),
    input: source.input,
    needsInstance: true,
    invoke: source.takesInput
      ? (instance: unknown, input: unknown, ctx: Context) => method.call(instance, input, ctx)
      : (instance: unknown, _input: unknown, ctx: Context) => method.call(instance, ctx),
  });
}
