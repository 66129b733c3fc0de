import type { NegotiatedExtension } from '../../builder/definitions.js';
import { isPlainObject } from '../../validation/plain-object.js';
import type { CallRequest } from '../call-request.js';

// Capability negotiation of an extension, per request: what its gated methods and its changes of
// tools go by, on both revisions (the client's capabilities at `initialize` on 2025-11-25, the
// request's own on 2026-07-28).

/** Whether the request's client negotiated `extension`: it declared it, and the extension accepts what it declared. */
export function negotiates(call: CallRequest, extension: NegotiatedExtension): boolean {
  const declared = call.ctx.clientCapabilities?.extensions?.[extension.id];
  if (!isPlainObject(declared)) return false;
  if (!extension.accepts) return true;
  try {
    return extension.accepts(declared as Record<string, unknown>) === true;
  } catch {
    return false;
  }
}
