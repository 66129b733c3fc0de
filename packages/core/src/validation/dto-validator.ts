import { plainToInstance } from 'class-transformer';
import {
  getMetadataStorage as getValidationStorage,
  type ValidationError,
  ValidationTypes,
  type ValidatorOptions,
  validate,
  validateSync,
} from 'class-validator';
import type { Constructor } from '../metadata/metadata-args.js';
import { findDeclaredType } from '../schema/class-transformer-storage.js';
import type { ValidationIssue } from './validation-issue.js';

export type ValidationOutcome<T = unknown> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

const INPUT_OPTIONS: ValidatorOptions = Object.freeze({
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
});

// Results may carry extra members (an entity with more fields than the output DTO): they are
// stripped rather than refused, so the client only ever sees what the schema advertises.
const OUTPUT_OPTIONS: ValidatorOptions = Object.freeze({
  whitelist: true,
  forbidNonWhitelisted: false,
  forbidUnknownValues: true,
  validationError: { target: false, value: false },
});

const TRANSFORM_OPTIONS = Object.freeze({ enableImplicitConversion: false, exposeDefaultValues: true });

const asyncDtos = new WeakMap<Function, boolean>();

/**
 * Whether checking `dto` (or a DTO nested in it) needs class-validator's asynchronous path: an
 * `async: true` custom constraint or a promise validation. Worked out once per class; the others
 * use validateSync, which skips a promise per constraint.
 */
function needsAsyncValidation(dto: Function, seen = new Set<Function>()): boolean {
  const known = asyncDtos.get(dto);
  if (known !== undefined) return known;
  if (seen.has(dto)) return false;
  seen.add(dto);
  const storage = getValidationStorage();
  let result = false;
  for (const meta of storage.getTargetValidationMetadatas(dto, '', true, false)) {
    if (meta.type === ValidationTypes.PROMISE_VALIDATION) result = true;
    else if (meta.type === ValidationTypes.CUSTOM_VALIDATION && meta.constraintCls) {
      if (storage.getTargetValidatorConstraints(meta.constraintCls).some((c) => c.async)) result = true;
    } else if (meta.type === ValidationTypes.NESTED_VALIDATION) {
      const nested = findDeclaredType(dto, meta.propertyName);
      if (typeof nested === 'function' && needsAsyncValidation(nested, seen)) result = true;
    }
    if (result) break;
  }
  asyncDtos.set(dto, result);
  return result;
}

/** Builds a DTO instance from untrusted plain JSON with class-transformer and checks it with class-validator. */
export async function validateInput<T>(dto: Constructor<T>, plain: unknown): Promise<ValidationOutcome<T>> {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) {
    return { ok: false, issues: [{ path: '', message: 'arguments must be a JSON object' }] };
  }
  const instance = plainToInstance(dto as new () => T, plain, TRANSFORM_OPTIONS) as object;
  const errors = needsAsyncValidation(dto) ? await validate(instance, INPUT_OPTIONS) : validateSync(instance, INPUT_OPTIONS);
  return errors.length === 0 ? { ok: true, value: instance as T } : { ok: false, issues: flattenErrors(errors) };
}

/** Checks a handler's return value against its output DTO; returns the plain object to send. */
export async function validateOutput(dto: Constructor, value: unknown): Promise<ValidationOutcome<object>> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, issues: [{ path: '', message: `expected an object matching ${dto.name}, got ${describe(value)}` }] };
  }
  const instance = (value instanceof dto ? value : plainToInstance(dto as new () => object, value, TRANSFORM_OPTIONS)) as object;
  const errors = await validate(instance, OUTPUT_OPTIONS);
  return errors.length === 0 ? { ok: true, value: instance } : { ok: false, issues: flattenErrors(errors) };
}

export function describe(value: unknown): string {
  if (value === undefined) return 'nothing (undefined)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/** class-validator's error tree as dotted `path: message` issues, the property name dropped from the message. */
export function flattenErrors(errors: readonly ValidationError[], parent = ''): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const path = parent === '' ? error.property : `${parent}.${error.property}`;
    for (const [name, message] of Object.entries(error.constraints ?? {})) {
      issues.push({
        path,
        message: name === 'whitelistValidation' ? 'unknown property; remove it' : stripProperty(message, error.property),
      });
    }
    if (error.children?.length) issues.push(...flattenErrors(error.children, path));
  }
  return issues;
}

function stripProperty(message: string, property: string): string {
  if (message.startsWith(`each value in ${property} `)) return `each value ${message.slice(`each value in ${property} `.length)}`;
  if (message.startsWith(`${property} `)) return message.slice(property.length + 1);
  if (message.startsWith(`nested property ${property} `)) return message.slice(`nested property ${property} `.length);
  if (message.endsWith(`All ${property}'s elements must be unique`)) return 'must not contain the same element twice';
  return message;
}
