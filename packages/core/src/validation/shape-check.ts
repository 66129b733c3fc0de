import type { JsonSchema } from '../metadata/metadata-args.js';
import { codeGenerationAllowed } from './code-generation.js';
import { compileShapeCheckWithAjv, type JsonValidator, unique } from './json-schema-validator.js';
import { compileClosureShapeCheck } from './shape-check-closures.js';
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
 * The shape check of a DTO (types, nesting, required and unknown properties: structuralSchema's
 * keywords) compiled into plain functions at start-up, with Ajv's answers: same accept/reject, same
 * issues in the same order (a differential test runs both on generated payloads). Ajv, which costs
 * about 6 MB of resident memory and 35 ms of a cold start to load and compile, is then loaded only
 * for a schema this does not cover (a keyword or form outside shape-check-keywords.ts).
 */
export function compileShapeCheck(schema: JsonSchema): JsonValidator {
  return compileOwnShapeCheck(schema) ?? compileShapeCheckWithAjv(schema);
}

/**
 * The shape check as generated code, or as closures where the runtime refuses code generation
 * from strings (Cloudflare Workers); undefined when `schema` uses something only Ajv covers.
 */
export function compileOwnShapeCheck(schema: JsonSchema): JsonValidator | undefined {
  return codeGenerationAllowed() ? compileGeneratedShapeCheck(schema) : compileClosureShapeCheck(schema);
}

/** One generated function per `$defs` entry and one for the root: (value, its path, issues so far). */
type Check = (value: unknown, path: string, issues: Issues) => Issues;

/** The dotted path of `key` under `at` (what Ajv's instancePath becomes in toIssue). */
function pathOf(at: string, key: string | number): string {
  return at === '' ? String(key) : `${at}.${key}`;
}

/**
 * The shape check as code generated once at start-up (like Ajv's, and compile-dto's): a path is
 * only put together when an issue is reported, and a valid payload allocates nothing.
 */
export function compileGeneratedShapeCheck(schema: JsonSchema): JsonValidator | undefined {
  const { $defs = {}, ...root } = schema;
  if (!isObject($defs)) return undefined;
  const defNames = Object.keys($defs);
  const patterns: RegExp[] = [];
  let counter = 0;
  const fresh = () => `v${counter++}`;
  const matches = (re: RegExp, v: string, path: string, message: string) => {
    patterns.push(re);
    return `if (typeof ${v} === "string" && !re[${patterns.length - 1}].test(${v})) issues = add(issues, ${path}, ${JSON.stringify(message)});`;
  };

  /** Statements checking the value in variable `v`, whose path is the expression `path`. */
  function node(schemaNode: unknown, v: string, path: string): string {
    const { type, $ref, pattern, format, items } = keywordsOf(schemaNode);
    const out: string[] = [];
    // Ajv's order: the type, then $ref, then the keywords of the value's type, each only when it has that type.
    if (type !== undefined) {
      const name = typeOf(type);
      out.push(`if (!t.${name}(${v})) issues = add(issues, ${path}, ${JSON.stringify(`must be ${name}`)});`);
    }
    if ($ref !== undefined) out.push(`issues = f${refIndex($ref, defNames)}(${v}, ${path}, issues);`);
    if (pattern !== undefined) out.push(matches(patternOf(pattern), v, path, `must match pattern "${pattern}"`));
    if (format !== undefined) {
      const known = formatOf(format);
      out.push(matches(patternOf(known.pattern), v, path, known.message));
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
    const { names, required, closed } = objectKeywords(schemaNode as Record<string, unknown>);
    const properties = (schemaNode as { properties?: Record<string, unknown> }).properties ?? {};
    const object: string[] = [];
    for (const name of required) {
      const key = JSON.stringify(name);
      object.push(`if (${v}[${key}] === undefined) issues = add(issues, p(${path}, ${key}), "is required");`);
    }
    if (closed) {
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
        node(properties[name], sub, `p(${path}, ${key})`),
        '} }',
      );
    }
    if (object.length > 0) out.push(`if (t.object(${v})) {`, ...object, '}');
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
  const check = new Function('add', 'p', 're', 't', code)(add, pathOf, patterns, TYPE_TESTS) as Check;
  return (value) => {
    const issues = check(value, '', undefined);
    return issues ? { ok: false, issues: unique(issues) } : { ok: true, value };
  };
}
