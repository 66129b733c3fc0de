import { isPlainObject } from '../validation/plain-object.js';

// How what an extension gives is checked and named in its start-up problems.

/** What a value is, for a problem's message: `null`, `an array`, `a string ("x")`, `an object`, `42`. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string (${JSON.stringify(value)})`;
  return typeof value === 'object' ? 'an object' : String(value);
}

/** A plain object that JSON can carry. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  try {
    return JSON.stringify(value) !== undefined;
  } catch {
    return false;
  }
}
