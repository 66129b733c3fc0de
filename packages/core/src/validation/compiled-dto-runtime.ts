import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata.js';
import type { ValidationIssue } from '../messages/validation-issue.js';
import { findTypeMetadata, PLAIN_TO_CLASS, transformsToClass } from '../seams/class-transformer.js';
import { replaceMessageTokens } from '../seams/class-validator.js';
import { stripProperty } from './dto-validator.js';

/**
 * What the generated DTO functions call: the parts of class-transformer's plainToInstance and
 * class-validator's ValidationExecutor that are the same for every DTO, written to do exactly what
 * those libraries do (class-transformer 0.5.1, class-validator 0.15.1) for plain JSON input.
 * Anything else (a Map, a Set, a Buffer, a class instance, a promise, a discriminator) answers
 * FALLBACK, and the caller runs the libraries themselves.
 */

/** Returned when the compiled path does not cover an input: the libraries decide instead. */
export const FALLBACK: unique symbol = Symbol('armature.compiled-dto.fallback');
export type Fallback = typeof FALLBACK;

/** A compiled plainToInstance for one class: plain object in, instance out. */
export type BuildInstance = (plain: Record<string, unknown>) => object | Fallback;
/** A compiled ValidationExecutor.execute for one class: appends the issues of `instance` under `path`. */
export type CheckInstance = (instance: object, path: string, out: ValidationIssue[]) => Fallback | undefined;

/** The constraint object class-validator calls (`ValidatorConstraintInterface`). */
export interface ConstraintInstance {
  validate(value: unknown, args: unknown): unknown;
  defaultMessage?: (args: unknown) => string;
}

/** Builders and checkers of every compiled class, found by constructor (as the libraries find metadata). */
export const builders = new WeakMap<Function, BuildInstance>();
export const checkers = new WeakMap<Function, CheckInstance>();

/** The options object plainToInstance hands to `@Transform` functions (its defaults plus Armature's). */
export const TRANSFORM_EXECUTOR_OPTIONS = {
  enableCircularCheck: false,
  enableImplicitConversion: false,
  excludeExtraneousValues: false,
  excludePrefixes: undefined,
  exposeDefaultValues: true,
  exposeUnsetFields: true,
  groups: undefined,
  ignoreDecorators: false,
  strategy: undefined,
  targetMaps: undefined,
  version: undefined,
};

// class-transformer skips a key that names an accessor without setter or a function on the new
// object; on a plain `{}` those are exactly the members of Object.prototype.
const PLAIN_OBJECT_SKIPPED = new Set(Object.getOwnPropertyNames(Object.prototype));

function isPromise(value: unknown): boolean {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/** TransformOperationExecutor.transform(undefined, value, type, arrayType, false) for plain JSON values. */
export function convert(value: unknown, type: unknown, arrayType: unknown): unknown {
  if (Array.isArray(value)) {
    if (arrayType !== undefined && arrayType !== Array && !isPlainArrayOf(arrayType)) return FALLBACK;
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) continue; // forEach skips holes
      const item = convert(value[i], type, undefined);
      if (item === FALLBACK) return FALLBACK;
      out.push(item);
    }
    return out;
  }
  if (value instanceof Set || value instanceof Map) return FALLBACK;
  if (type === String) return value === null || value === undefined ? value : String(value);
  if (type === Number) return value === null || value === undefined ? value : Number(value);
  if (type === Boolean) return value === null || value === undefined ? value : Boolean(value);
  if (type === Date || value instanceof Date) {
    if (value instanceof Date) return new Date(value.valueOf());
    return value === null || value === undefined ? value : new Date(value as string);
  }
  if (type === Buffer || value instanceof Buffer) return FALLBACK;
  if (value === null || typeof value !== 'object') return value;
  if (isPromise(value) || Object.getPrototypeOf(value) !== Object.prototype) return FALLBACK;
  if (type === undefined || type === Object) return copyPlain(value as Record<string, unknown>);
  const build = typeof type === 'function' ? builders.get(type) : undefined;
  return build ? build(value as Record<string, unknown>) : FALLBACK;
}

/**
 * instantiateArrayType: an array where a `@Type` property's design type is not Array (an array sent
 * for a `Date` or a DTO) becomes a plain array when `new type()` is neither a Set nor has a `push`.
 */
function isPlainArrayOf(arrayType: unknown): boolean {
  if (typeof arrayType !== 'function') return false;
  const made = new (arrayType as new () => object)();
  return !(made instanceof Set) && !('push' in made);
}

function copyPlain(value: Record<string, unknown>): object | Fallback {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || key === 'constructor' || PLAIN_OBJECT_SKIPPED.has(key)) continue;
    const sub = value[key];
    const converted = sub === null || typeof sub !== 'object' ? sub : convert(sub, undefined, undefined);
    if (converted === FALLBACK) return FALLBACK;
    out[key] = converted; // exposeUnsetFields (on by default) keeps an undefined member
  }
  return out;
}

/**
 * One key of `plain` onto `instance` of `target`, reading the metadata now: for keys the generated
 * code did not resolve at start-up (a key the schema does not list, or a `@Type` that depends on
 * the object).
 */
export function copyKey(
  target: Function,
  instance: Record<string, unknown>,
  plain: Record<string, unknown>,
  key: string,
): Fallback | undefined {
  if (key === '__proto__' || key === 'constructor') return undefined;
  const sub = plain[key];
  const meta = findTypeMetadata(target, key);
  let type: unknown;
  if (meta) {
    if (meta.options?.discriminator || meta.reflectedType === Map) return FALLBACK;
    type = meta.typeFunction ? meta.typeFunction({ newObject: instance, object: plain, property: key }) : meta.reflectedType;
  }
  if (sub instanceof Map) return FALLBACK;
  const arrayType = Array.isArray(sub) ? meta?.reflectedType : undefined;
  const prototype = (instance.constructor as Function | undefined)?.prototype;
  if (prototype) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
    if ((descriptor && !descriptor.set) || instance[key] instanceof Function) return undefined;
  }
  let value: unknown;
  if (sub === undefined) value = instance[key];
  else {
    value = convert(sub, type, arrayType);
    if (value === FALLBACK) return FALLBACK;
    for (const transform of transformsToClass(target, key)) {
      value = transform.transformFn({ value, key, obj: plain, type: PLAIN_TO_CLASS, options: TRANSFORM_EXECUTOR_OPTIONS });
    }
  }
  instance[key] = value; // exposeUnsetFields (on by default) assigns even an undefined result
  return undefined;
}

/** `{ each: true }`: the constraint on every item of an array, Set or Map (class-validator's own order of calls). */
export function validateEach(constraint: ConstraintInstance, value: unknown, args: unknown): boolean {
  const items = value instanceof Map ? Array.from(value.values()) : Array.isArray(value) ? value : Array.from(value as Iterable<unknown>);
  // Every item is asked, as class-validator's `map` asks them (holes skipped), with no array of answers.
  let valid = true;
  let promised = false;
  for (let i = 0; i < items.length; i++) {
    if (!(i in items)) continue;
    const answer = constraint.validate(items[i], args);
    if (isPromise(answer)) promised = true;
    else if (!answer) valid = false;
  }
  // validateSync drops a promise's answer (it arrives after the errors are returned).
  return promised || valid;
}

/** ValidationExecutor.createValidationError's message. */
export function messageOf(meta: ValidationMetadata, constraint: ConstraintInstance | undefined, object: object, value: unknown): string {
  const target = object as { constructor?: { name?: string } };
  const args = {
    targetName: target.constructor ? target.constructor.name : undefined,
    property: meta.propertyName,
    object,
    value,
    constraints: meta.constraints,
  };
  let message: unknown = meta.message || '';
  if (!meta.message && constraint && constraint.defaultMessage instanceof Function) message = constraint.defaultMessage(args);
  return replaceMessageTokens(message, args);
}

/** The issues of one class-validator error: its constraints (in their order), named by `path`. */
export function flushConstraints(constraints: Record<string, string>, path: string, property: string, out: ValidationIssue[]): void {
  for (const [name, message] of Object.entries(constraints)) {
    out.push({ path, message: name === 'whitelistValidation' ? 'unknown property; remove it' : stripProperty(message, property) });
  }
}

export function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function isArrayLike(value: unknown): value is unknown[] | Set<unknown> | Map<unknown, unknown> {
  return Array.isArray(value) || value instanceof Set || value instanceof Map;
}

/** True when `@ValidateNested` recurses into `value` (else it reports "must be either object or array"). */
export function isNestedObject(value: unknown): boolean {
  return isArrayLike(value) || value instanceof Object;
}

/** `@ValidateNested` on a value that is not an object: the constraint each nested metadata records. */
export function nestedNotObject(metas: readonly ValidationMetadata[], value: unknown, constraints: Record<string, string> | undefined) {
  const out = constraints ?? {};
  for (const meta of metas) out[meta.type] = messageOf(meta, undefined, meta.target as object, value);
  return out;
}

/** ValidationExecutor.nestedValidations on an object or array `value`, its children's issues appended to `out`. */
export function validateNested(
  metas: readonly ValidationMetadata[],
  value: object,
  path: string,
  out: ValidationIssue[],
): Fallback | undefined {
  for (let m = 0; m < metas.length; m++) {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        if (!(i in value)) continue; // forEach skips holes
        if (validateItem(metas, value[i], String(i), path, out) === FALLBACK) return FALLBACK;
      }
    } else if (value instanceof Set || value instanceof Map) {
      const items = value instanceof Set ? Array.from(value) : value;
      let failed = false;
      (items as unknown[]).forEach((item: unknown, index: unknown) => {
        if (!failed && validateItem(metas, item, String(index), path, out) === FALLBACK) failed = true;
      });
      if (failed) return FALLBACK;
    } else {
      const check = checkers.get((value as { constructor: Function }).constructor);
      if (!check || check(value, path, out) === FALLBACK) return FALLBACK;
    }
  }
  return undefined;
}

function validateItem(metas: readonly ValidationMetadata[], item: unknown, name: string, parent: string, out: ValidationIssue[]) {
  if (item === undefined) return undefined;
  const path = join(parent, name);
  if (isNestedObject(item)) return validateNested(metas, item as object, path, out);
  flushConstraints(nestedNotObject(metas, item, undefined), path, name, out);
  return undefined;
}
