import type { ReadResourceResult } from '@modelcontextprotocol/server';

type Contents = ReadResourceResult['contents'][number];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isContents(value: unknown): value is Contents {
  return isObject(value) && typeof value.uri === 'string' && (typeof value.text === 'string' || typeof value.blob === 'string');
}

/**
 * What a resource method returned, as a ReadResourceResult: a string is text, bytes are a base64
 * `blob`, a `{ text }` / `{ blob }` object or an array of contents is used as is (the URI and MIME
 * type filled in when missing), and `{ contents: [...] }` is the result itself. The `_meta` an
 * extension gave the resource goes on the contents too (an MCP App's `_meta.ui`, its CSP and
 * permissions: hosts read it there first).
 */
export function toReadResourceResult(
  uri: string,
  mimeType: string | undefined,
  value: unknown,
  meta?: Readonly<Record<string, unknown>>,
): ReadResourceResult {
  const base = { uri, ...(mimeType ? { mimeType } : {}), ...(meta ? { _meta: { ...meta } } : {}) };
  if (typeof value === 'string') return { contents: [{ ...base, text: value }] };
  if (value instanceof Uint8Array) {
    return { contents: [{ ...base, blob: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') }] };
  }
  if (isObject(value) && Array.isArray(value.contents) && value.contents.every(isContents)) return value as ReadResourceResult;
  const list = Array.isArray(value) ? value : [value];
  if (list.length > 0 && list.every((item) => isObject(item) && (typeof item.text === 'string' || typeof item.blob === 'string'))) {
    return { contents: list.map((item) => ({ ...base, ...(item as object) }) as Contents) };
  }
  if (isObject(value) || Array.isArray(value))
    return { contents: [{ uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value) }] };
  throw new TypeError(`a resource must return a string, bytes or contents, got ${value === null ? 'null' : typeof value}`);
}
