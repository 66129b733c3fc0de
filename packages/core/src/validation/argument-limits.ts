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

// One entry per value met (its parent entry, its key, its depth), so that the path of a value is
// only spelled out for the one that breaks a limit.
interface Walk {
  values: unknown[];
  parents: number[];
  keys: string[];
  depths: number[];
  stack: number[];
}

/**
 * Checks the shape of untrusted arguments before anything converts them: depth, members per
 * object, items per array, total values, string length, and prototype-polluting keys. It walks
 * iteratively and stops at the first excess, so a hostile payload costs at most `maxNodes` steps
 * (a 100,000-deep nesting is refused after `maxDepth` levels).
 */
export function checkArgumentLimits(value: unknown, limits: Readonly<Required<ArgumentLimits>>): ValidationIssue | undefined {
  if (isFlatWithinLimits(value, limits)) return undefined;
  const w: Walk = { values: [], parents: [], keys: [], depths: [], stack: [] };
  const { values, depths, stack } = w;
  const pathOf = (at: number) => pathOfEntry(w, at);
  meet(w, value, -1, '', 0);
  let nodes = 0;
  while (stack.length > 0) {
    const at = stack.pop() as number;
    const here = values[at];
    if (typeof here === 'string') {
      if (here.length > limits.maxStringLength) {
        return { path: pathOf(at), message: `string is longer than the limit of ${limits.maxStringLength} characters` };
      }
      continue;
    }
    if (here === null || typeof here !== 'object') continue;
    const depth = depths[at] as number;
    if (depth >= limits.maxDepth) {
      return { path: pathOf(at), message: `nesting is deeper than the limit of ${limits.maxDepth} levels` };
    }
    if (Array.isArray(here)) {
      if (here.length > limits.maxArrayLength) {
        return { path: pathOf(at), message: `array has more than the limit of ${limits.maxArrayLength} items` };
      }
      nodes += here.length;
      if (nodes > limits.maxNodes) return { path: pathOf(at), message: `arguments contain more than ${limits.maxNodes} values` };
      for (let i = 0; i < here.length; i++) {
        const item = here[i];
        if (item !== null && (typeof item === 'object' || typeof item === 'string')) meet(w, item, at, String(i), depth + 1);
      }
      continue;
    }
    let count = 0;
    for (const key in here) {
      if (!Object.hasOwn(here, key)) continue;
      count++;
      if (count > limits.maxObjectKeys) {
        return { path: pathOf(at), message: `object has more than the limit of ${limits.maxObjectKeys} properties` };
      }
      if (FORBIDDEN_KEYS.has(key)) return { path: join(pathOf(at), key), message: 'this property name is not allowed' };
      if (key.length > limits.maxStringLength) {
        return { path: pathOf(at), message: `a property name is longer than the limit of ${limits.maxStringLength} characters` };
      }
      const item = (here as Record<string, unknown>)[key];
      if (item !== null && (typeof item === 'object' || typeof item === 'string')) meet(w, item, at, key, depth + 1);
    }
    nodes += count;
    if (nodes > limits.maxNodes) return { path: pathOf(at), message: `arguments contain more than ${limits.maxNodes} values` };
  }
  return undefined;
}

/**
 * True for the common case, an object of plain values (no object or array inside) within every
 * limit: it passes without the walk and its bookkeeping. Anything else, a problem included, takes
 * the walk, which says what is wrong.
 */
function isFlatWithinLimits(value: unknown, limits: Readonly<Required<ArgumentLimits>>): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || limits.maxDepth <= 0) return false;
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (++count > limits.maxObjectKeys || FORBIDDEN_KEYS.has(key) || key.length > limits.maxStringLength) return false;
    const item = (value as Record<string, unknown>)[key];
    if (item !== null && typeof item === 'object') return false;
    if (typeof item === 'string' && item.length > limits.maxStringLength) return false;
  }
  return count <= limits.maxNodes;
}

function meet(w: Walk, value: unknown, parent: number, key: string, depth: number): void {
  w.stack.push(w.values.length);
  w.values.push(value);
  w.parents.push(parent);
  w.keys.push(key);
  w.depths.push(depth);
}

/** The dotted path of entry `at`, joined from the root down as the walk would have. */
function pathOfEntry(w: Walk, at: number): string {
  const chain: string[] = [];
  for (let i = at; i > 0; i = w.parents[i] as number) chain.push(w.keys[i] as string);
  let path = '';
  for (let i = chain.length - 1; i >= 0; i--) path = join(path, chain[i] as string);
  return path;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
