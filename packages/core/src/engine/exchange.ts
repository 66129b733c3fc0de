// What a wire hands the request engine: one incoming request and the means to answer it.
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { NotificationValve } from '../context/notification-valve.js';

/** One 2026-07-28 request the HTTP transport offers to the direct path, its envelope and headers checked as the SDK checks them. */
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
 * The direct path: the call's JSON-RPC answer (undefined when there is nothing to send, the client
 * having gone), or undefined at once when the SDK must serve the request.
 */
export type DirectModern = (call: ModernCall) => Promise<unknown> | undefined;
