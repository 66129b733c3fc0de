import type { JsonSchema } from '../metadata/metadata-args.js';
import type { JsonValidator } from './json-schema-validator.js';
import { unique } from './json-schema-validator.js';
import {
  add,
  formatOf,
  type Issues,
  isObject,
  keywordsOf,
  objectKeywords,
  patternOf,
  refIndex,
  TYPE_TESTS,
  typeOf,
  Uncovered,
} from './shape-check-keywords.js';

/**
 * The keys from the root down to the value being checked. One array serves every call of a check
 * (it is synchronous and calls no user code): a path is only put together when an issue is reported.
 */
type At = (string | number)[];
/** The check of one schema node: (value, where it is, issues so far) => issues now. */
type Check = (value: unknown, at: At, issues: Issues) => Issues;

/** The dotted path of `at`, then `key` (what Ajv's instancePath becomes in toIssue). */
function pathOf(at: At, key?: string | number): string {
  let path = '';
  for (const part of key === undefined ? at : [...at, key]) path = path === '' ? String(part) : `${path}.${part}`;
  return path;
}

const NOTHING: Check = (_value, _at, issues) => issues;

/** The checks of one node, run in turn. */
function all(checks: Check[]): Check {
  if (checks.length <= 1) return checks[0] ?? NOTHING;
  return (value, at, issues) => {
    for (let i = 0; i < checks.length; i++) issues = (checks[i] as Check)(value, at, issues);
    return issues;
  };
}

function matches(re: RegExp, message: string): Check {
  return (value, at, issues) => (typeof value === 'string' && !re.test(value) ? add(issues, pathOf(at), message) : issues);
}

/**
 * The shape check of shape-check.ts made of closures instead of generated code, for a runtime that
 * refuses code generation from strings (Cloudflare Workers): the same node-by-node logic, the same
 * issues in the same order (the differential test against Ajv runs both). Undefined when `schema`
 * uses something only Ajv covers. The generated version stays the default: it measured about four
 * times faster on a DTO's shape (docs/runtimes.md).
 */
export function compileClosureShapeCheck(schema: JsonSchema): JsonValidator | undefined {
  const { $defs = {}, ...root } = schema;
  if (!isObject($defs)) return undefined;
  const defNames = Object.keys($defs);
  // Filled once every definition is compiled: a $ref may point at itself or at a later one.
  const defs: Check[] = [];

  /** The check of `schemaNode`, in Ajv's order: the type, then $ref, then the keywords of the value's type. */
  function node(schemaNode: unknown): Check {
    const { type, $ref, pattern, format, items } = keywordsOf(schemaNode);
    const checks: Check[] = [];
    if (type !== undefined) {
      const name = typeOf(type);
      const test = TYPE_TESTS[name] as (v: unknown) => boolean;
      const message = `must be ${name}`;
      checks.push((value, at, issues) => (test(value) ? issues : add(issues, pathOf(at), message)));
    }
    if ($ref !== undefined) {
      const index = refIndex($ref, defNames);
      checks.push((value, at, issues) => (defs[index] as Check)(value, at, issues));
    }
    if (pattern !== undefined) checks.push(matches(patternOf(pattern), `must match pattern "${pattern}"`));
    if (format !== undefined) {
      const known = formatOf(format);
      checks.push(matches(patternOf(known.pattern), known.message));
    }
    if (items !== undefined) {
      const item = node(items);
      checks.push((value, at, issues) => {
        if (!Array.isArray(value)) return issues;
        for (let i = 0; i < value.length; i++) {
          at.push(i);
          issues = item(value[i], at, issues);
          at.pop();
        }
        return issues;
      });
    }
    const { names, required, closed } = objectKeywords(schemaNode as Record<string, unknown>);
    const properties = (schemaNode as { properties?: Record<string, unknown> }).properties ?? {};
    const checksOf = names.map((name) => node(properties[name]));
    const known = closed ? new Set(names) : undefined;
    if (required.length > 0 || known || names.length > 0) {
      checks.push((value, at, issues) => {
        if (!isObject(value)) return issues;
        for (let i = 0; i < required.length; i++) {
          const name = required[i] as string;
          if (value[name] === undefined) issues = add(issues, pathOf(at, name), 'is required');
        }
        if (known) for (const key in value) if (!known.has(key)) issues = add(issues, pathOf(at, key), 'unknown property; remove it');
        for (let i = 0; i < names.length; i++) {
          const name = names[i] as string;
          const sub = value[name];
          if (sub === undefined) continue;
          at.push(name);
          issues = (checksOf[i] as Check)(sub, at, issues);
          at.pop();
        }
        return issues;
      });
    }
    return all(checks);
  }

  let check: Check;
  try {
    for (const name of defNames) defs.push(node($defs[name]));
    check = node(root);
  } catch (error) {
    if (error instanceof Uncovered) return undefined;
    throw error;
  }
  const at: At = [];
  return (value) => {
    at.length = 0;
    const issues = check(value, at, undefined);
    return issues ? { ok: false, issues: unique(issues) } : { ok: true, value };
  };
}
