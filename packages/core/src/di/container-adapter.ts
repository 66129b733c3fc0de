import type { Constructor } from '../metadata/metadata-args.js';
import type { Context } from '../runtime/context.js';

/** One tool call's dependency scope: resolves the server class and its dependencies for that call. */
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
   * request. Do reflection and checks here; throw to refuse start-up (name the class and the fix).
   */
  prepare?(classes: { servers: readonly Constructor[]; requestScoped: readonly Constructor[] }): void;
  /** Opens the scope of one tool call, with `ctx` bound to the `Context` token. */
  createScope(ctx: Context): RequestScope;
}
