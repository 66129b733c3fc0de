import { classifyInboundRequest } from '@modelcontextprotocol/server';
import type { RequestHead } from '../../auth/bearer-auth.js';
import { MODERN_REVISION } from '../../context/revisions.js';
import { isEngineMethod } from '../../engine/accept-table.js';
import { isPlainObject } from '../../validation/plain-object.js';
import type { Message, ParsedBody } from '../http/http-messages.js';
import { isPlainRequest } from '../wire/json-rpc-shape.js';

/** Most envelopes remembered; past that the memory starts over (a client sends the same one each time). */
const MAX_REMEMBERED = 256;
/** Longest envelope (as JSON text) remembered: a client's is far shorter; a longer one is classified each time. */
const MAX_REMEMBERED_LENGTH = 4_096;
/**
 * The `_meta` member a remembered envelope leaves out: a progress token of the type the SDK's envelope
 * schema takes (a string or a safe integer), new with each call of a client that asks for progress.
 * Its value does not change the classifier's verdict, only its type does (another type is classified).
 */
const TOKEN = 'progressToken';

/** Whether `meta`'s progress token is one a remembered envelope leaves out. */
function skipsToken(meta: Record<string, unknown>): boolean {
  const token = meta[TOKEN];
  return typeof token === 'string' || Number.isSafeInteger(token);
}

/** A remembered request: its method and a copy of its `_meta` (a handler may change the one it was given). */
interface Remembered {
  readonly method: string;
  readonly meta: Record<string, unknown>;
}

/** A plain request (see `isPlainRequest`) whose `_meta` is an object: its envelope decides its route. */
function isEnvelopedRequest(message: Message): boolean {
  return isPlainRequest(message) && isPlainObject(message.params) && isPlainObject(message.params._meta);
}

/**
 * Whether the SDK's classifier routes a request to its 2026-07-28 path, asked once per envelope.
 * For a request of plain shape whose standard headers match its body, the classifier's verdict
 * depends on the method and the `_meta` envelope alone (its zod checks of the body's shape then
 * pass, and it reads no other param): the verdict for a method and envelope is kept (compared
 * member by member, not encoded to a text per request), so a
 * client's every later request skips those checks. Anything else is classified each time.
 */
export class ModernRoutes {
  /** The envelopes routed to 2026-07-28, by a hash of their method and members. */
  private readonly modern = new Map<number, Remembered[]>();
  private remembered = 0;

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
    const meta = message.params?._meta as Record<string, unknown>;
    const skip = plain && skipsToken(meta);
    const hash = plain ? metaHash(meta, skip, stringHash(message.method as string, HASH_SEED)) : 0;
    if (plain) {
      for (const known of this.modern.get(hash) ?? NONE)
        if (known.method === message.method && sameMeta(known.meta, meta, skip)) return true;
    }
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: headers.protocolVersion,
      mcpMethodHeader: headers.mcpMethod,
      mcpNameHeader: headers.mcpName,
      body: message,
    });
    const modern = route.kind === 'modern' && route.messageKind === 'request' && route.classification.revision === headers.protocolVersion;
    if (modern && plain) this.remember(message.method as string, meta, skip, hash);
    return modern;
  }

  /** Remembers a copy of `meta` (without the progress token it skips), unless it is too long to keep. */
  private remember(method: string, meta: Record<string, unknown>, skip: boolean, hash: number): void {
    let kept = meta;
    if (skip) {
      const { [TOKEN]: _token, ...rest } = meta;
      kept = rest;
    }
    const text = JSON.stringify(kept);
    if (text.length > MAX_REMEMBERED_LENGTH) return;
    if (this.remembered >= MAX_REMEMBERED) {
      this.modern.clear();
      this.remembered = 0;
    }
    const known = { method, meta: JSON.parse(text) as Record<string, unknown> };
    const bucket = this.modern.get(hash);
    if (bucket) bucket.push(known);
    else this.modern.set(hash, [known]);
    this.remembered++;
  }
}

const NONE: readonly Remembered[] = [];
const HASH_SEED = 0x811c9dc5;

/** FNV-1a of a string's UTF-16 units, from `hash`. */
function stringHash(text: string, hash: number): number {
  let h = hash;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * A hash of a JSON value (as `JSON.parse` makes it) that does not depend on the order of an
 * object's members, made without allocating: what `sameJson` finds equal hashes the same.
 */
function jsonHash(value: unknown, hash: number): number {
  if (typeof value === 'string') return stringHash(value, Math.imul(hash ^ 1, 0x01000193));
  // A number by its integer part (equal numbers hash the same), true, false and null by a constant each.
  if (typeof value === 'number') return Math.imul(hash ^ 2 ^ (value | 0), 0x01000193) >>> 0;
  if (typeof value !== 'object' || value === null)
    return Math.imul(hash ^ (value === true ? 5 : value === false ? 6 : 7), 0x01000193) >>> 0;
  if (Array.isArray(value)) {
    let h = Math.imul(hash ^ 3, 0x01000193);
    for (const item of value) h = jsonHash(item, h);
    return h;
  }
  let members = 0;
  for (const key in value) members = (members + jsonHash((value as Record<string, unknown>)[key], stringHash(key, HASH_SEED))) >>> 0;
  return Math.imul(hash ^ 4 ^ members, 0x01000193) >>> 0;
}

/** `jsonHash` of `meta`, without its progress token when `skip`. */
function metaHash(meta: Record<string, unknown>, skip: boolean, hash: number): number {
  let members = 0;
  for (const key in meta) if (!skip || key !== TOKEN) members = (members + jsonHash(meta[key], stringHash(key, HASH_SEED))) >>> 0;
  return Math.imul(hash ^ 4 ^ members, 0x01000193) >>> 0;
}

/** Whether `meta` (without its progress token when `skip`) is the remembered `known`. */
function sameMeta(known: Record<string, unknown>, meta: Record<string, unknown>, skip: boolean): boolean {
  let members = 0;
  for (const key in known) {
    if (!Object.hasOwn(meta, key) || !sameJson(known[key], meta[key])) return false;
    members++;
  }
  for (const key in meta) if (!skip || key !== TOKEN) members--;
  return members === 0;
}

/** Whether two JSON values (as `JSON.parse` makes them) are equal, whatever the order of their objects' members. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return a === b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  let members = 0;
  for (const key in a) {
    if (!Object.hasOwn(b, key) || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
    members++;
  }
  for (const _ in b) members--;
  return members === 0;
}
