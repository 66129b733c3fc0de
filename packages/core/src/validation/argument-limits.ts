import type { ValidationIssue } from '../messages/validation-issue.js';
import type { ArgumentLimits } from '../metadata/metadata-args.js';

export const DEFAULT_ARGUMENT_LIMITS: Readonly<Required<ArgumentLimits>> = Object.freeze({
  maxDepth: 32,
  maxObjectKeys: 1_000,
  maxArrayLength: 10_000,
  maxNodes: 20_000,
  maxStringLength: 1_048_576,
});

// Keys that would reach an object's prototype when class-transformer copies them onto an instance.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Checks the shape of untrusted arguments before anything converts them: depth, members per
 * object, items per array, total values, string length, and prototype-polluting keys. It walks
 * iteratively and stops at the first excess, so a hostile payload costs at most `maxNodes` steps
 * (a 100,000-deep nesting is refused after `maxDepth` levels).
 */
export function checkArgumentLimits(value: unknown, limits: Readonly<Required<ArgumentLimits>>): ValidationIssue | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  let nodes = 0;
  while (stack.length > 0) {
    const current = stack.pop() as { value: unknown; path: string; depth: number };
    const here = current.value;
    if (typeof here === 'string') {
      if (here.length > limits.maxStringLength) {
        return { path: current.path, message: `string is longer than the limit of ${limits.maxStringLength} characters` };
      }
      continue;
    }
    if (here === null || typeof here !== 'object') continue;
    if (current.depth >= limits.maxDepth) {
      return { path: current.path, message: `nesting is deeper than the limit of ${limits.maxDepth} levels` };
    }
    if (Array.isArray(here)) {
      if (here.length > limits.maxArrayLength) {
        return { path: current.path, message: `array has more than the limit of ${limits.maxArrayLength} items` };
      }
      nodes += here.length;
      if (nodes > limits.maxNodes) return { path: current.path, message: `arguments contain more than ${limits.maxNodes} values` };
      for (let i = 0; i < here.length; i++) {
        const item = here[i];
        if (item !== null && (typeof item === 'object' || typeof item === 'string')) {
          stack.push({ value: item, path: join(current.path, String(i)), depth: current.depth + 1 });
        }
      }
      continue;
    }
    let keys = 0;
    for (const key in here) {
      if (!Object.hasOwn(here, key)) continue;
      keys++;
      if (keys > limits.maxObjectKeys) {
        return { path: current.path, message: `object has more than the limit of ${limits.maxObjectKeys} properties` };
      }
      if (FORBIDDEN_KEYS.has(key)) return { path: join(current.path, key), message: 'this property name is not allowed' };
      if (key.length > limits.maxStringLength) {
        return { path: current.path, message: `a property name is longer than the limit of ${limits.maxStringLength} characters` };
      }
      const item = (here as Record<string, unknown>)[key];
      if (item !== null && (typeof item === 'object' || typeof item === 'string')) {
        stack.push({ value: item, path: join(current.path, key), depth: current.depth + 1 });
      }
    }
    nodes += keys;
    if (nodes > limits.maxNodes) return { path: current.path, message: `arguments contain more than ${limits.maxNodes} values` };
  }
  return undefined;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
