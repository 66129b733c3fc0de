import { DATE_TIME_MESSAGE, type ValidationIssue } from '../messages/validation-issue.js';
import type { JsonSchema } from '../metadata/metadata-args.js';
import { DATE_TIME_PATTERN } from '../schema/dto-to-json-schema.js';
import { compileShapeCheckWithAjv, type JsonValidator, unique } from './json-schema-validator.js';

/**
 * The shape check of a DTO (types, nesting, required and unknown properties: structuralSchema's
 * keywords) compiled into plain functions at start-up, with Ajv's answers: same accept/reject, same
 * issues in the same order (a differential test runs both on generated payloads). Ajv, which costs
 * about 6 MB of resident memory and 35 ms of a cold start to load and compile, is then loaded only
 * for a schema this does not cover (a keyword or form outside the list below).
 */
export function compileShapeCheck(schema: JsonSchema): JsonValidator {
  return compileOwnShapeCheck(schema) ?? compileShapeCheckWithAjv(schema);
}

/** Issues found so far; undefined while there are none (a valid payload allocates nothing). */
type Issues = ValidationIssue[] | undefined;
/** One generated function per `$defs` entry and one for the root: (value, its path, issues so far). */
type Check = (value: unknown, path: string, issues: Issues) => Issues;

/** Ajv's type tests with `strict: false` (so `strictNumbers` off: Infinity is a number and an integer). */
const TYPE_TESTS: Readonly<Record<string, (v: string) => string>> = {
  string: (v) => `typeof ${v} === "string"`,
  number: (v) => `typeof ${v} === "number"`,
  integer: (v) => `(typeof ${v} === "number" && !(${v} % 1) && !Number.isNaN(${v}))`,
  boolean: (v) => `typeof ${v} === "boolean"`,
  null: (v) => `${v} === null`,
  object: (v) => `(${v} !== null && typeof ${v} === "object" && !Array.isArray(${v}))`,
  array: (v) => `Array.isArray(${v})`,
};

const NODE_KEYS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', '$ref', 'pattern', 'format']);
/** The formats the shape check tests, with their message (Ajv's reference gets the same: shapeFormats). */
const FORMATS: Readonly<Record<string, { pattern: string; message: string }>> = {
  'date-time': { pattern: DATE_TIME_PATTERN, message: DATE_TIME_MESSAGE },
};
const REF = /^#\/\$defs\/([A-Za-z0-9_$]+)$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The dotted path of `key` under `at` (what Ajv's instancePath becomes in toIssue). */
function pathOf(at: string, key: string | number): string {
  return at === '' ? String(key) : `${at}.${key}`;
}

function add(issues: Issues, path: string, message: string): ValidationIssue[] {
  const list = issues ?? [];
  list.push({ path, message });
  return list;
}

/** Thrown while generating when the schema uses something only Ajv covers. */
class Uncovered extends Error {}

/**
 * The compiled shape check, or undefined when `schema` uses something only Ajv covers. The code is
 * generated once at start-up (like Ajv's, and compile-dto's): a path is only put together when an
 * issue is reported, and a valid payload allocates nothing.
 */
export function compileOwnShapeCheck(schema: JsonSchema): JsonValidator | undefined {
  const { $defs = {}, ...root } = schema;
  if (!isObject($defs)) return undefined;
  const defNames = Object.keys($defs);
  const patterns: RegExp[] = [];
  let counter = 0;
  const fresh = () => `v${counter++}`;

  /** Statements checking the value in variable `v`, whose path is the expression `path`. */
  function node(schemaNode: unknown, v: string, path: string): string {
    if (!isObject(schemaNode) || Object.keys(schemaNode).some((key) => !NODE_KEYS.has(key))) throw new Uncovered();
    const { type, $ref, pattern, format, items, properties, required, additionalProperties } = schemaNode;
    const out: string[] = [];
    // Ajv's order: the type, then $ref, then the keywords of the value's type, each only when it has that type.
    if (type !== undefined) {
      if (typeof type !== 'string' || !Object.hasOwn(TYPE_TESTS, type)) throw new Uncovered();
      out.push(
        `if (!(${(TYPE_TESTS[type] as (v: string) => string)(v)})) issues = add(issues, ${path}, ${JSON.stringify(`must be ${type}`)});`,
      );
    }
    if ($ref !== undefined) {
      const index = typeof $ref === 'string' ? defNames.indexOf(REF.exec($ref)?.[1] ?? '') : -1;
      if (index < 0) throw new Uncovered();
      out.push(`issues = f${index}(${v}, ${path}, issues);`);
    }
    if (pattern !== undefined) {
      if (typeof pattern !== 'string') throw new Uncovered();
      try {
        patterns.push(new RegExp(pattern, 'u')); // Ajv's unicodeRegExp default
      } catch {
        throw new Uncovered();
      }
      const message = JSON.stringify(`must match pattern "${pattern}"`);
      out.push(`if (typeof ${v} === "string" && !re[${patterns.length - 1}].test(${v})) issues = add(issues, ${path}, ${message});`);
    }
    if (format !== undefined) {
      const known = typeof format === 'string' && Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
      if (!known) throw new Uncovered();
      patterns.push(new RegExp(known.pattern, 'u'));
      const message = JSON.stringify(known.message);
      out.push(`if (typeof ${v} === "string" && !re[${patterns.length - 1}].test(${v})) issues = add(issues, ${path}, ${message});`);
    }
    if (items !== undefined) {
      const i = fresh();
      const item = fresh();
      out.push(
        `if (Array.isArray(${v})) for (let ${i} = 0; ${i} < ${v}.length; ${i}++) {`,
        `const ${item} = ${v}[${i}];`,
        node(items, item, `p(${path}, ${i})`),
        '}',
      );
    }
    if (required !== undefined && !(Array.isArray(required) && required.every((name) => typeof name === 'string'))) throw new Uncovered();
    if (additionalProperties !== undefined && typeof additionalProperties !== 'boolean') throw new Uncovered();
    if (properties !== undefined && !isObject(properties)) throw new Uncovered();
    const names = Object.keys(properties ?? {});
    const object: string[] = [];
    for (const name of (required as string[] | undefined) ?? []) {
      const key = JSON.stringify(name);
      object.push(`if (${v}[${key}] === undefined) issues = add(issues, p(${path}, ${key}), "is required");`);
    }
    if (additionalProperties === false) {
      const k = fresh();
      const known = names.map((name) => `${k} !== ${JSON.stringify(name)}`).join(' && ') || 'true';
      object.push(`for (const ${k} in ${v}) if (${known}) issues = add(issues, p(${path}, ${k}), "unknown property; remove it");`);
    }
    for (const name of names) {
      const key = JSON.stringify(name);
      const sub = fresh();
      object.push(
        `{ const ${sub} = ${v}[${key}];`,
        `if (${sub} !== undefined) {`,
        node((properties as Record<string, unknown>)[name], sub, `p(${path}, ${key})`),
        '} }',
      );
    }
    if (object.length > 0) out.push(`if (${(TYPE_TESTS.object as (v: string) => string)(v)}) {`, ...object, '}');
    return out.join('\n');
  }

  let code: string;
  try {
    const functions = [...defNames.map((name) => $defs[name]), root].map(
      (def, index) => `function f${index}(value, path, issues) {\n${node(def, 'value', 'path')}\nreturn issues;\n}`,
    );
    code = `"use strict";\n${functions.join('\n')}\nreturn f${defNames.length};`;
  } catch (error) {
    if (error instanceof Uncovered) return undefined;
    throw error;
  }
  const check = new Function('add', 'p', 're', code)(add, pathOf, patterns) as Check;
  return (value) => {
    const issues = check(value, '', undefined);
    return issues ? { ok: false, issues: unique(issues) } : { ok: true, value };
  };
}
