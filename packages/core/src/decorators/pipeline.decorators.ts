import type { Guard, Interceptor, Provided } from '../context/execution-context.js';
import type { Constructor } from '../metadata/metadata-args.js';
import { getMetadataStorage } from '../metadata/metadata-storage.js';
import type { RateLimitRule } from '../metadata/rate-limit-rule.js';

function ownerOf(target: object): Constructor {
  return (typeof target === 'function' ? target : target.constructor) as Constructor;
}

/**
 * Guards for every handler of a class, or for one method. Class guards run before method guards.
 *
 * @example
 * ```ts
 * @UseGuards(AdminOnly)
 * @Tool({ description: 'Delete a repository', annotations: { destructiveHint: true } })
 * delete_repo(input: RepoRef) { ... }
 * ```
 */
export function UseGuards(...guards: Provided<Guard>[]): ClassDecorator & MethodDecorator {
  return ((target: object, propertyKey?: string | symbol) => {
    getMetadataStorage().collectPipeline({
      target: ownerOf(target),
      methodName: propertyKey === undefined ? undefined : String(propertyKey),
      guards,
    });
  }) as ClassDecorator & MethodDecorator;
}

/** Interceptors around every handler of a class, or one method. Class interceptors are the outer ones. */
export function UseInterceptors(...interceptors: Provided<Interceptor>[]): ClassDecorator & MethodDecorator {
  return ((target: object, propertyKey?: string | symbol) => {
    getMetadataStorage().collectPipeline({
      target: ownerOf(target),
      methodName: propertyKey === undefined ? undefined : String(propertyKey),
      interceptors,
    });
  }) as ClassDecorator & MethodDecorator;
}

/**
 * OAuth scopes the caller's bearer token must carry (all of them). Over HTTP a call without them
 * is answered `403` with `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."`, and
 * the handler is hidden from the caller's lists.
 *
 * @example
 * ```ts
 * @RequireScopes('repo:write')
 * @Tool({ description: 'Create an issue' })
 * create_issue(input: NewIssue) { ... }
 * ```
 */
export function RequireScopes(...scopes: string[]): ClassDecorator & MethodDecorator {
  return ((target: object, propertyKey?: string | symbol) => {
    getMetadataStorage().collectPipeline({
      target: ownerOf(target),
      methodName: propertyKey === undefined ? undefined : String(propertyKey),
      scopes,
    });
  }) as ClassDecorator & MethodDecorator;
}

/**
 * Limits how often a handler is called: at most `limit` calls per `windowMs` for each key of `by`
 * (default `['principal']`). On a class, one count covers all its handlers. A call over the limit
 * is not run: a tool gets an error result saying which limit and when to retry, a resource, prompt
 * or completion a JSON-RPC error with `data.retryAfterSeconds`. Several instances share the count
 * with `redisState()`. Values are checked at start-up.
 *
 * @example
 * ```ts
 * @RateLimit({ limit: 10, windowMs: 60_000, by: ['principal', 'tool'] })
 * @Tool({ description: 'Search the web' })
 * search(input: SearchInput) { ... }
 * ```
 */
export function RateLimit(rule: RateLimitRule): ClassDecorator & MethodDecorator {
  return ((target: object, propertyKey?: string | symbol) => {
    getMetadataStorage().collectPipeline({
      target: ownerOf(target),
      methodName: propertyKey === undefined ? undefined : String(propertyKey),
      rateLimits: [rule],
    });
  }) as ClassDecorator & MethodDecorator;
}
