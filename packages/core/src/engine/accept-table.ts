import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isSpecType,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { isPlainObject } from '../validation/plain-object.js';

// Which requests the engine answers itself, on either revision: one table. Anything else (another
// method, a param of another type or name, `_meta` the SDK would read differently) is declined and
// served by the SDK, whose schemas answer it as they always did. It judges a method and its params
// only: the message's own shape is transports/wire's `isPlainRequest`, checked before (engine/ cannot import transports/).

const isMetaKey = (key: string) => key === '_meta';
const isCallKey = (key: string) => key === 'name' || key === 'arguments' || key === '_meta';
const isListKey = (key: string) => key === 'cursor' || key === '_meta';

/** The params each method the engine serves may have (`_meta` is checked per revision below). */
const PARAMS: Readonly<Record<string, (params: Record<string, unknown>) => boolean>> = {
  'tools/call': (p) => typeof p.name === 'string' && (p.arguments === undefined || isPlainObject(p.arguments)) && ownKeysAre(p, isCallKey),
  'tools/list': (p) => (p.cursor === undefined || typeof p.cursor === 'string') && ownKeysAre(p, isListKey),
  ping: (p) => ownKeysAre(p, isMetaKey),
};

/** `Object.keys(p).every(allowed)`, without the array of keys a request would otherwise allocate. */
function ownKeysAre(p: Record<string, unknown>, allowed: (key: string) => boolean): boolean {
  for (const key in p) if (Object.hasOwn(p, key) && !allowed(key)) return false;
  return true;
}

/** Whether the engine serves `method` at all. */
export function isEngineMethod(method: string): boolean {
  return Object.hasOwn(PARAMS, method);
}

/** `_meta` keys the SDK lifts out of a request before its handler sees it (2026-07-28 material). */
const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';

function isProgressToken(value: unknown): boolean {
  return value === undefined || typeof value === 'string' || Number.isSafeInteger(value);
}

/**
 * A 2025-11-25 request the engine serves: a method of the table with its params, and `_meta` as
 * the SDK's request schemas accept it unchanged (an object with a valid progress token and no
 * envelope keys).
 */
export function acceptsLegacy(method: string, params: unknown): boolean {
  if (params === undefined) return isEngineMethod(method);
  if (!isPlainObject(params) || !PARAMS[method]?.(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isPlainObject(meta) || !isProgressToken(meta.progressToken)) return false;
  for (const key in meta) if (key.startsWith(ENVELOPE_PREFIX)) return false;
  return true;
}

/**
 * The envelope keys a 2026-07-28 request the engine serves may carry: the ones every such request
 * carries, and the log level it asks its call's log lines at.
 */
const ENVELOPE_KEYS = [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY];

/**
 * A 2026-07-28 request's `_meta` as the SDK splits it before its handler runs: the envelope
 * (`ctx.mcpReq.envelope`), and what stays `_meta` (`ctx.mcpReq._meta`: here a progress token, or nothing).
 */
export interface ModernMeta {
  readonly envelope: Record<string, unknown>;
  readonly meta: { readonly progressToken: string | number } | undefined;
}

/**
 * A 2026-07-28 request the engine serves, its `_meta` split as the SDK splits it (undefined when
 * declined): a method of the table with its params, and `_meta` holding nothing but those envelope
 * keys (a log level the SDK knows) and a progress token of the SDK's type.
 */
export function acceptsModern(method: string, params: unknown): ModernMeta | undefined {
  if (!isPlainObject(params) || !PARAMS[method]?.(params)) return undefined;
  const meta = params._meta;
  if (!isPlainObject(meta)) return undefined;
  let token = false;
  for (const key in meta) {
    if (key === 'progressToken') token = true;
    else if (!ENVELOPE_KEYS.includes(key)) return undefined;
  }
  if (token && (meta.progressToken === undefined || !isProgressToken(meta.progressToken))) return undefined;
  const level = meta[LOG_LEVEL_META_KEY];
  if (level !== undefined && !isSpecType.LoggingLevel(level)) return undefined;
  const envelope: Record<string, unknown> = {};
  for (const key of ENVELOPE_KEYS) if (key in meta) envelope[key] = meta[key];
  return { envelope, meta: token ? { progressToken: meta.progressToken as string | number } : undefined };
}
