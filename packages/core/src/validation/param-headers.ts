import type { HeaderParam } from '../schema/header-params.js';

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
