import { type JSONRPCMessage, parseJSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * The common message, recognised without the SDK's schema parser: a JSON-RPC 2.0 request or
 * notification whose `params` (if any) is an object and whose `id` (if any) is a string or a safe
 * integer, with no other members, and whose `_meta` (if any) holds nothing the schema checks but a
 * string or safe-integer progress token. The SDK's `parseJSONRPCMessage` accepts it unchanged; anything
 * else is left to that parser, which decides as it always did.
 */
export function asPlainJsonRpcCall(value: unknown): JSONRPCMessage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0' || typeof message.method !== 'string') return undefined;
  let members = 2;
  if ('id' in message) {
    const id = message.id;
    if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
    members++;
  }
  if ('params' in message) {
    const params = message.params;
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return undefined;
    if ('_meta' in params && !isPlainMeta((params as { _meta?: unknown })._meta)) return undefined;
    members++;
  }
  let count = 0;
  for (const _ in message) count++;
  return count === members ? (message as JSONRPCMessage) : undefined;
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
