import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  isInputRequiredResult,
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  type RequestId,
  SdkError,
  SdkErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { bindNotificationValve } from '../context/notification-valve.js';
import { MODERN_REVISION } from '../context/revisions.js';
import type { RuntimeStats } from '../runtime/call-request.js';
import { bindToModern, type SdkHandler, type SdkInternals, type SdkRequest } from '../seams/sdk-internals.js';
import { isPlainObject } from '../validation/plain-object.js';
import type { ModernCall } from './exchange.js';
import { ACCEPTS, DirectRequestContext, errorResponse, isPlainToolResult, type RequestHandler } from './session-front.js';

/** The envelope keys a direct call may carry: the ones every 2026-07-28 request carries, nothing that makes the call send notifications (`logLevel`). */
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);

/**
 * Answers a 2026-07-28 `tools/call`, `tools/list` or `ping` straight from the node:http adapter,
 * without a server, transport, web `Request` or `Response` per request: the same handlers the SDK
 * path runs, wrapped by the SDK's own `tools/call` seams (input-required checks, result schema
 * unless the result is plainly valid), encoded by its 2026 era codec. A request the SDK would read
 * differently (other params or `_meta`, retry material, a `logLevel` or progress token that would
 * make it stream notifications) is declined and served by the SDK.
 */
export class ModernDirectDispatcher {
  private readonly handlers = new Map<string, SdkHandler>();
  private readonly raw = new Map<string, RequestHandler>();
  /** The calls running, by the object their notifications name as related. */
  private readonly exchanges = new Map<object, ModernCall>();
  private server?: Server;

  constructor(
    private readonly sdk: SdkInternals,
    private readonly stats: RuntimeStats,
  ) {}

  /** Serves `method` with `handler` (the one the SDK path runs), if it is a direct method. */
  handle(method: string, handler: RequestHandler): void {
    if (ACCEPTS[method]) this.raw.set(method, handler);
  }

  /**
   * Serves with `server`, whose handlers were installed through `handle`: wraps them as the SDK
   * wraps its own and binds the server to 2026-07-28. Nothing is served before it resolves.
   */
  async bind(server: Server): Promise<void> {
    for (const [method, handler] of this.raw) {
      this.handlers.set(
        method,
        this.sdk.wrap(server, method, (request, ctx) => handler(request.params, ctx)),
      );
    }
    await bindToModern(server, (message, related) => {
      if (related !== undefined) this.exchanges.get(related as unknown as object)?.notify(message);
    });
    this.server = server;
  }

  /** The call's answer (undefined: the client went away), or undefined at once when the SDK must serve it. */
  serve(call: ModernCall): Promise<JSONRPCMessage | undefined> | undefined {
    const { id, method, params } = call.message;
    const handler = this.handlers.get(method);
    const server = this.server;
    if (!handler || !server || !isPlainObject(params) || server.getNegotiatedProtocolVersion() !== MODERN_REVISION) return undefined;
    const envelope = envelopeOf(params._meta);
    // A method the revision does not define (ping) is answered by the SDK's own refusal.
    if (!envelope || !ACCEPTS[method]?.(params) || !this.sdk.codec(server).hasRequestMethod(method)) return undefined;
    const lifted: Record<string, unknown> = {};
    for (const key in params) if (key !== '_meta') lifted[key] = params[key];
    return this.run(server, call, id, method, lifted, envelope, handler);
  }

  private async run(
    server: Server,
    call: ModernCall,
    id: RequestId,
    method: string,
    params: Record<string, unknown>,
    envelope: Record<string, unknown>,
    handler: SdkHandler,
  ): Promise<JSONRPCMessage | undefined> {
    const codec = this.sdk.codec(server);
    const exchange = {};
    const mcpReq = new DirectRequestContext(server, this.sdk, id, method, undefined, undefined, envelope, exchange);
    const ctx = { sessionId: undefined, mcpReq, http: httpOf(call) } as unknown as ServerContext;
    // Its notifications wait while the client is not reading its stream, as on the other paths.
    bindNotificationValve(mcpReq, call.notifications);
    this.stats.direct++;
    // As the SDK's per-request transport does when the client goes away: the call is aborted, nothing is sent.
    call.onGone(() => mcpReq.abort(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')));
    if (mcpReq.aborted) return undefined;
    this.exchanges.set(exchange, call);
    const request = { method, params };
    try {
      let result: unknown;
      try {
        result = await (method === 'tools/call' ? this.callTool(server, request, ctx) : handler(request, ctx));
      } catch (error) {
        return mcpReq.aborted ? undefined : errorResponse(codec, id, error);
      }
      if (mcpReq.aborted) return undefined;
      let encoded: unknown;
      try {
        encoded = codec.encodeResult(method, result, this.sdk.serverInfo(server));
      } catch (error) {
        server.onerror?.(new Error(`Failed to encode result for ${method}: ${error}`));
        return errorResponse(codec, id, { code: -32603, message: 'Internal error' });
      }
      return { result: encoded, jsonrpc: '2.0', id } as JSONRPCMessage;
    } finally {
      this.exchanges.delete(exchange);
    }
  }

  /**
   * `tools/call` through the SDK's own seams: the input-required checks around the handler, then,
   * unless the result is a plainly valid one (which they leave unchanged), the SDK's whole wrapper
   * (result normalisation and schema) around the result already made.
   */
  private async callTool(server: Server, request: SdkRequest, ctx: ServerContext): Promise<unknown> {
    const raw = this.raw.get('tools/call') as RequestHandler;
    const result = await this.sdk.invokeInputRequiredCapable(server, 'tools/call', (r, c) => raw(r.params, c), request, ctx);
    if (isInputRequiredResult(result as never) || isPlainToolResult(result)) return result;
    return this.sdk.wrap(server, 'tools/call', async () => result)(request, ctx);
  }
}

/**
 * The envelope of `_meta` when it holds nothing but the keys every 2026-07-28 request carries (the
 * transport has checked them as the SDK does), else undefined.
 */
function envelopeOf(meta: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(meta)) return undefined;
  for (const key in meta) if (!ENVELOPE_KEYS.has(key)) return undefined;
  const envelope: Record<string, unknown> = {};
  for (const key of [PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]) {
    if (key in meta) envelope[key] = meta[key];
  }
  return envelope;
}

/** `ctx.http` as the SDK builds it for a 2026-07-28 request, its web `Request` made when first read. */
function httpOf(call: ModernCall): ServerContext['http'] {
  let req: Request | undefined;
  return {
    ...(call.principal ? { authInfo: call.principal } : {}),
    get req() {
      req ??= call.request();
      return req;
    },
    closeSSE: undefined,
    closeStandaloneSSE: undefined,
  } as ServerContext['http'];
}
