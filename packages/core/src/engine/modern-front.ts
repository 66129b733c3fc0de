import { type AuthInfo, type JSONRPCMessage, SdkError, SdkErrorCode, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { MODERN_REVISION } from '../context/revisions.js';
import type { RuntimeStats } from '../runtime/call-request.js';
import { bindToModern, type SdkInternals } from '../seams/sdk-internals.js';
import { acceptsModern } from './accept-table.js';
import { modernEra, type RequestHandler } from './era-encoding.js';
import type { Exchange, ModernCall } from './exchange.js';
import { RequestEngine } from './request-engine.js';

/**
 * A 2026-07-28 request as the engine serves it: the params the SDK's handler would see, its envelope
 * lifted out and what stays `_meta` (a progress token) left in.
 */
class ModernExchangeOf implements Exchange {
  readonly sessionId = undefined;
  /** What its notifications name as related: this exchange itself, routed back to its call until answered. */
  readonly related = this;
  readonly http: ServerContext['http'];
  /** Set once the call is answered: what it sends afterwards goes nowhere. */
  answered = false;

  constructor(
    private readonly call: ModernCall,
    readonly params: Record<string, unknown>,
    readonly envelope: Record<string, unknown>,
    readonly meta: Record<string, unknown> | undefined,
  ) {
    this.http = new ModernHttp(call) as ServerContext['http'];
  }

  get id() {
    return this.call.message.id;
  }

  get method() {
    return this.call.message.method;
  }

  get notifications() {
    return this.call.notifications;
  }

  /** Sends a notification of the running call to its client; nothing once it is answered. */
  notify(message: unknown): void {
    if (!this.answered) this.call.notify(message);
  }

  onGone(listener: (reason: unknown) => void): void {
    // As the SDK's per-request transport does when the client goes away: the call is aborted, nothing is sent.
    this.call.onGone(() => listener(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed')));
  }
}

/**
 * The engine's front for 2026-07-28 requests straight from the node:http adapter, without a server,
 * transport, web `Request` or `Response` per request: one SDK server, bound to that revision at
 * start-up, whose handlers the engine runs inside the SDK's own seams. Its notifications (log lines
 * at the request's `logLevel`, progress for its token) go to its exchange, which streams them before
 * the answer as the SDK's per-request transport does. A request the SDK would read differently
 * (other params or `_meta`, retry material) is declined and served by the SDK.
 */
export class ModernFront {
  private readonly handlers = new Map<string, RequestHandler>();
  private engine?: RequestEngine;
  private server?: Server;

  constructor(
    private readonly sdk: SdkInternals,
    private readonly stats: RuntimeStats,
  ) {}

  /** Serves `method` with `handler` (the one the SDK path runs), once bound. */
  handle(method: string, handler: RequestHandler): void {
    this.handlers.set(method, handler);
  }

  /**
   * Serves with `server`, whose handlers were installed through `handle`: binds it to 2026-07-28
   * and wraps them as the SDK wraps its own. Nothing is served before it resolves.
   */
  async bind(server: Server): Promise<void> {
    // A notification names its exchange as related, which sends it to its call: no table of the
    // calls running. (A `Map` of them, keyed per call, had its hash table rebuilt as it grew and
    // shrank; once one table was in the old generation, each later one was allocated there, linked
    // to the next, and kept every exchange it held, with its request and response, alive through
    // the scavenges: see context/in-flight-table.ts.)
    await bindToModern(server, (message, related) => {
      if ((related as unknown) instanceof ModernExchangeOf) (related as unknown as ModernExchangeOf).notify(message);
    });
    const engine = new RequestEngine(server, this.sdk, this.stats, modernEra(server, this.sdk));
    for (const [method, handler] of this.handlers) engine.handle(method, handler);
    this.engine = engine;
    this.server = server;
  }

  /** The call's answer (undefined: the client went away), or undefined at once when the SDK must serve it. */
  serve(call: ModernCall): Promise<JSONRPCMessage | undefined> | undefined {
    const { method, params } = call.message;
    const { engine, server } = this;
    if (!engine?.serves(method) || !server || server.getNegotiatedProtocolVersion() !== MODERN_REVISION) return undefined;
    const accepted = acceptsModern(method, params);
    // A method the revision does not define (ping) is answered by the SDK's own refusal.
    if (!accepted || !this.sdk.codec(server).hasRequestMethod(method)) return undefined;
    // The params as the SDK's request schema hands them on: `_meta` first, when something stays in it.
    const lifted: Record<string, unknown> = accepted.meta ? { _meta: accepted.meta } : {};
    for (const key in params as Record<string, unknown>) if (key !== '_meta') lifted[key] = (params as Record<string, unknown>)[key];
    const exchange = new ModernExchangeOf(call, lifted, accepted.envelope, accepted.meta);
    const forget = () => {
      exchange.answered = true;
    };
    return Promise.resolve(engine.run(exchange)).then(
      (answer) => {
        forget();
        return answer as JSONRPCMessage | undefined;
      },
      (error: unknown) => {
        forget();
        throw error;
      },
    );
  }
}

/**
 * `ctx.http` as the SDK builds it for a 2026-07-28 request (`authInfo` when there is a principal,
 * `req`, `closeSSE`, `closeStandaloneSSE`), its web `Request` made when first read: `req` an own
 * getter from one shared descriptor, the call in a private field. (An object literal with a getter
 * is built by a slow path, about 1 µs a request, and ends in dictionary mode.)
 */
class ModernHttp {
  readonly #call: ModernCall;
  #req?: Request;
  declare readonly authInfo?: AuthInfo;
  declare readonly req: Request;
  readonly closeSSE: undefined;
  readonly closeStandaloneSSE: undefined;

  constructor(call: ModernCall) {
    this.#call = call;
    if (call.principal) (this as { authInfo?: AuthInfo }).authInfo = call.principal;
    Object.defineProperty(this, 'req', REQ);
    this.closeSSE = undefined;
    this.closeStandaloneSSE = undefined;
  }

  static requestOf(http: ModernHttp): Request {
    http.#req ??= http.#call.request();
    return http.#req;
  }
}

const REQ: PropertyDescriptor = {
  get(this: ModernHttp) {
    return ModernHttp.requestOf(this);
  },
  enumerable: true,
  configurable: true,
};
