import {
  type AuthInfo,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  SdkError,
  SdkErrorCode,
  type Server,
  type ServerContext,
  type Transport,
} from '@modelcontextprotocol/server';
import { InFlightTable } from '../context/in-flight-table.js';
import { isThenable } from '../context/maybe-promise.js';
import type { NotificationValve } from '../context/notification-valve.js';
import { LEGACY_REVISION } from '../context/revisions.js';
import type { RuntimeStats } from '../runtime/call-request.js';
import { frontMessages, onClosed } from '../seams/sdk-callbacks.js';
import type { SdkInternals } from '../seams/sdk-internals.js';
import { isPlainObject } from '../validation/plain-object.js';
import { acceptsLegacy } from './accept-table.js';
import { type Answer, legacyEra, type RequestHandler } from './era-encoding.js';
import type { Exchange } from './exchange.js';
import { RequestEngine } from './request-engine.js';

/**
 * A transport that writes a response from its result's JSON text (the stdio line transport): a
 * list page, the same object until its catalog changes, is then serialized once, not per request.
 */
interface ResultTextSink {
  /** Undefined when the line went out with nothing to wait for (no promise to settle per answer). */
  sendResultText(id: RequestId, resultJson: string): Promise<void> | undefined;
}

/** A settled promise: what a handler's start is chained to, a turn of the microtask queue later. */
const settledTurn = Promise.resolve();

/** The transports a `SessionFront` sits in front of. */
const fronted = new WeakSet<Transport>();

/** Whether the request engine sits in front of the SDK on `transport` (the request engine is on for its connection). */
export function isFronted(transport: Transport): boolean {
  return fronted.has(transport);
}

/**
 * What a transport may pass with a message, beyond the SDK's: the backpressure of the stream the
 * request alone answers on (an HTTP session's POST answered by Armature itself).
 */
export interface FrontedMessageExtra extends MessageExtraInfo {
  readonly notifications?: () => NotificationValve;
}

/** One request of a 2025-11-25 connection the engine serves, until it is answered, cancelled or its connection closes. */
class SessionExchange implements Exchange {
  private goneListener?: (reason: unknown) => void;
  private goneReason?: { reason: unknown };

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly params: Record<string, unknown> | undefined,
    readonly sessionId: string | undefined,
    readonly http: ServerContext['http'],
    readonly notifications: (() => NotificationValve) | undefined,
  ) {}

  get meta(): Record<string, unknown> | undefined {
    return this.params?._meta as Record<string, unknown> | undefined;
  }

  get related(): unknown {
    return this.id;
  }

  onGone(listener: (reason: unknown) => void): void {
    if (this.goneReason) listener(this.goneReason.reason);
    else this.goneListener = listener;
  }

  gone(reason: unknown): void {
    if (this.goneReason) return;
    this.goneReason = { reason };
    this.goneListener?.(reason);
  }
}

/**
 * The engine's front on an established 2025-11-25 connection (stdio, in-memory, an HTTP session):
 * it sits in front of the SDK on the connection's transport, hands the engine the requests of the
 * accept table, and passes everything else to the SDK, which answers as it always did.
 */
export class SessionFront {
  private readonly engine: RequestEngine;
  private readonly running = new InFlightTable<SessionExchange>();

  constructor(
    private readonly server: Server,
    private readonly sdk: SdkInternals,
    stats: RuntimeStats,
  ) {
    this.engine = new RequestEngine(server, sdk, stats, legacyEra(server, sdk));
  }

  /** Serves `method` with `handler` (the one the SDK path runs), if the engine serves it. */
  handle(method: string, handler: RequestHandler): void {
    this.engine.handle(method, handler);
  }

  /**
   * Puts the engine in front of the SDK on `transport`, after the SDK connected to it (through the
   * seam: when the SDK set no message handler there, the SDK serves that connection alone).
   */
  interpose(transport: Transport): void {
    if (!frontMessages(transport, (message, extra) => this.offer(transport, message, extra))) return;
    fronted.add(transport);
    // As the SDK does for its own requests: a closed connection aborts the calls still running.
    onClosed(transport, () => {
      const error = new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed');
      for (const exchange of this.running.values()) exchange.gone(error);
      this.running.clear();
    });
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
        const exchange = this.running.get(params.requestId as RequestId);
        if (exchange) setImmediate(() => exchange.gone(params.reason));
      }
      return false;
    }
    if (!this.engine.serves(method) || extra?.classification !== undefined || !acceptsLegacy(method, params)) return false;
    if (this.server.getNegotiatedProtocolVersion() === undefined || this.sdk.codec(this.server).era !== LEGACY_REVISION) return false;
    const id = message.id as RequestId;
    const notifications = (extra as FrontedMessageExtra | undefined)?.notifications;
    const exchange = new SessionExchange(
      id,
      method,
      params as Record<string, unknown> | undefined,
      transport.sessionId,
      httpOf(extra),
      notifications,
    );
    this.running.set(id, exchange);
    const takesText = typeof (transport as Partial<ResultTextSink>).sendResultText === 'function';
    // The handler starts a turn of the microtask queue later, as on the SDK path (a reaction costs
    // less than Node's queueMicrotask, which makes an async resource per callback).
    settledTurn.then(() => this.answer(transport, exchange, takesText));
    return true;
  }

  /** Runs `exchange` and sends its answer: with no promise but the transport's own when the handler made none. */
  private answer(transport: Transport, exchange: SessionExchange, takesText: boolean): void {
    let sending: PromiseLike<void> | undefined;
    try {
      const answer = this.engine.run(exchange, takesText);
      sending = isThenable(answer)
        ? answer.then((settled) => (settled ? send(transport, exchange.id, settled) : undefined))
        : answer && send(transport, exchange.id, answer);
    } catch (error) {
      this.failed(exchange, error);
      return;
    }
    if (sending)
      sending.then(
        () => this.done(exchange),
        (error: unknown) => this.failed(exchange, error),
      );
    else this.done(exchange);
  }

  private done(exchange: SessionExchange): void {
    if (this.running.get(exchange.id) === exchange) this.running.delete(exchange.id);
  }

  private failed(exchange: SessionExchange, error: unknown): void {
    this.server.onerror?.(new Error(`Failed to send response: ${error}`));
    this.done(exchange);
  }
}

function send(transport: Transport, id: RequestId, answer: Answer): Promise<void> | undefined {
  return 'resultText' in answer
    ? (transport as unknown as ResultTextSink).sendResultText(id, answer.resultText)
    : transport.send(answer as JSONRPCMessage);
}

/**
 * `ctx.http` as the SDK builds it from what the transport passed with the message. `request` is
 * read only when the handler reads `ctx.http.req` (a transport may make the web Request then).
 */
function httpOf(extra: MessageExtraInfo | undefined): ServerContext['http'] {
  if (!extra) return undefined;
  const { authInfo, closeSSEStream, closeStandaloneSSEStream } = extra as MessageExtraInfo & {
    closeSSEStream?: () => void;
    closeStandaloneSSEStream?: () => void;
  };
  // A getter is a Request made on demand: there is one, it is just not made yet.
  const hasRequest = Object.getOwnPropertyDescriptor(extra, 'request')?.get !== undefined || extra.request !== undefined;
  if (!hasRequest && !closeSSEStream && !closeStandaloneSSEStream) return (authInfo ? { authInfo } : undefined) as ServerContext['http'];
  return new SessionHttp(extra, authInfo, closeSSEStream, closeStandaloneSSEStream) as unknown as ServerContext['http'];
}

/**
 * `ctx.http` of a session request with a request or stream controls, with the members the SDK
 * gives it (`authInfo` when there is one, `req`, `closeSSE`, `closeStandaloneSSE`): `req` an own
 * getter from one shared descriptor reading the transport's `request`. (An object literal with a
 * getter is built by a slow path and ends in dictionary mode.)
 */
class SessionHttp {
  readonly #extra: MessageExtraInfo;
  declare readonly authInfo?: AuthInfo;
  declare readonly req: Request | undefined;
  readonly closeSSE: (() => void) | undefined;
  readonly closeStandaloneSSE: (() => void) | undefined;

  constructor(
    extra: MessageExtraInfo,
    authInfo: AuthInfo | undefined,
    closeSSE: (() => void) | undefined,
    closeStandaloneSSE: (() => void) | undefined,
  ) {
    this.#extra = extra;
    if (authInfo) (this as { authInfo?: AuthInfo }).authInfo = authInfo;
    Object.defineProperty(this, 'req', REQ);
    this.closeSSE = closeSSE;
    this.closeStandaloneSSE = closeStandaloneSSE;
  }

  static requestOf(http: SessionHttp): Request | undefined {
    return http.#extra.request;
  }
}

const REQ: PropertyDescriptor = {
  get(this: SessionHttp) {
    return SessionHttp.requestOf(this);
  },
  enumerable: true,
  configurable: true,
};
