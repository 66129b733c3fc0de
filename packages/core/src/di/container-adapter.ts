import type { Context } from '../context/context.js';
import type { BuildProblem } from '../messages/build-error.js';
import type { Constructor } from '../metadata/metadata-args.js';

/**
 * One request's dependency scope: resolves the server class, guards, interceptors and their
 * dependencies for that request (middleware, guards, interceptors and the handler share it).
 */
export interface RequestScope {
  /** May be async (NestJS resolves request-scoped providers with `moduleRef.resolve()`). */
  get<T>(token: Constructor<T>): T | Promise<T>;
  /** Ends the scope; called in `finally` after every call, whatever happened. */
  dispose(): void | Promise<void>;
}

/**
 * The seam between Armature and a DI container. typedi is the default (`TypediContainerAdapter`);
 * NestJS, tsyringe or inversify fit by opening a child/request scope in `createScope`, binding the
 * `Context` in it, and tearing it down in `dispose`.
 *
 * @example
 * ```ts
 * // tsyringe
 * const adapter: ContainerAdapter = {
 *   createScope(ctx) {
 *     const child = container.createChildContainer();
 *     child.registerInstance(Context, ctx);
 *     return { get: (token) => child.resolve(token), dispose: () => child.dispose() };
 *   },
 * };
 * ```
 */
export interface ContainerAdapter {
  /**
   * Called once at start-up with the server classes and the `@RequestScoped` services, before any
   * request. Do reflection and checks here, and return what is wrong (each naming the class and
   * the fix): the problems are reported together with the builder's, in one `ArmatureBuildError`.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: an adapter with nothing to report may return nothing
  prepare?(classes: { servers: readonly Constructor[]; requestScoped: readonly Constructor[] }): void | readonly BuildProblem[];
  /**
   * Whether the container provides `token`. Asked once per guard or interceptor class at start-up:
   * a provided class is resolved from each request's scope, any other is constructed once with
   * `new`. Without this method, classes whose constructor takes parameters are resolved from the
   * scope and the others are constructed once.
   */
  has?(token: Constructor): boolean;
  /** Opens the scope of one request, with `ctx` bound to the `Context` token. */
  createScope(ctx: Context): RequestScope;
}
