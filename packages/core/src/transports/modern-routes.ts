import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { isPlainObject } from '../validation/plain-object.js';
import type { Message } from './http-messages.js';

/** Most envelopes remembered; past that the memory starts over (a client sends the same one each time). */
const MAX_REMEMBERED = 256;
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * True for a JSON-RPC request of plain shape: `jsonrpc` "2.0", a string or safe-integer id, a
 * method, params an object with an object `_meta`, and no other member (a `result` or `error`
 * would make it a response).
 */
function isPlainRequest(message: Message): boolean {
  for (const key in message) if (!REQUEST_KEYS.has(key)) return false;
  const { jsonrpc, id, method, params } = message as Record<string, unknown>;
  return (
    jsonrpc === '2.0' &&
    (typeof id === 'string' || Number.isSafeInteger(id)) &&
    typeof method === 'string' &&
    isPlainObject(params) &&
    isPlainObject(params._meta)
  );
}

/**
 * Whether the SDK's classifier routes a request to its 2026-07-28 path, asked once per envelope.
 * For a request of plain shape whose standard headers match its body, the classifier's verdict
 * depends on the method and the `_meta` envelope alone (its zod checks of the body's shape then
 * pass, and it reads no other param): the verdict for a method and envelope text is kept, so a
 * client's every later request skips those checks. Anything else is classified each time.
 */
export class ModernRoutes {
  private readonly modern = new Set<string>();

  isModern(message: Message, headers: { protocolVersion: string; mcpMethod: string; mcpName: string | undefined }): boolean {
    const plain = isPlainRequest(message);
    const key = plain ? `${message.method}\n${JSON.stringify(message.params?._meta)}` : undefined;
    if (key !== undefined && this.modern.has(key)) return true;
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: headers.protocolVersion,
      mcpMethodHeader: headers.mcpMethod,
      mcpNameHeader: headers.mcpName,
      body: message,
    });
    const modern = route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === headers.protocolVersion;
    if (modern && key !== undefined) {
      if (this.modern.size >= MAX_REMEMBERED) this.modern.clear();
      this.modern.add(key);
    }
    return modern;
  }
}
