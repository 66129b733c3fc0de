import type { Constructor } from '../metadata/metadata-args.js';
import { getMetadataStorage } from '../metadata/metadata-storage.js';

/**
 * Marks a service class as request-scoped: one instance per tool call, created in the call's DI
 * scope, so it can inject the request's `Context`. Other services stay singletons.
 *
 * @example
 * ```ts
 * @RequestScoped()
 * class AuditLog {
 *   constructor(private readonly ctx: Context) {}
 *   record(what: string) { return this.ctx.log.info(what); }
 * }
 * ```
 */
export function RequestScoped(): ClassDecorator {
  return (target) => {
    getMetadataStorage().collectRequestScoped(target as unknown as Constructor);
  };
}
