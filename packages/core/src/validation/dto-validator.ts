import { plainToInstance } from 'class-transformer';
import { type ValidationError, type ValidatorOptions, validate, validateSync } from 'class-validator';
import type { ValidationIssue } from '../messages/validation-issue.js';
import type { Constructor } from '../metadata/metadata-args.js';

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

/**
 * Builds a DTO instance from untrusted plain JSON with class-transformer and checks it with
 * class-validator. `async` (worked out at start-up) picks class-validator's asynchronous path only
 * for DTOs that need it; the others use validateSync, which skips a promise per constraint.
 */
export async function validateInput<T>(dto: Constructor<T>, plain: object, async: boolean): Promise<ValidationOutcome<T>> {
  const instance = plainToInstance(dto as new () => T, plain, TRANSFORM_OPTIONS) as object;
  const errors = async ? await validate(instance, INPUT_OPTIONS) : validateSync(instance, INPUT_OPTIONS);
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

export function stripProperty(message: string, property: string): string {
  if (message.startsWith(`each value in ${property} `)) return `each value ${message.slice(`each value in ${property} `.length)}`;
  if (message.startsWith(`${property} `)) return message.slice(property.length + 1);
  if (message.startsWith(`nested property ${property} `)) return message.slice(`nested property ${property} `.length);
  if (message.endsWith(`All ${property}'s elements must be unique`)) return 'must not contain the same element twice';
  return message;
}
