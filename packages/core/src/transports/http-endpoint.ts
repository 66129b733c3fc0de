import {
  type AuthInfo,
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  type EventStore,
  hostHeaderValidationResponse,
  isJsonContentType,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  type McpServer as SdkMcpServer,
} from '@modelcontextprotocol/server';
import { type AuthOptions, BearerAuth, ownerOf, type RequestHead } from '../auth/bearer-auth.js';
import { rememberClientAddress } from '../context/client-address-of.js';
import { MODERN_REVISION } from '../context/revisions.js';
import type { ServerPurpose } from '../context/server-purpose.js';
import type { DirectModern } from '../engine/exchange.js';
import { wireMessages } from '../messages/wire-messages.js';
import { storeUnavailableMessage } from '../state/app-state.js';
import { DEFAULT_MESSAGE_LIMITS, type MessageLimits, prescanJson } from '../validation/json-prescan.js';
import { clientAddress, type TrustProxy } from './client-address.js';
import type { Caller } from './http-caller.js';
import { DEFAULT_HTTP_LIMITS } from './http-limits.js';
import { type Message, messagesOf, type ParsedBody, whenBodyEnds } from './http-messages.js';
import { InMemoryEventStore } from './in-memory-event-store.js';
import { jsonRpcErrorResponse, unsafeIdResponse } from './json-rpc-error-response.js';
import { LARGE_INPUT, nextTurn } from './large-input.js';
import { ListenCaps } from './listen-caps.js';
import { ModernRoutes } from './modern-routes.js';
import type { SessionRelay } from './session-relay.js';
import { localSessions } from './session-sharing.js';
import { SessionTable } from './session-table.js';
import { SharedSessions } from './shared-sessions.js';

/** The 2026-07-28 methods a direct path may answer. */
const DIRECT_METHODS = new Set(['tools/call', 'tools/list', 'ping']);

export interface HttpEndpointOptions {
  /**
   * How to find the client's address behind reverse proxies, for the per-client caps (sessions,
   * listen streams) of unauthenticated clients: the number of proxies in front of the server (the
   * address that many hops back in `X-Forwarded-For`), or the name of a header your proxy sets to
   * it (`'x-real-ip'`). Default: the socket's peer, which behind a proxy makes every client one.
   * Give it only when such proxies are really there: otherwise a client chooses its own address.
   */
  trustProxy?: TrustProxy;
  /**
   * Host names accepted in the `Host` header (DNS-rebinding protection). Default: localhost,
   * 127.0.0.1 and [::1]. `false` turns the check off (only behind a proxy that checks it).
   */
  allowedHosts?: string[] | false;
  /**
   * Host names accepted in the `Origin` header when a request carries one (the SDK's check compares
   * the origin's host name; scheme and port are not compared). Default: localhost, 127.0.0.1 and
   * [::1]. `false` turns the check off.
   */
  allowedOrigins?: string[] | false;
  /** Largest request body, answered 413 beyond. Default 4 MiB. */
  maxRequestBodySize?: number;
  /**
   * Most `ctx.progress`/`ctx.log` notifications kept per SSE response while its client is not
   * reading (progress merged per token, log lines beyond dropped). Default 1,000. Applies to the
   * node:http handler (`listenHttp`, `httpHandler`), which sees the socket.
   */
  maxPendingNotifications?: number;
  /** A 2025-11-25 session idle for this long is closed. Default 30 minutes. */
  sessionIdleTimeoutMs?: number;
  /** A 2025-11-25 session that has not sent `notifications/initialized` this long after `initialize` is closed. Default 30 s. */
  sessionInitializeTimeoutMs?: number;
  /** Most open 2025-11-25 sessions; `initialize` beyond gets 503 with `Retry-After`. Default 5,000. */
  maxSessions?: number;
  /**
   * Most open 2025-11-25 sessions per client (the authenticated subject with auth on, else the
   * peer IP address); `initialize` beyond gets 429 with `Retry-After`. Default 100.
   */
  maxSessionsPerClient?: number;
  /** Most open 2026-07-28 `subscriptions/listen` streams in all (the SDK's `maxSubscriptions`). Default 1,024. */
  maxListenStreams?: number;
  /** Most open `subscriptions/listen` streams per client (subject or peer IP). Default 16. */
  maxListenStreamsPerClient?: number;
  /**
   * Resumable SSE streams for 2025-11-25 sessions (clients reconnect with `Last-Event-ID`):
   * `true` keeps events in memory (`InMemoryEventStore`, 10,000 events and 32 MiB at most), or
   * pass your own store (it must implement `getStreamIdForEventId`; with `purge(prefix)` a
   * session's events are dropped when it ends). Each session replays only its own events. Default off.
   */
  eventStore?: EventStore | boolean;
  /** The `retry` hint (ms) sent on resumable SSE streams. */
  retryIntervalMs?: number;
  /** OAuth 2.1 resource-server protection (bearer tokens, metadata, scopes). Default: none. */
  auth?: AuthOptions;
  /** Nesting and size limits checked on each body before it is parsed. */
  messageLimits?: MessageLimits;
}

/**
 * The app's resource-URI caps (`createMcpApp` options `maxSubscriptionsPerSession`, `maxUriLength`),
 * which `resources/subscribe` obeys in the runtime: a `subscriptions/listen` filter, served by the
 * SDK, is held to them here.
 */
export interface UriLimits {
  readonly maxSubscriptionsPerSession: number;
  readonly maxUriLength: number;
  /**
   * The first of `uris` the caller may not read (missing or hidden by guards and scopes alike), or
   * undefined: a listen stream asks the same as `resources/read` and `resources/subscribe`.
   */
  readonly unreadable?: (
    uris: readonly string[],
    principal: AuthInfo | undefined,
    meta: Record<string, unknown> | undefined,
  ) => Promise<string | undefined>;
}

/** Scopes one JSON-RPC request needs (from `@RequireScopes`), given by the app. */
export type ScopeRequirement = (method: string, params: Record<string, unknown> | undefined) => readonly string[];

/**
 * One MCP endpoint serving both protocol revisions: 2026-07-28 requests go to the SDK's stateless
 * per-request handler, 2025-11-25 traffic to sessions kept here (the SDK keeps none). Host,
 * Origin and the bearer token are checked from the headers alone (`admit`), before the body is
 * read and before any server or session is created; then `serve` reads the body.
 */
export class HttpEndpoint {
  private readonly legacy: SessionTable;
  private readonly modern;
  private readonly maxBody: number;
  private readonly allowedHosts: string[] | false;
  private readonly allowedOrigins: string[] | false;
  private readonly limits: typeof DEFAULT_HTTP_LIMITS;
  private readonly sweeper: NodeJS.Timeout;
  private readonly listensPerClient: ListenCaps;
  private readonly relay?: SessionRelay;
  private closed = false;
  private sweeperStopped = false;
  private readonly auth?: BearerAuth;
  private readonly messageLimits: Readonly<Required<MessageLimits>>;
  private readonly trustProxy?: TrustProxy;
  private readonly modernRoutes = new ModernRoutes();

  /**
   * @param factory builds a fresh SDK server for a 2025-11-25 session or a single 2026-07-28 request.
   * @param relay given when instances share a state: 2025-11-25 sessions and their events live in
   *   it (its event store replaces `eventStore`), and changes reach them through it.
   * @param direct the app's direct path for frequent 2026-07-28 requests (node:http only), offered
   *   each request `directCandidate` finds; without it every request goes to the SDK.
   */
  constructor(
    readonly factory: (purpose: ServerPurpose) => SdkMcpServer,
    options: HttpEndpointOptions = {},
    private readonly scopesFor?: ScopeRequirement,
    private readonly uriLimits: UriLimits = { maxSubscriptionsPerSession: 1_000, maxUriLength: 8_192 },
    relay?: SessionRelay,
    readonly direct?: DirectModern,
  ) {
    if (options.auth) this.auth = new BearerAuth(options.auth);
    this.messageLimits = { ...DEFAULT_MESSAGE_LIMITS, ...options.messageLimits };
    this.maxBody = options.maxRequestBodySize ?? DEFAULT_MAX_REQUEST_BODY_SIZE;
    this.trustProxy = options.trustProxy;
    this.allowedHosts = options.allowedHosts ?? localhostAllowedHostnames();
    this.allowedOrigins = options.allowedOrigins ?? localhostAllowedOrigins();
    const given = Object.fromEntries(Object.entries(options).filter(([key, value]) => key in DEFAULT_HTTP_LIMITS && value !== undefined));
    this.limits = { ...DEFAULT_HTTP_LIMITS, ...given };
    this.relay = relay;
    this.listensPerClient = new ListenCaps(this.limits.maxListenStreamsPerClient, relay?.state.listens);
    if (relay && options.eventStore) {
      throw new TypeError(wireMessages.eventStoreWithSharedState(relay.state.name));
    }
    const eventStore = relay
      ? relay.state.events
      : options.eventStore === true
        ? new InMemoryEventStore()
        : options.eventStore || undefined;
    if (eventStore && !eventStore.getStreamIdForEventId) {
      throw new TypeError(wireMessages.eventStoreWithoutLookup);
    }
    this.legacy = new SessionTable(
      () => factory(relay ? 'shared-session' : 'connection'),
      this.limits,
      eventStore,
      options.retryIntervalMs,
      relay ? (copies) => new SharedSessions(relay, copies, this.limits) : () => localSessions,
    );
    this.modern = createMcpHandler(() => factory('request'), {
      legacy: 'reject',
      maxRequestBodySize: this.maxBody,
      maxSubscriptions: this.limits.maxListenStreams,
    });
    const { sessionIdleTimeoutMs: idle, sessionInitializeTimeoutMs: init } = this.limits;
    this.sweeper = setInterval(() => this.legacy.evictIdle(), Math.max(100, Math.min(60_000, idle / 2, init / 2)));
    this.sweeper.unref();
  }

  /** Publishes change notifications to this endpoint's 2026-07-28 `subscriptions/listen` streams. */
  get notifier() {
    return this.modern.notify;
  }

  /**
   * Web-standard face: one HTTP request in, one response out. `remoteAddress` (the peer's IP)
   * lets per-client caps count unauthenticated clients; without it only authenticated ones are counted.
   */
  readonly fetch = async (request: Request, info: { remoteAddress?: string } = {}): Promise<Response> => {
    const admitted = await this.admit(request, info.remoteAddress);
    if ('response' in admitted) return admitted.response;
    return this.serve(rememberClientAddress(request, admitted.caller.address), admitted.caller);
  };

  /**
   * Everything decided from the request line and headers: shutdown, Host/Origin, metadata,
   * declared size and the bearer token. The body is not read, so an unauthenticated client
   * cannot make the server read and parse megabytes before its 401.
   */
  async admit(request: RequestHead, remoteAddress?: string): Promise<{ caller: Caller } | { response: Response }> {
    if (this.closed) return { response: jsonRpcErrorResponse(503, -32000, wireMessages.shuttingDown) };
    // The SDK's checks read only `headers.get` of what they are given.
    const head = request as Request;
    const rejected =
      (this.allowedHosts && hostHeaderValidationResponse(head, this.allowedHosts)) ||
      (this.allowedOrigins && originValidationResponse(head, this.allowedOrigins));
    if (rejected) return { response: rejected };
    const metadata = this.auth?.serveMetadata(request);
    if (metadata) return { response: metadata };
    const length = Number(request.headers.get('content-length') ?? 0);
    if (length > this.maxBody) {
      return { response: jsonRpcErrorResponse(413, -32000, wireMessages.bodyTooLarge(this.maxBody)) };
    }
    const address = clientAddress(request.headers, remoteAddress, this.trustProxy);
    if (!this.auth) return { caller: address ? { client: `ip:${address}`, address } : {} };
    const outcome = await this.auth.authenticate(request);
    if ('response' in outcome) return outcome;
    const owner = ownerOf(outcome.principal);
    // MCP authorization forbids passing the token through: handlers see who, not the token.
    return {
      caller: { principal: { ...outcome.principal, token: 'redacted' }, owner, client: `sub:${owner}`, ...(address ? { address } : {}) },
    };
  }

  /**
   * Reads and routes an admitted request. `bodyText` is the body already read and decoded by the
   * node adapter, which then spares a tee of the Request's body and its stream plumbing.
   */
  async serve(request: Request, caller: Caller, bodyText?: string): Promise<Response> {
    const text = request.method === 'POST' ? (bodyText ?? (await request.clone().text())) : undefined;
    const checked = await this.check(request, caller, text);
    if ('response' in checked) return checked.response;
    return this.route(request, caller, checked.body);
  }

  /**
   * What every admitted request's body goes through before anything serves it: a JSON POST body is
   * pre-scanned (a nesting or size bomb is refused before anything parses it), parsed once (the
   * SDK's era classifier and transports would otherwise each parse it again), its id checked, and
   * the scopes its calls need asked of the token.
   */
  async check(head: RequestHead, caller: Caller, text: string | undefined): Promise<{ body?: ParsedBody } | { response: Response }> {
    let body: ParsedBody | undefined;
    if (text !== undefined) {
      // A large body is decoded, pre-scanned, parsed and served in separate turns of the event
      // loop, so other requests are served in between (reliability figure 7: no block over 50 ms).
      if (text.length >= LARGE_INPUT) await nextTurn();
      const scan = prescanJson(text, this.messageLimits);
      if (scan.problem) return { response: jsonRpcErrorResponse(400, -32600, wireMessages.invalidRequest(scan.problem), scan.id ?? null) };
      // Bodies that are not JSON (or not sent as JSON) are left for the SDK to refuse (-32700, 415).
      if (isJsonContentType(head.headers.get('content-type') ?? '')) {
        if (text.length >= LARGE_INPUT) await nextTurn();
        try {
          body = { value: JSON.parse(text) as unknown };
        } catch {
          body = undefined;
        }
        const id = (body?.value as Message | null | undefined)?.id;
        if (typeof id === 'number' && !Number.isSafeInteger(id)) return { response: unsafeIdResponse(scan.rawId) };
        // Serving it starts a turn later as well: the parse was this turn's work, and what runs
        // next (the SDK's checks, the arguments' validation) would otherwise add to it.
        if (text.length >= LARGE_INPUT) await nextTurn();
      }
    }
    if (this.auth && caller.principal) {
      const stepUp = this.missingScopes(body, caller.principal);
      if (stepUp) return { response: this.auth.insufficientScope(stepUp) };
    }
    return { body };
  }

  /**
   * A checked POST the direct path may answer: one 2026-07-28 request of a direct method that the
   * SDK's own classifier routes to its 2026-07-28 path, carrying the standard headers that path
   * requires, matching the body. Anything else (a batch, a notification, a rejection the SDK
   * answers, a 2025-11-25 request) is routed as before.
   */
  directCandidate(head: RequestHead, body: ParsedBody | undefined): Message | undefined {
    if (!this.direct || this.closed || head.method !== 'POST' || !body) return undefined;
    const message = body.value as Message | null;
    if (typeof message !== 'object' || message === null || Array.isArray(message) || !DIRECT_METHODS.has(message.method as string)) {
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
    const modern = this.modernRoutes.isModern(message, {
      protocolVersion: protocolVersionHeader,
      mcpMethod: mcpMethodHeader,
      mcpName: mcpNameHeader,
    });
    return modern ? message : undefined;
  }

  /** Routes a checked request: 2025-11-25 traffic to the sessions, the rest to the SDK's 2026-07-28 handler. */
  async route(request: Request, caller: Caller, body: ParsedBody | undefined): Promise<Response> {
    if (await isLegacyRequest(request, body?.value, { maxRequestBodySize: this.maxBody })) return this.legacy.serve(request, caller, body);
    return this.serveModern(request, caller, body);
  }

  /** 2026-07-28: the SDK's stateless handler, with `subscriptions/listen` streams counted per client. */
  private async serveModern(request: Request, caller: Caller, body: ParsedBody | undefined): Promise<Response> {
    const options = {
      ...(caller.principal ? { authInfo: caller.principal } : {}),
      ...(body ? { parsedBody: body.value } : {}),
    };
    const message = body && !Array.isArray(body.value) ? (body.value as Message | null) : undefined;
    if (message?.method !== 'subscriptions/listen') return this.modern.fetch(request, options);
    const filterProblem = this.checkListenFilter(message);
    if (filterProblem) return jsonRpcErrorResponse(200, -32602, filterProblem, message.id ?? null);
    const uris = (message.params?.notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
    const meta = message.params?._meta as Record<string, unknown> | undefined;
    const refused = Array.isArray(uris) ? await this.uriLimits.unreadable?.(uris.map(String), caller.principal, meta) : undefined;
    // Answered exactly like resources/read of a URI that does not exist.
    if (refused !== undefined) return jsonRpcErrorResponse(200, -32602, wireMessages.resourceNotFound(refused), message.id ?? null);
    let release: (() => void) | undefined;
    try {
      release = await this.listensPerClient.acquire(caller.client);
    } catch {
      const store = this.relay?.state.name ?? 'shared';
      return jsonRpcErrorResponse(503, -32000, storeUnavailableMessage(store), message.id ?? null, { 'retry-after': '5' });
    }
    // The same JSON-RPC error the SDK gives at its own (total) limit, naming this cap.
    if (!release)
      return jsonRpcErrorResponse(200, -32603, wireMessages.tooManyClientListens(this.listensPerClient.max), message.id ?? null);
    const response = await this.modern.fetch(request, options);
    const streaming = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
    if (!streaming) {
      release();
      return response;
    }
    return whenBodyEnds(response, release);
  }

  /** A listen stream's resource URIs obey the same caps as a session's `resources/subscribe`. */
  private checkListenFilter(message: Message): string | undefined {
    const uris = (message.params?.notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
    if (!Array.isArray(uris)) return undefined;
    const { maxUriLength, maxSubscriptionsPerSession } = this.uriLimits;
    if (uris.length > maxSubscriptionsPerSession) {
      return `Invalid params: a listen stream may name at most ${maxSubscriptionsPerSession} resources in resourceSubscriptions (maxSubscriptionsPerSession)`;
    }
    if (uris.some((uri) => typeof uri === 'string' && uri.length > maxUriLength)) {
      return `Invalid params: a resource URI in resourceSubscriptions is longer than ${maxUriLength} characters (maxUriLength)`;
    }
    return undefined;
  }

  /** The scopes a POSTed call needs when the token lacks some of them (403 insufficient_scope). */
  private missingScopes(body: ParsedBody | undefined, principal: AuthInfo): readonly string[] | undefined {
    if (!this.scopesFor) return undefined;
    for (const { method, params } of messagesOf(body)) {
      if (typeof method !== 'string') continue;
      const needed = this.scopesFor(method, params);
      if (needed.some((scope) => !principal.scopes.includes(scope))) return needed;
    }
    return undefined;
  }

  /** New requests get 503 from now on; open sessions keep their in-flight calls. */
  stopAccepting(): void {
    this.closed = true;
  }

  /** Closes every session and the stateless handler. */
  async close(): Promise<void> {
    if (this.sweeperStopped) return;
    this.sweeperStopped = true;
    this.closed = true;
    clearInterval(this.sweeper);
    await this.legacy.close();
    await this.modern.close();
  }
}
