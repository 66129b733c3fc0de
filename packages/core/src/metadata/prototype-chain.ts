import type { Constructor } from './metadata-args.js';

/** `target` and the classes it extends, nearest first (the one walk over a class chain). */
export function prototypeChain(target: Constructor): Constructor[] {
  const chain: Constructor[] = [];
  for (let current: unknown = target; typeof current === 'function' && current !== Function.prototype; ) {
    chain.push(current as Constructor);
    current = Object.getPrototypeOf(current);
  }
  return chain;
}
