import type { JsonSchema } from '../metadata/metadata-args.js';

/** The schema keyword naming the HTTP header that mirrors a tool parameter (SEP-2243). */
export const HEADER_PARAM_KEYWORD = 'x-mcp-header';

/** A tool parameter mirrored in an `Mcp-Param-{name}` header on 2026-07-28 HTTP requests. */
export interface HeaderParam {
  /** The property names from the argument object's root down to the parameter. */
  readonly path: readonly string[];
  /** The header's name after `Mcp-Param-`, as declared. */
  readonly header: string;
  readonly type: 'string' | 'integer' | 'boolean';
}

/** RFC 9110 `token`: what a header name may contain. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TYPES = new Set(['string', 'integer', 'boolean']);

/** Keywords whose subschemas are not reached through `properties` alone: no declaration may sit there. */
const OFF_PATH = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
] as const;
const NAMED_SUBSCHEMAS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);

/**
 * The header parameters an input schema declares, or the first rule it breaks: a declaration sits on
 * a property reached from the root through `properties` only, names an RFC 9110 token unique in the
 * schema (case-insensitively), and is on a `string`, `integer` or `boolean` property.
 */
export function headerParamsOf(schema: JsonSchema): { params: HeaderParam[] } | { problem: string } {
  const params: HeaderParam[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    const schemaNode = node as Record<string, unknown>;
    if (HEADER_PARAM_KEYWORD in schemaNode) {
      const where = path.length === 0 ? 'the schema root' : path.join('.');
      if (!reachable || path.length === 0)
        return `${where} declares ${HEADER_PARAM_KEYWORD}, which only a property reached through "properties" may`;
      const header = schemaNode[HEADER_PARAM_KEYWORD];
      if (typeof header !== 'string' || !TOKEN.test(header)) {
        return `${where}: ${HEADER_PARAM_KEYWORD} ${JSON.stringify(header)} is not a header name (letters, digits and !#$%&'*+-.^_\`|~, no spaces)`;
      }
      const type = schemaNode.type;
      if (typeof type !== 'string' || !TYPES.has(type)) {
        return `${where}: ${HEADER_PARAM_KEYWORD} is only allowed on a string, integer or boolean property (this one is ${JSON.stringify(type) ?? 'untyped'})`;
      }
      const other = seen.get(header.toLowerCase());
      if (other !== undefined) return `${where}: the header name "${header}" is already used by ${other} (names are case-insensitive)`;
      seen.set(header.toLowerCase(), where);
      params.push({ path: [...path], header, type: type as HeaderParam['type'] });
    }
    const properties = schemaNode.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) {
        const problem = visit(child, [...path, key], reachable);
        if (problem) return problem;
      }
    }
    for (const keyword of OFF_PATH) {
      const sub = schemaNode[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub)
        ? sub
        : NAMED_SUBSCHEMAS.has(keyword) && sub !== null && typeof sub === 'object'
          ? Object.values(sub)
          : [sub];
      for (const branch of branches) {
        const problem = visit(branch, [...path, `<${keyword}>`], false);
        if (problem) return problem;
      }
    }
    return undefined;
  };
  const problem = visit(schema, [], true);
  return problem === undefined ? { params } : { problem };
}
