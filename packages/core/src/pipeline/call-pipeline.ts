import type { AuthInfo } from '@modelcontextprotocol/server';
import { ProtocolError } from '@modelcontextprotocol/server';
import type { RequestScope } from '../di/container-adapter.js';
import type { Constructor } from '../metadata/metadata-args.js';
import type { Context } from '../runtime/context.js';
import type { ErrorFilter, ExecutionContext, Guard, Interceptor, Provided } from './pipeline-types.js';

/** The guards, interceptors and scopes that apply to one handler, app-level ones first. */
export interface HandlerPipeline {
  readonly guards: readonly Provided<Guard>[];
  readonly interceptors: readonly Provided<Interceptor>[];
  readonly scopes: readonly string[];
}

export const EMPTY_PIPELINE: HandlerPipeline = Object.freeze({ guards: [], interceptors: [], scopes: [] });

/** Thrown (internally) when a call outlives `timeoutMs`. */
export class CallTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`did not finish within ${timeoutMs} ms`);
    this.name = 'CallTimeoutError';
  }
}

const fallbackInstances = new WeakMap<Function, unknown>();

/**
 * A guard or interceptor given as a class comes from the call's DI scope (so it can inject
 * services, or the Context when it is @RequestScoped); a class the container does not know is
 * constructed once and reused.
 */
export async function resolveProvided<T>(provided: Provided<T>, scope: RequestScope | undefined): Promise<T> {
  if (typeof provided !== 'function') return provided;
  if (scope) {
    try {
      return await scope.get(provided as Constructor<T>);
    } catch {
      // not a registered service: fall through to a plain instance
    }
  }
  let instance = fallbackInstances.get(provided);
  if (!instance) {
    instance = new (provided as new () => T)();
    fallbackInstances.set(provided, instance);
  }
  return instance as T;
}

/** True when the principal holds every scope in `required`. */
export function hasScopes(principal: AuthInfo | undefined, required: readonly string[]): boolean {
  if (required.length === 0) return true;
  if (!principal) return false;
  return required.every((scope) => principal.scopes.includes(scope));
}

/** Runs the guards (and the scope requirement) of one handler; false as soon as one says no. */
export async function isAllowed(pipeline: HandlerPipeline, context: ExecutionContext, scope: RequestScope | undefined): Promise<boolean> {
  if (!hasScopes(context.principal, pipeline.scopes)) return false;
  for (const provided of pipeline.guards) {
    const guard = await resolveProvided(provided, scope);
    if (!(await guard.canActivate(context))) return false;
  }
  return true;
}

/** Calls `target` inside the interceptors, the first one outermost. */
export async function runIntercepted(
  pipeline: HandlerPipeline,
  context: ExecutionContext,
  scope: RequestScope | undefined,
  target: () => Promise<unknown>,
): Promise<unknown> {
  let next = target;
  for (let i = pipeline.interceptors.length - 1; i >= 0; i--) {
    const interceptor = await resolveProvided(pipeline.interceptors[i] as Provided<Interceptor>, scope);
    const inner = next;
    next = () => interceptor.intercept(context, inner);
  }
  return next();
}

/** Races `work` against `timeoutMs`, aborting the call's own signal when time is up. */
export function withTimeout<T>(work: Promise<T>, timeoutMs: number, abort: (reason: unknown) => void): Promise<T> {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return work;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new CallTimeoutError(timeoutMs);
      abort(error);
      reject(error);
    }, timeoutMs);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Applies the app's error filter: whatever it returns or throws replaces the error. */
export function filterError(filter: ErrorFilter | undefined, error: unknown, context: ExecutionContext): unknown {
  if (!filter || error instanceof ProtocolError || error instanceof CallTimeoutError) return error;
  try {
    const mapped = filter(error, context);
    return mapped === undefined ? error : mapped;
  } catch (thrown) {
    return thrown;
  }
}

export type { Context };
