import { type JSONRPCMessage, parseJSONRPCMessage } from '@modelcontextprotocol/server';
import { isPlainObject } from '../../validation/plain-object.js';

/** A JSON-RPC 2.0 request or notification of plain shape (see `isPlainCall`). */
export interface PlainCall {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly id?: string | number;
  readonly params?: Record<string, unknown>;
}

const CALL_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * The one test of a call's plain shape, which the SDK's schemas read as it stands: `jsonrpc` "2.0",
 * a string method, an id (if any) a string or safe integer, params (if any) an object, and no other
 * member (a `result` or `error` would make it a response). `_meta` is each caller's to judge.
 */
function isPlainCall(value: unknown): value is PlainCall {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) if (!CALL_KEYS.has(key)) return false;
  const { jsonrpc, id, method, params } = value as Record<string, unknown>;
  return (
    jsonrpc === '2.0' &&
    typeof method === 'string' &&
    (!('id' in value) || typeof id === 'string' || Number.isSafeInteger(id)) &&
    (!('params' in value) || isPlainObject(params))
  );
}

/**
 * A request of plain shape (a call with an id), whatever its `_meta`: what the HTTP endpoint may
 * take into a session, and what the 2026-07-28 routes may remember by its envelope.
 */
export function isPlainRequest(value: unknown): value is PlainCall & { readonly id: string | number } {
  return isPlainCall(value) && 'id' in value;
}

/**
 * The common message, recognised without the SDK's schema parser: a call of plain shape whose
 * `_meta` (if any) holds nothing the schema checks but a string or safe-integer progress token. The
 * SDK's `parseJSONRPCMessage` accepts it unchanged; anything else is left to that parser, which
 * decides as it always did.
 */
export function asPlainJsonRpcCall(value: unknown): JSONRPCMessage | undefined {
  if (!isPlainCall(value)) return undefined;
  const { params } = value;
  if (params !== undefined && '_meta' in params && !isPlainMeta(params._meta)) return undefined;
  return value as JSONRPCMessage;
}

function isPlainMeta(meta: unknown): boolean {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return false;
  const { progressToken } = meta as { progressToken?: unknown };
  if (progressToken !== undefined && typeof progressToken !== 'string' && !Number.isSafeInteger(progressToken)) return false;
  return !('io.modelcontextprotocol/related-task' in meta);
}

/**
 * A request id as a key (of a map of requests in flight): the string `"1"` and the number `1` are
 * different ids in JSON-RPC, so they get different keys.
 */
export function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

/**
 * `value` as the SDK's session transport hands it to its server (parsed by the SDK's message
 * schema, which leaves the plain shape unchanged), or undefined when that schema refuses it.
 */
export function asSessionMessage(value: unknown): JSONRPCMessage | undefined {
  const plain = asPlainJsonRpcCall(value);
  if (plain) return plain;
  try {
    return parseJSONRPCMessage(value);
  } catch {
    return undefined;
  }
}
