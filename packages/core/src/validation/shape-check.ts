import type { ValidationIssue } from '../messages/validation-issue.js';
import type { JsonSchema } from '../metadata/metadata-args.js';
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
/** Checks the value found under `key` of the value at path `at` (`key` undefined: the value at `at`). */
type Check = (value: unknown, at: string, key: string | number | undefined, issues: Issues) => Issues;

/** Ajv's type tests with `strict: false` (so `strictNumbers` off): Infinity is a number and an integer. */
const TYPE_TESTS: Readonly<Record<string, (value: unknown) => boolean>> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number',
  integer: (value) => typeof value === 'number' && !((value as number) % 1) && !Number.isNaN(value),
  boolean: (value) => typeof value === 'boolean',
  null: (value) => value === null,
  object: isObject,
  array: (value) => Array.isArray(value),
};

const NODE_KEYS = new Set(['type', 'properties', 'required', 'additionalProperties', 'items', '$ref', 'pattern']);
const REF = /^#\/\$defs\/([A-Za-z0-9_$]+)$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function pathOf(at: string, key: string | number | undefined): string {
  if (key === undefined) return at;
  return at === '' ? String(key) : `${at}.${key}`;
}

function add(issues: Issues, path: string, message: string): ValidationIssue[] {
  const list = issues ?? [];
  list.push({ path, message });
  return list;
}

/** The compiled shape check, or undefined when `schema` uses something only Ajv covers. */
export function compileOwnShapeCheck(schema: JsonSchema): JsonValidator | undefined {
  const { $schema: _dialect, $defs, ...root } = schema;
  if ($defs !== undefined && !isObject($defs)) return undefined;
  const slots = new Map<string, { check?: Check }>();
  for (const name of Object.keys($defs ?? {})) slots.set(name, {});
  const compile = (node: unknown): Check | undefined => (isObject(node) ? compileNode(node, slots, compile) : undefined);
  for (const [name, slot] of slots) {
    slot.check = compile(($defs as Record<string, unknown>)[name]);
    if (!slot.check) return undefined;
  }
  const check = compile(root);
  if (!check) return undefined;
  return (value) => {
    const issues = check(value, '', undefined, undefined);
    return issues ? { ok: false, issues: unique(issues) } : { ok: true, value };
  };
}

/**
 * One schema node. The order of the checks is Ajv's: the type, then `$ref`, then the keywords of
 * the value's type (strings: `pattern`; arrays: `items`; objects: `required`, then
 * `additionalProperties`, then `properties`), each only when the value has that type.
 */
function compileNode(
  node: Record<string, unknown>,
  slots: ReadonlyMap<string, { check?: Check }>,
  compile: (node: unknown) => Check | undefined,
): Check | undefined {
  if (Object.keys(node).some((key) => !NODE_KEYS.has(key))) return undefined;
  const { type, $ref, pattern, items, properties, required, additionalProperties } = node;

  if (type !== undefined && (typeof type !== 'string' || !Object.hasOwn(TYPE_TESTS, type))) return undefined;
  const typeTest = type === undefined ? undefined : TYPE_TESTS[type as string];
  const typeMessage = `must be ${String(type)}`;

  let ref: { check?: Check } | undefined;
  if ($ref !== undefined) {
    const name = typeof $ref === 'string' ? REF.exec($ref)?.[1] : undefined;
    ref = name === undefined ? undefined : slots.get(name);
    if (!ref) return undefined;
  }

  let regex: RegExp | undefined;
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') return undefined;
    try {
      regex = new RegExp(pattern, 'u'); // Ajv's unicodeRegExp default
    } catch {
      return undefined;
    }
  }
  const patternMessage = `must match pattern "${String(pattern)}"`;

  let itemCheck: Check | undefined;
  if (items !== undefined) {
    itemCheck = compile(items);
    if (!itemCheck) return undefined;
  }

  if (required !== undefined && !(Array.isArray(required) && required.every((name) => typeof name === 'string'))) return undefined;
  const requiredNames = (required as string[] | undefined) ?? [];
  if (additionalProperties !== undefined && typeof additionalProperties !== 'boolean') return undefined;
  const closed = additionalProperties === false;
  if (properties !== undefined && !isObject(properties)) return undefined;
  const propertyChecks: [string, Check][] = [];
  for (const [name, sub] of Object.entries(properties ?? {})) {
    const check = compile(sub);
    if (!check) return undefined;
    propertyChecks.push([name, check]);
  }
  const known = new Set(propertyChecks.map(([name]) => name));
  const objectKeywords = requiredNames.length > 0 || closed || propertyChecks.length > 0;

  return (value, at, key, issues) => {
    if (typeTest && !typeTest(value)) issues = add(issues, pathOf(at, key), typeMessage);
    if (ref) issues = (ref.check as Check)(value, at, key, issues);
    if (regex && typeof value === 'string' && !regex.test(value)) issues = add(issues, pathOf(at, key), patternMessage);
    if (itemCheck && Array.isArray(value)) {
      const here = pathOf(at, key);
      for (let i = 0; i < value.length; i++) issues = itemCheck(value[i], here, i, issues);
    }
    if (objectKeywords && isObject(value)) {
      const here = pathOf(at, key);
      for (const name of requiredNames) if (value[name] === undefined) issues = add(issues, pathOf(here, name), 'is required');
      if (closed) for (const name in value) if (!known.has(name)) issues = add(issues, pathOf(here, name), 'unknown property; remove it');
      for (const [name, check] of propertyChecks) {
        const property = value[name];
        if (property !== undefined) issues = check(property, here, name, issues);
      }
    }
    return issues;
  };
}
