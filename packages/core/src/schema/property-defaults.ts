import type { Constructor } from '../metadata/metadata-args.js';

/** Property initialisers of `dto`, read once by constructing it without arguments. */
export function readDefaults(dto: Constructor): Map<string, unknown> {
  const defaults = new Map<string, unknown>();
  try {
    const instance = new (dto as new () => Record<string, unknown>)();
    for (const key of Object.keys(instance)) defaults.set(key, instance[key]);
  } catch {
    // A DTO whose constructor needs arguments simply advertises no defaults.
  }
  return defaults;
}

/** An initial value as the schema advertises it: a JSON value as it is, anything else not at all. */
export function advertisedDefault(value: unknown): unknown {
  return isJsonValue(value) ? value : undefined;
}

/**
 * The default of a nested DTO property as a client would send it: its JSON encoding (the same
 * whether written as plain objects or as instances), or undefined when that is not an object (a
 * list of objects when `each`).
 */
export function nestedDefault(value: unknown, each: boolean): unknown {
  let json: unknown;
  try {
    json = JSON.parse(JSON.stringify(value) ?? 'null');
  } catch {
    json = undefined;
  }
  const fits = each ? Array.isArray(json) && json.every(isPlainObject) : isPlainObject(json);
  return fits ? json : undefined;
}

function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 16) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => isJsonValue(v, depth + 1));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value as object).every((v) => isJsonValue(v, depth + 1));
  }
  return false;
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}
