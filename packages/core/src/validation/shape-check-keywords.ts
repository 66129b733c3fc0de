import type { ValidationIssue } from '../messages/validation-issue.js';
import { DATE_TIME_MESSAGE } from '../messages/validation-issue.js';
import { DATE_TIME_PATTERN } from '../schema/date-patterns.js';

/**
 * What the shape check covers, shared by its two forms (shape-check.ts generates code; where code
 * generation from strings is refused, shape-check-closures.ts builds closures): the keywords, the
 * type tests and the formats, so both cover the same schemas and give Ajv's answers.
 */

/** Issues found so far; undefined while there are none (a valid payload allocates nothing). */
export type Issues = ValidationIssue[] | undefined;

/** The keywords a schema node may use; any other leaves the schema to Ajv. */
export const NODE_KEYS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', '$ref', 'pattern', 'format']);

/** Ajv's type tests with `strict: false` (so `strictNumbers` off: Infinity is a number and an integer). */
export const TYPE_TESTS: Readonly<Record<string, (v: unknown) => boolean>> = {
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => typeof v === 'number' && !(v % 1) && !Number.isNaN(v),
  boolean: (v) => typeof v === 'boolean',
  null: (v) => v === null,
  object: (v) => isObject(v),
  array: (v) => Array.isArray(v),
};

/** The formats the shape check tests, with their message (Ajv's reference gets the same: shapeFormats). */
export const FORMATS: Readonly<Record<string, { pattern: string; message: string }>> = {
  'date-time': { pattern: DATE_TIME_PATTERN, message: DATE_TIME_MESSAGE },
};

/** A `$ref` the shape check follows: one of the schema's own `$defs`. */
export const REF = /^#\/\$defs\/([A-Za-z0-9_$]+)$/;

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function add(issues: Issues, path: string, message: string): ValidationIssue[] {
  const list = issues ?? [];
  list.push({ path, message });
  return list;
}

/** Thrown while compiling when the schema uses something only Ajv covers. */
export class Uncovered extends Error {}

/** The pattern as Ajv compiles it (its unicodeRegExp default), or Uncovered when it does not compile. */
export function patternOf(source: unknown): RegExp {
  if (typeof source !== 'string') throw new Uncovered();
  try {
    return new RegExp(source, 'u');
  } catch {
    throw new Uncovered();
  }
}

/** The object keywords of a node, checked: `required` names, `additionalProperties` false or absent, `properties`. */
export function objectKeywords(schemaNode: Record<string, unknown>): { names: string[]; required: string[]; closed: boolean } {
  const { properties, required, additionalProperties } = schemaNode;
  if (required !== undefined && !(Array.isArray(required) && required.every((name) => typeof name === 'string'))) throw new Uncovered();
  if (additionalProperties !== undefined && typeof additionalProperties !== 'boolean') throw new Uncovered();
  if (properties !== undefined && !isObject(properties)) throw new Uncovered();
  return {
    names: Object.keys(properties ?? {}),
    required: (required as string[] | undefined) ?? [],
    closed: additionalProperties === false,
  };
}

/** The keywords of a node, or Uncovered when it has one the shape check does not know. */
export function keywordsOf(schemaNode: unknown): Record<string, unknown> {
  if (!isObject(schemaNode) || Object.keys(schemaNode).some((key) => !NODE_KEYS.has(key))) throw new Uncovered();
  return schemaNode;
}

/** The index in `defNames` a `$ref` points at, or Uncovered. */
export function refIndex($ref: unknown, defNames: string[]): number {
  const index = typeof $ref === 'string' ? defNames.indexOf(REF.exec($ref)?.[1] ?? '') : -1;
  if (index < 0) throw new Uncovered();
  return index;
}

/** The type test of a node's `type`, or Uncovered. */
export function typeOf(type: unknown): string {
  if (typeof type !== 'string' || !Object.hasOwn(TYPE_TESTS, type)) throw new Uncovered();
  return type;
}

/** The format of a node's `format`, or Uncovered. */
export function formatOf(format: unknown): { pattern: string; message: string } {
  const known = typeof format === 'string' && Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
  if (!known) throw new Uncovered();
  return known;
}
