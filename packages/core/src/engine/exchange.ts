// What a wire hands the request engine: one incoming request, and how to reach its client.
import type { AuthInfo, RequestId, ServerContext } from '@modelcontextprotocol/server';
import type { NotificationValve } from '../context/notification-valve.js';

/** One request the engine serves, as its front made it from what came over the wire. */
export interface Exchange {
  readonly id: RequestId;
  readonly method: string;
  /** The params the handler sees (on 2026-07-28 the envelope is lifted out of `_meta`; a progress token stays in it). */
  readonly params: Record<string, unknown> | undefined;
  /** The request's `_meta` (on 2026-07-28 what stays of it once the envelope is lifted out: a progress token, or none). */
  readonly meta: Record<string, unknown> | undefined;
  /** The 2026-07-28 envelope: protocol version, client info and capabilities, and the log level when the request names one. */
  readonly envelope?: Record<string, unknown>;
  readonly sessionId: string | undefined;
  /** `ctx.http` as the SDK would build it for this request. */
  readonly http: ServerContext['http'];
  /** What this request's notifications and requests to the client name as related. */
  readonly related: unknown;
  /** The backpressure of the stream this request alone answers on, made when first needed (2026-07-28 HTTP). */
  readonly notifications?: () => NotificationValve;
  /** Calls `listener` once when the client cancels or goes away (at once if it already has). */
  onGone(listener: (reason: unknown) => void): void;
}

/** One 2026-07-28 request the HTTP transport offers the engine, its envelope and headers checked as the SDK checks them. */
export interface ModernCall {
  readonly message: { readonly id: string | number; readonly method: string; readonly params?: unknown };
  readonly principal?: AuthInfo;
  /** Calls `listener` once if the client goes away before its answer (at once if it has already). */
  onGone(listener: () => void): void;
  /** The request as a web `Request` (`ctx.http.req`), built only if a handler reads it. */
  request(): Request;
  /** The backpressure of the stream this call's notifications go to, made when the first is sent. */
  readonly notifications: () => NotificationValve;
  /** Sends a notification (or request) of this call before its answer. */
  notify(message: unknown): void;
}

/**
 * The 2026-07-28 request engine: the call's JSON-RPC answer (undefined when there is nothing to send,
 * the client having gone), or undefined at once when the SDK must serve the request.
 */
export type DirectModern = (call: ModernCall) => Promise<unknown> | undefined;
