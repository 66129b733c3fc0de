import { classifyInboundRequest } from '@modelcontextprotocol/server';
import type { RequestHead } from '../../auth/bearer-auth.js';
import { MODERN_REVISION } from '../../context/revisions.js';
import { isEngineMethod } from '../../engine/accept-table.js';
import { isPlainObject } from '../../validation/plain-object.js';
import type { Message, ParsedBody } from '../http/http-messages.js';
import { isPlainRequest } from '../wire/json-rpc-shape.js';

/** Most envelopes remembered; past that the memory starts over (a client sends the same one each time). */
const MAX_REMEMBERED = 256;

/** A plain request (see `isPlainRequest`) whose `_meta` is an object: its envelope decides its route. */
function isEnvelopedRequest(message: Message): boolean {
  return isPlainRequest(message) && isPlainObject(message.params) && isPlainObject(message.params._meta);
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

  /**
   * A checked POST body the request engine may answer: one 2026-07-28 request of an engine method
   * that the SDK's own classifier routes to its 2026-07-28 path, carrying the standard headers that
   * path requires, matching the body. Anything else (a batch, a notification, a rejection the SDK
   * answers, a 2025-11-25 request) is routed as before.
   */
  engineCandidate(head: RequestHead, body: ParsedBody): Message | undefined {
    const message = body.value as Message | null;
    if (
      typeof message !== 'object' ||
      message === null ||
      Array.isArray(message) ||
      typeof message.method !== 'string' ||
      !isEngineMethod(message.method)
    ) {
      return undefined;
    }
    const protocolVersionHeader = head.headers.get('mcp-protocol-version') ?? undefined;
    const mcpMethodHeader = head.headers.get('mcp-method') ?? undefined;
    const mcpNameHeader = head.headers.get('mcp-name') ?? undefined;
    // The SDK requires both headers; it answers their absence itself.
    if (protocolVersionHeader !== MODERN_REVISION || mcpMethodHeader === undefined || mcpMethodHeader !== message.method) return undefined;
    if (message.method === 'tools/call') {
      // Mcp-Name must name the tool as the body does (an encoded or padded value is the SDK's to read).
      if (mcpNameHeader === undefined || mcpNameHeader !== message.params?.name || /^[\t ]|[\t ]$|^=\?/.test(mcpNameHeader))
        return undefined;
    }
    const modern = this.isModern(message, { protocolVersion: protocolVersionHeader, mcpMethod: mcpMethodHeader, mcpName: mcpNameHeader });
    return modern ? message : undefined;
  }

  isModern(message: Message, headers: { protocolVersion: string; mcpMethod: string; mcpName: string | undefined }): boolean {
    const plain = isEnvelopedRequest(message);
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
