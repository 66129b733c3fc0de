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
  if (isWithinLimits(value, limits)) return undefined;
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

/** How deep `isWithinLimits` recurses: a deeper payload (allowed by a raised `maxDepth`) takes the walk. */
const QUICK_DEPTH = 64;

/**
 * True for the common case, arguments within every limit: they pass without the walk and its
 * bookkeeping (no path is ever needed for them). False for anything else, a problem included,
 * which then takes the walk, the one that says what is wrong.
 */
function isWithinLimits(value: unknown, limits: Readonly<Required<ArgumentLimits>>): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const nodes = countWithin(value, 0, limits);
  return nodes !== -1 && nodes <= limits.maxNodes;
}

/** The values inside `value` (members plus items, all levels), or -1 when a limit is broken (or the walk must decide). */
function countWithin(value: object, depth: number, limits: Readonly<Required<ArgumentLimits>>): number {
  if (depth >= limits.maxDepth || depth >= QUICK_DEPTH) return -1;
  let nodes = 0;
  if (Array.isArray(value)) {
    if (value.length > limits.maxArrayLength) return -1;
    nodes = value.length;
    for (let i = 0; i < value.length; i++) {
      const inner = innerCount(value[i], depth, limits);
      if (inner === -1) return -1;
      nodes += inner;
    }
    return nodes;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (++nodes > limits.maxObjectKeys || FORBIDDEN_KEYS.has(key) || key.length > limits.maxStringLength) return -1;
    const inner = innerCount((value as Record<string, unknown>)[key], depth, limits);
    if (inner === -1) return -1;
    nodes += inner;
  }
  return nodes;
}

/** What an item or member adds to the count: its own values for a container, -1 for an over-long string. */
function innerCount(item: unknown, depth: number, limits: Readonly<Required<ArgumentLimits>>): number {
  if (typeof item === 'string') return item.length > limits.maxStringLength ? -1 : 0;
  if (item === null || typeof item !== 'object') return 0;
  const nodes = countWithin(item, depth + 1, limits);
  return nodes > limits.maxNodes ? -1 : nodes;
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
