import {
  type JSONRPCMessage,
  type MessageExtraInfo,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  SdkError,
  SdkErrorCode,
  type Server,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import { LEGACY_REVISION } from '../context/revisions.js';
import type { RuntimeStats } from '../runtime/call-request.js';
import { isKeptPage } from '../runtime/catalog.js';
import type { SdkInternals, SdkLog, WireCodec } from '../seams/sdk-internals.js';
import { isPlainObject } from '../validation/plain-object.js';

type Params = Record<string, unknown> | undefined;

/** A request handler as both paths run it: after the SDK's parsing, or straight from the wire. */
export type RequestHandler = (params: Params, sdk: ServerContext) => Promise<unknown>;

/** `_meta` keys and params the SDK lifts out of a request before its handler sees it (2026-07-28 material). */
const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';
const WIRE_ONLY_PARAMS = ['inputResponses', 'requestState', 'task', 'inputRequests'];

function isProgressToken(value: unknown): boolean {
  return value === undefined || typeof value === 'string' || Number.isSafeInteger(value);
}

/** `_meta` as the SDK's request schemas accept it unchanged: an object with a valid progress token and no envelope keys. */
function plainMeta(meta: unknown): boolean {
  if (meta === undefined) return true;
  if (!isPlainObject(meta) || !isProgressToken(meta.progressToken)) return false;
  for (const key in meta) if (key.startsWith(ENVELOPE_PREFIX)) return false;
  return true;
}

/**
 * Which params each direct method takes; anything else (a wrong type, an unknown member, 2026-07-28
 * material) goes to the SDK, whose schemas answer it as they always did.
 */
export const ACCEPTS: Readonly<Record<string, (params: Record<string, unknown>) => boolean>> = {
  'tools/call': (p) =>
    typeof p.name === 'string' &&
    (p.arguments === undefined || isPlainObject(p.arguments)) &&
    Object.keys(p).every((key) => key === 'name' || key === 'arguments' || key === '_meta'),
  'tools/list': (p) =>
    (p.cursor === undefined || typeof p.cursor === 'string') && Object.keys(p).every((key) => key === 'cursor' || key === '_meta'),
  ping: (p) => Object.keys(p).every((key) => key === '_meta'),
};

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

const NO_REQUEST_STATE = () => undefined;

/**
 * A transport that writes a response from its result's JSON text (the stdio line transport): a
 * list page, the same object until its catalog changes, is then serialized once, not per request.
 */
interface ResultTextSink {
  sendResultText(id: RequestId, resultJson: string): Promise<void>;
}

/**
 * The encoded text of the list pages catalogs keep. The direct path serves only the 2025-11-25
 * era, whose encoding depends on nothing but the result.
 */
const encodedTexts = new WeakMap<object, string>();

/**
 * `ctx.mcpReq` of a request the direct path serves: what the SDK's would hold for a 2025-11-25
 * request, with the abort signal made only when someone reads it.
 */
export class DirectRequestContext {
  readonly requestState = NO_REQUEST_STATE;
  private controller?: AbortController;
  private cancelled = false;
  private logger?: SdkLog;

  constructor(
    private readonly server: Server,
    private readonly sdk: SdkInternals,
    readonly id: RequestId,
    readonly method: string,
    readonly _meta: Record<string, unknown> | undefined,
    private readonly sessionId: string | undefined,
    /** A 2026-07-28 request's envelope (the modern direct path). */
    readonly envelope?: Record<string, unknown>,
    /** What its notifications and requests name as related: its id, or the 2026-07-28 exchange it belongs to. */
    private readonly related: unknown = id,
  ) {}

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.cancelled;
  }

  abort(reason: unknown): void {
    this.cancelled = true;
    this.controller ??= new AbortController();
    this.controller.abort(reason);
  }

  notify(notification: { method: string; params?: Record<string, unknown> }) {
    return this.server.notification(notification as never, { relatedRequestId: this.related as RequestId });
  }

  send(request: { method: string; params?: Record<string, unknown> }, options?: Record<string, unknown>) {
    return this.server.request(request as never, { ...options, relatedRequestId: this.related } as never);
  }

  /** The SDK's own log, made when the handler first logs: its filter (capability, level) applies as is. */
  log(level: string, data: unknown, logger?: string) {
    this.logger ??= this.sdk.logOf(this.server, { sessionId: this.sessionId, mcpReq: this });
    return this.logger(level, data, logger);
  }

  elicitInput(params: unknown, options?: unknown) {
    return this.server.elicitInput(params as never, options as never);
  }

  requestSampling(params: unknown, options?: unknown) {
    return this.server.createMessage(params as never, options as never);
  }
}

/**
 * Answers the frequent requests of an established 2025-11-25 connection (`tools/call`,
 * `tools/list`, `ping`) with the same handlers the SDK runs, without the SDK's per-message schema
 * parsing and context building. The answers are those of the SDK path, byte for byte: the results
 * go through the SDK's era codec, and a request the SDK would parse differently (or reject) is
 * left to the SDK. Everything else passes straight through.
 */
export class DirectDispatcher {
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly running = new Map<RequestId, DirectRequestContext>();

  constructor(
    private readonly server: Server,
    private readonly sdk: SdkInternals,
    private readonly stats: RuntimeStats,
  ) {}

  /** Serves `method` directly with `handler` (the one the SDK path runs), if it is a direct method. */
  handle(method: string, handler: RequestHandler): void {
    if (ACCEPTS[method]) this.handlers.set(method, handler);
  }

  /** Puts the direct path in front of the SDK on `transport`, after the SDK connected to it. */
  interpose(transport: Transport): void {
    const toSdk = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!this.offer(transport, message, extra)) toSdk?.(message, extra);
    };
    // As the SDK does for its own requests: a closed connection aborts the calls still running.
    const closed = transport.onclose;
    transport.onclose = () => {
      try {
        closed?.();
      } finally {
        const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
        for (const request of this.running.values()) request.abort(error);
        this.running.clear();
      }
    };
  }

  /** Serves `message` and returns true, or returns false to hand it to the SDK. */
  private offer(transport: Transport, message: JSONRPCMessage, extra: MessageExtraInfo | undefined): boolean {
    const { method, params } = message as { method?: unknown; params?: unknown };
    if (typeof method !== 'string') return false;
    if (!('id' in message)) {
      // A cancellation of a request served here aborts it; the SDK is told too (it ignores ids it
      // does not know). As on the SDK path, whose entry queues messages, the handler has begun by
      // then even when the cancel came in the same read: the abort listeners it added fire.
      if (method === 'notifications/cancelled' && isPlainObject(params)) {
        const request = this.running.get(params.requestId as RequestId);
        if (request) setImmediate(() => request.abort(params.reason));
      }
      return false;
    }
    const handler = this.handlers.get(method);
    if (!handler || (extra as { classification?: unknown } | undefined)?.classification !== undefined) return false;
    if (params !== undefined && !(isPlainObject(params) && plainMeta(params._meta) && ACCEPTS[method]?.(params))) return false;
    if (params !== undefined && WIRE_ONLY_PARAMS.some((key) => key in params)) return false;
    if (this.server.getNegotiatedProtocolVersion() === undefined) return false;
    const codec = this.sdk.codec(this.server);
    if (codec.era !== LEGACY_REVISION) return false;
    this.run(transport, codec, message.id as RequestId, method, params as Params, handler, extra);
    return true;
  }

  private run(
    transport: Transport,
    codec: WireCodec,
    id: RequestId,
    method: string,
    params: Params,
    handler: RequestHandler,
    extra: MessageExtraInfo | undefined,
  ): void {
    const sessionId = transport.sessionId;
    const http = httpOf(extra);
    const meta = params?._meta as Record<string, unknown> | undefined;
    const mcpReq = new DirectRequestContext(this.server, this.sdk, id, method, meta, sessionId);
    const ctx = { sessionId, mcpReq, http } as unknown as ServerContext;
    this.running.set(id, mcpReq);
    this.stats.direct++;
    Promise.resolve()
      .then(() => handler(params, ctx))
      .then((result) => this.answer(transport, codec, method, result))
      .then(
        async (answer) => {
          if (mcpReq.aborted) return;
          if (typeof answer === 'string') await (transport as unknown as ResultTextSink).sendResultText(id, answer);
          else await transport.send({ result: answer, jsonrpc: '2.0', id } as JSONRPCMessage);
        },
        async (error) => {
          if (mcpReq.aborted) return;
          await transport.send(errorResponse(codec, id, error));
        },
      )
      .catch((error) => this.server.onerror?.(new Error(`Failed to send response: ${error}`)))
      .finally(() => {
        if (this.running.get(id) === mcpReq) this.running.delete(id);
      });
  }

  /**
   * The encoded result, or its JSON text when the transport takes text and the result is a list
   * page a catalog keeps, whose text is then made once. (A frozen result of the handler's own may
   * hold objects that change: it is encoded each time.)
   */
  private answer(transport: Transport, codec: WireCodec, method: string, result: unknown): unknown {
    const takesText = typeof (transport as Partial<ResultTextSink>).sendResultText === 'function';
    if (!takesText || !isKeptPage(result)) return this.encode(codec, method, result);
    let text = encodedTexts.get(result as object);
    if (text === undefined) {
      text = JSON.stringify(this.encode(codec, method, result));
      encodedTexts.set(result as object, text);
    }
    return text;
  }

  /** The result as the SDK sends it: tool results through its result schema unless plainly valid, then its era encoding. */
  private encode(codec: WireCodec, method: string, result: unknown): unknown {
    let value = result;
    if (method === 'tools/call' && !isPlainToolResult(result)) {
      const checked = codec.validateResult(method, result);
      if (!checked.ok) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid tools/call result: ${checked.message}`);
      value = checked.value;
    }
    return codec.encodeResult(method, value, undefined);
  }
}

/** `ctx.http` as the SDK builds it from what the transport passed with the message. */
function httpOf(extra: MessageExtraInfo | undefined): ServerContext['http'] {
  if (!extra) return undefined;
  const { authInfo, request, closeSSEStream, closeStandaloneSSEStream } = extra as MessageExtraInfo & {
    closeSSEStream?: () => void;
    closeStandaloneSSEStream?: () => void;
  };
  const base = authInfo ? { authInfo } : undefined;
  if (!request && !closeSSEStream && !closeStandaloneSSEStream) return base as ServerContext['http'];
  return { ...base, req: request, closeSSE: closeSSEStream, closeStandaloneSSE: closeStandaloneSSEStream } as ServerContext['http'];
}

/** A thrown error as the SDK answers it. */
export function errorResponse(codec: WireCodec, id: RequestId, error: unknown): JSONRPCMessage {
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
