import type { JsonSchema } from '../metadata/metadata-args.js';
import { HEADER_PARAM_KEYWORD, type HeaderParam } from '../schema/header-params.js';

export type { HeaderParam };

/** The prefix of a parameter's header (SEP-2243): `Mcp-Param-{name}`. */
const PARAM_HEADER_PREFIX = 'mcp-param-';

/** A value that is not plain text travels as `=?base64?{payload}?=`. */
const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
/** Canonical Base64: the standard alphabet, padded to a multiple of 4. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The header value as text: Base64 payloads decoded; undefined when the payload is not canonical Base64 of UTF-8. */
function decoded(value: string): string | undefined {
  if (!value.startsWith(BASE64_PREFIX) || !value.endsWith(BASE64_SUFFIX) || value.length < BASE64_PREFIX.length + BASE64_SUFFIX.length) {
    return value;
  }
  const payload = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!BASE64.test(payload)) return undefined;
  try {
    return UTF8.decode(Uint8Array.from(atob(payload), (char) => char.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** The body's value as the header must carry it; undefined for a value no header mirrors (absent, null, not a primitive). */
function asHeaderText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Whether a value must travel Base64-wrapped: empty, padded with spaces, not printable ASCII, or looking wrapped itself. */
function needsBase64(text: string): boolean {
  if (text === '' || text !== text.trim() || (text.startsWith(BASE64_PREFIX) && text.endsWith(BASE64_SUFFIX))) return true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 9 && (code < 32 || code > 126)) return true;
  }
  return false;
}

/** Base64 of the text's UTF-8 bytes. */
function base64Of(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The `Mcp-Param-*` headers a client sends for `args` (what a gateway sends on to its remote). */
export function paramHeadersOf(params: readonly HeaderParam[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    const text = asHeaderText(valueAt(args, param.path));
    if (text === undefined) continue;
    headers[`Mcp-Param-${param.header}`] = headerValueOf(text);
  }
  return headers;
}

/** `text` as an `Mcp-Param-*` or `Mcp-Name` header carries it: as is, or Base64-wrapped when it must be. */
export function headerValueOf(text: string): string {
  return needsBase64(text) ? `${BASE64_PREFIX}${base64Of(text)}${BASE64_SUFFIX}` : text;
}

/** A header that disagrees with the body, and why. */
export interface ParamHeaderProblem {
  readonly header: string;
  readonly why: 'missing' | 'invalid-base64' | 'mismatch';
}

/**
 * The first declared parameter whose `Mcp-Param-*` header does not carry the body's value: the
 * header must be there when the body has a value (it is not looked at when the body has none), and
 * decode (Base64 when wrapped in `=?base64?...?=`) to that value. Integers compare as numbers.
 */
export function paramHeaderProblem(
  params: readonly HeaderParam[],
  args: unknown,
  headers: { get(name: string): string | null },
): ParamHeaderProblem | undefined {
  for (const param of params) {
    const body = valueAt(args, param.path);
    const expected = asHeaderText(body);
    if (expected === undefined) continue;
    const header = `Mcp-Param-${param.header}`;
    const sent = headers.get(`${PARAM_HEADER_PREFIX}${param.header}`);
    if (sent === null) return { header, why: 'missing' };
    const text = decoded(sent);
    if (text === undefined) return { header, why: 'invalid-base64' };
    const same = param.type === 'integer' && typeof body === 'number' ? DECIMAL.test(text) && Number(text) === body : text === expected;
    if (!same) return { header, why: 'mismatch' };
  }
  return undefined;
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
