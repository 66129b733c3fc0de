/**
 * A request's steps run synchronously until one of them is actually asynchronous (a guard that
 * awaits, a handler returning a promise): most calls then answer with no promise made at all.
 */
export type MaybePromise<T> = T | Promise<T>;

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** `next(value)`: at once when `value` is there, once it settles when it is a promise. */
export function after<T, U>(value: T | PromiseLike<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isThenable(value) ? Promise.resolve(value).then(next) : next(value as T);
}

/** What `run` returns, as a promise; what it throws, as a rejection. */
export function promised<R>(run: () => MaybePromise<R>): Promise<R> {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error);
  }
}
