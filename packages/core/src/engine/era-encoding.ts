import {
  isInputRequiredResult,
  type JSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  type Server,
} from '@modelcontextprotocol/server';
import { isKeptPage } from '../runtime/catalog.js';
import { type RequestSource, sourceOf } from '../runtime/request-source.js';
import type { SdkHandler, SdkInternals, WireCodec } from '../seams/sdk-internals.js';
import { isPlainObject } from '../validation/plain-object.js';
import { plainToolResultText } from './plain-result-text.js';

type Params = Record<string, unknown> | undefined;

/**
 * A request handler as both paths run it: after the SDK's parsing, or straight from the engine. Its
 * result, or a promise of it when something in it was asynchronous.
 */
export type RequestHandler = (params: Params, source: RequestSource) => unknown;
/** How the engine runs one method's handler on a revision: its result, or a promise of it. */
export type Invoke = (method: string, params: Params, source: RequestSource) => unknown;

/** An answer: the whole JSON-RPC message, or (for a wire that writes text) its result's JSON text. */
export type Answer = JSONRPCMessage | { readonly resultText: string };

/**
 * What differs between the revisions once a request is accepted: the SDK seams its handler runs
 * inside, and how its result or error is encoded. Everything else is the engine's, once.
 */
export interface Era {
  /** The handler wrapped as the SDK wraps its own on this revision, made once per method. */
  prepare(method: string, handler: RequestHandler): Invoke;
  /** The encoded answer to a result; throws what `error` answers when the result is refused. */
  answer(id: RequestId, method: string, result: unknown, takesText: boolean): Answer;
  /** A thrown error as the SDK answers it. */
  error(id: RequestId, error: unknown): JSONRPCMessage;
}

/**
 * A tool result made only of members the SDK's result schema passes through unchanged: text
 * blocks, `structuredContent`, `isError`. Anything else (a block the tool returned as is, `_meta`)
 * is checked by the SDK's own result schema, as on the SDK path.
 */
export function isPlainToolResult(result: unknown): boolean {
  if (!isPlainObject(result) || !Array.isArray(result.content)) return false;
  // The schema writes its members in its own order: only a result already in that order is unchanged.
  let order = 0;
  for (const key in result) {
    const rank = RESULT_ORDER.indexOf(key);
    if (rank < order) return false;
    order = rank + 1;
  }
  if (result.isError !== undefined && typeof result.isError !== 'boolean') return false;
  if (result.structuredContent !== undefined && !isPlainObject(result.structuredContent)) return false;
  for (const block of result.content as unknown[]) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
    let keys = 0;
    for (const key in block) if (++keys > 2 || (keys === 1 && key !== 'type')) return false;
  }
  return true;
}

const RESULT_ORDER = ['content', 'structuredContent', 'isError'];

/** A thrown error as the SDK answers it. */
function errorResponse(codec: WireCodec, id: RequestId, error: unknown): JSONRPCMessage {
  const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: codec.encodeErrorCode(Number.isSafeInteger(code) ? (code as number) : ProtocolErrorCode.InternalError),
      message: message ?? 'Internal error',
      ...(data !== undefined ? { data } : {}),
    },
  } as JSONRPCMessage;
}

/**
 * The encoded text of the list pages catalogs keep. Only the 2025-11-25 era writes text, and its
 * encoding depends on nothing but the result.
 */
const encodedTexts = new WeakMap<object, string>();

/** 2025-11-25: the handler as is; tool results through the SDK's result schema unless plainly valid. */
export function legacyEra(server: Server, sdk: SdkInternals): Era {
  const encode = (method: string, result: unknown) => {
    let value = result;
    if (method === 'tools/call' && !isPlainToolResult(result)) {
      const checked = sdk.codec(server).validateResult(method, result);
      if (!checked.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid tools/call result: ${checked.message}`);
      value = checked.value;
    }
    return sdk.codec(server).encodeResult(method, value, undefined);
  };
  return {
    prepare: (_method, handler) => (_m, params, source) => handler(params, source),
    answer(id, method, result, takesText) {
      // A plain tool result's text is written without building and walking its answer.
      if (takesText && method === 'tools/call' && isPlainToolResult(result)) {
        const resultText = plainToolResultText(result as Parameters<typeof plainToolResultText>[0]);
        if (resultText !== undefined) return { resultText };
      }
      // A list page a catalog keeps is the same object until the catalog changes: its text is made once.
      if (takesText && isKeptPage(result)) {
        let resultText = encodedTexts.get(result as object);
        if (resultText === undefined) {
          resultText = JSON.stringify(encode(method, result));
          encodedTexts.set(result as object, resultText);
        }
        return { resultText };
      }
      return { result: encode(method, result), jsonrpc: '2.0', id } as JSONRPCMessage;
    },
    error: (id, error) => errorResponse(sdk.codec(server), id, error),
  };
}

/**
 * 2026-07-28: the handler inside the SDK's own seams (input-required checks; the result schema
 * unless the result is plainly valid), encoded with the server's identity.
 */
export function modernEra(server: Server, sdk: SdkInternals): Era {
  return {
    prepare(method, handler) {
      // The SDK's seams take and hand on an SDK context: the source's own, found again inside.
      const raw: SdkHandler = (request, ctx) => handler(request.params, sourceOf(ctx));
      if (method !== 'tools/call') {
        const wrapped = sdk.wrap(server, method, raw);
        return (m, params, source) => wrapped({ method: m, params }, source.sdkContext());
      }
      return async (m, params, source) => {
        const request = { method: m, params };
        const result = await sdk.invokeInputRequiredCapable(server, m, raw, request, source.sdkContext());
        if (isInputRequiredResult(result as never) || isPlainToolResult(result)) return result;
        return sdk.wrap(server, m, async () => result)(request, source.sdkContext());
      };
    },
    answer(id, method, result) {
      try {
        return { result: sdk.codec(server).encodeResult(method, result, sdk.serverInfo(server)), jsonrpc: '2.0', id } as JSONRPCMessage;
      } catch (error) {
        server.onerror?.(new Error(`Failed to encode result for ${method}: ${error}`));
        return errorResponse(sdk.codec(server), id, { code: -32603, message: 'Internal error' });
      }
    },
    error: (id, error) => errorResponse(sdk.codec(server), id, error),
  };
}
