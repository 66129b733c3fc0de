import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ArgumentLimits } from '../../src/index.js';
import { checkArgumentLimits } from '../../src/validation/argument-limits.js';

// The walk spells out a path only for the value that breaks a limit. This is the walk it replaced
// (a path string built for every value met), kept as the reference: same value, same first excess.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
function reference(value: unknown, limits: Readonly<Required<ArgumentLimits>>) {
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

const limits = fc.record({
  maxDepth: fc.integer({ min: 1, max: 6 }),
  maxObjectKeys: fc.integer({ min: 1, max: 6 }),
  maxArrayLength: fc.integer({ min: 1, max: 6 }),
  maxNodes: fc.integer({ min: 1, max: 40 }),
  maxStringLength: fc.integer({ min: 0, max: 6 }),
});
const key = fc.oneof(fc.string({ maxLength: 7 }), fc.constantFrom('', 'constructor', 'prototype', '__proto__', 'a', '0'));
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string({ maxLength: 8 }),
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 8 }),
    fc.dictionary(key, tie('value'), { maxKeys: 8 }),
  ),
})).value;

describe('argument limits', () => {
  it('find the same first excess, with the same path, as the walk they replaced', () => {
    fc.assert(
      fc.property(json, limits, (value, given) => {
        // JSON.parse makes "__proto__" an own key, as a transport's parser does.
        const parsed = JSON.parse(JSON.stringify(value));
        expect(checkArgumentLimits(parsed, given)).toEqual(reference(parsed, given));
      }),
      { numRuns: 3_000 },
    );
  });

  it('take the shortcut for objects of plain values only where the walk finds nothing', () => {
    const flat = fc.dictionary(key, fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 8 });
    fc.assert(
      fc.property(flat, limits, (value, given) => {
        const parsed = JSON.parse(JSON.stringify(value));
        expect(checkArgumentLimits(parsed, given)).toEqual(reference(parsed, given));
      }),
      { numRuns: 3_000 },
    );
  });
});
