import { createRequire } from 'node:module';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { DATE_TIME_MESSAGE, type ValidationIssue } from '../messages/validation-issue.js';
import type { JsonSchema } from '../metadata/metadata-args.js';
import { DATE_TIME_PATTERN } from '../schema/date-patterns.js';
import { codeGenerationAllowed } from './code-generation.js';
import type { ValidationOutcome } from './dto-validator.js';

// Ajv is loaded at the first schema that needs it, during the build (never per request): an app
// whose DTO shapes the shape-check compiler covers (validation/shape-check.ts) never loads it.
const requireHere = createRequire(import.meta.url);

/** Ajv or ajv-formats is not where @armature/core can load it (a broken install, a bundle moved away). */
export class JsonSchemaValidatorMissing extends Error {}

/** Ajv compiles schemas to code, which this runtime refuses (Cloudflare Workers). */
export class CodeGenerationRefused extends Error {}

function load(id: string): unknown {
  try {
    return requireHere(id);
  } catch (error) {
    throw new JsonSchemaValidatorMissing((error as Error).message.split('\n')[0]);
  }
}

type AjvClass = new (options: object) => Ajv2020;
const ajvClass = (): AjvClass => (load('ajv/dist/2020.js') as { Ajv2020: AjvClass }).Ajv2020;

let shared: Ajv2020 | undefined;
let shapes: Ajv2020 | undefined;

/** The instance for hand-written schemas, made (and ajv-formats loaded) at the first one. */
function ajv(): Ajv2020 {
  if (!shared) {
    // strict: false because hand-written schemas may carry annotations Ajv does not know.
    shared = new (ajvClass())({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false, validateFormats: true });
    const addFormats = load('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
    addFormats(shared);
  }
  return shared;
}

/**
 * Compiles a shape-only schema (no defaults applied, nothing copied) with Ajv: for the DTO shapes
 * the shape-check compiler does not cover, and as its reference in the differential test. The
 * schemas are Armature's own (structuralSchema of a DTO's schema), so they are not checked against
 * the 2020-12 meta-schema (nor is it added): compiling that meta-schema was most of the first
 * compile's time (about 70 ms of a cold start) and several MB of resident memory.
 */
export function compileShapeCheckWithAjv(schema: JsonSchema): JsonValidator {
  if (!codeGenerationAllowed()) throw new CodeGenerationRefused();
  shapes ??= new (ajvClass())({
    allErrors: true,
    strict: false,
    useDefaults: false,
    coerceTypes: false,
    validateSchema: false,
    meta: false,
    // A Date's format, as the shape check tests it (stricter than ajv-formats': what `Date` parses).
    formats: { 'date-time': new RegExp(DATE_TIME_PATTERN, 'u') },
  });
  const check: ValidateFunction = shapes.compile(schema);
  return (value) => (check(value) ? { ok: true, value } : { ok: false, issues: unique((check.errors ?? []).map(toIssue)) });
}

export type JsonValidator = (value: unknown) => ValidationOutcome<unknown>;

/** Compiles a hand-written JSON Schema once (at start-up) into a validator that reports dotted paths. */
export function compileJsonSchema(schema: JsonSchema): JsonValidator {
  const { $schema: _dialect, ...rest } = schema;
  if (!codeGenerationAllowed()) throw new CodeGenerationRefused();
  const check: ValidateFunction = ajv().compile(rest);
  return (value) => {
    // Ajv applies defaults in place: validate a copy so the caller's payload is left untouched.
    const copy = structuredClone(value);
    return check(copy) ? { ok: true, value: copy } : { ok: false, issues: (check.errors ?? []).map(toIssue) };
  };
}

function toIssue(error: ErrorObject): ValidationIssue {
  const base = error.instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') {
    return { path: join(base, String(params.missingProperty)), message: 'is required' };
  }
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    const name = params.additionalProperty ?? params.unevaluatedProperty;
    return { path: join(base, String(name)), message: 'unknown property; remove it' };
  }
  if (error.keyword === 'format' && params.format === 'date-time') return { path: base, message: DATE_TIME_MESSAGE };
  return { path: base, message: error.message ?? error.keyword };
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** The same `path: message` once (Ajv reports a type error once per schema branch that saw it). */
export function unique(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
