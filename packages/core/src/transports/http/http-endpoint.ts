import {
  createMcpHandler,
  type EventStore,
  isLegacyRequest,
  type JSONRPCRequest,
  type McpServer as SdkMcpServer,
} from '@modelcontextprotocol/server';
import type { RequestHead } from '../../auth/bearer-auth.js';
import { rememberClientAddress } from '../../context/client-address-of.js';
import type { ServerPurpose } from '../../context/server-purpose.js';
import { acceptsLegacy } from '../../engine/accept-table.js';
import type { DirectModern, ModernCall } from '../../engine/exchange.js';
import { wireMessages } from '../../messages/wire-messages.js';
import type { ServerEvents } from '../../observability/server-events.js';
import { framesAsSdk } from '../../seams/sdk-session-framing.js';
import { MemoryRateLimitStore } from '../../state/memory-rate-limit-store.js';
import type { RateLimitErrorShape } from '../../state/rate-limit-error.js';
import type { RateLimitStore } from '../../state/rate-limit-store.js';
import { ListenCaps } from '../modern/listen-caps.js';
import { ListenPolicy, type UriLimits } from '../modern/listen-policy.js';
import { ModernRoutes } from '../modern/modern-routes.js';
import { serveTaskListen, type TaskFeed, taskListenProblem } from '../modern/task-listen.js';
import { InMemoryEventStore } from '../sessions/in-memory-event-store.js';
import type { SessionRelay } from '../sessions/session-relay.js';
import { localSessions } from '../sessions/session-sharing.js';
import { type OpenedAnswer, type SessionRequest, SessionTable } from '../sessions/session-table.js';
import type { Session } from '../sessions/session-transport.js';
import { SharedSessions } from '../sessions/shared-sessions.js';
import { jsonRpcErrorBody } from '../wire/json-rpc-error-response.js';
import { asSessionMessage, isPlainRequest } from '../wire/json-rpc-shape.js';
import { sessionFramingChecked } from '../wire/sse-format.js';
import { DEFAULT_FAILED_AUTH_LIMIT, FailedAuthLimit } from './failed-auth-limit.js';
import { FetchExchange } from './fetch-exchange.js';
import { type AdmissionOptions, type CallRequirements, HttpAdmission } from './http-admission.js';
import type { Caller } from './http-caller.js';
import { DEFAULT_HTTP_LIMITS } from './http-limits.js';
import { type Message, type ParsedBody, whenBodyEnds } from './http-messages.js';
import { HttpRateLimit, type HttpRateLimitOptions } from './http-rate-limit.js';
import type { ServerCardOptions, ServerCardRoute } from './server-card.js';

/** A session request Armature took: its session (the id now in flight there), the request, its `MCP-Protocol-Version`. */
export interface SessionCall {
  readonly session: Session;
  readonly message: Message;
  readonly protocolVersion: string | null;
}

export interface HttpEndpointOptions extends AdmissionOptions {
  /**
   * Serves the server card of the SEP-2127 draft at `GET <endpoint path>/server-card` (e.g.
   * `/mcp/server-card`): name and description given here (package.json's `mcpName` and
   * `description`), version, title and icons from `@McpServer`; never the tools, resources or
   * prompts. Public, so served without a bearer token, after the Host and Origin checks and
   * counted by `rateLimit`. Default: off. See docs/server-card.md.
   */
  serverCard?: ServerCardOptions;
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
  /**
   * At most `limit` HTTP requests per `windowMs` (whole seconds) from each client (its bearer
   * token's subject, else its address; `trustProxy` honoured), answered 429 with `Retry-After`
   * beyond, before the body is read. With `redisState` every instance counts the same requests.
   * Default: none.
   */
  rateLimit?: HttpRateLimitOptions;
}

/**
 * One MCP endpoint serving both protocol revisions: 2026-07-28 requests go to the request engine or
 * the SDK's stateless per-request handler, 2025-11-25 traffic to sessions kept here (the SDK keeps
 * none). Every request is first let in by its `admission` (headers, then body).
 */
export class HttpEndpoint {
  readonly admission: HttpAdmission;
  private readonly legacy: SessionTable;
  private readonly modern;
  private readonly sweeper: NodeJS.Timeout;
  private readonly listens: ListenPolicy;
  private sweeperStopped = false;
  private readonly modernRoutes = new ModernRoutes();
  private readonly maxPendingNotifications?: number;
  /** The open 2026-07-28 listen streams for tasks, by their graceful end. */
  private readonly taskStreams = new Set<() => void>();

  /**
   * @param factory builds a fresh SDK server for a 2025-11-25 session or a single 2026-07-28 request.
   * @param relay given when instances share a state: 2025-11-25 sessions and their events live in
   *   it (its event store replaces `eventStore`), and changes reach them through it.
   * @param direct the request engine's 2026-07-28 entry, offered each request `directCandidate`
   *   finds (node:http and fetch alike); without it every request goes to the SDK.
   * @param counting where the endpoint-wide rate limit counts (the app's store: shared with
   *   `redisState`) and whom it tells of the requests it refuses (the app's event hub: rate
   *   limits, admission, session and listen caps).
   * @param taskFeed the app's tasks, for 2026-07-28 listen streams asking for `notifications/tasks`.
   */
  constructor(
    readonly factory: (purpose: ServerPurpose) => SdkMcpServer,
    options: HttpEndpointOptions = {},
    requirements?: CallRequirements,
    uriLimits: UriLimits = { maxSubscriptionsPerSession: 1_000, maxUriLength: 8_192 },
    relay?: SessionRelay,
    readonly direct?: DirectModern,
    counting?: { readonly store: RateLimitStore; readonly events: ServerEvents; readonly errorShape?: RateLimitErrorShape },
    private readonly taskFeed?: TaskFeed,
    card?: ServerCardRoute,
  ) {
    const store = counting?.store ?? new MemoryRateLimitStore();
    const rateLimit = options.rateLimit ? new HttpRateLimit(options.rateLimit, store, counting?.events, counting?.errorShape) : undefined;
    const failedAuthLimit = options.auth?.failedAuthLimit ?? DEFAULT_FAILED_AUTH_LIMIT;
    const failedAuth =
      options.auth && failedAuthLimit ? new FailedAuthLimit(failedAuthLimit, store, counting?.events, counting?.errorShape) : undefined;
    this.admission = new HttpAdmission(options, requirements, rateLimit, counting?.events, failedAuth, card);
    this.maxPendingNotifications = options.maxPendingNotifications;
    const given = Object.fromEntries(Object.entries(options).filter(([key, value]) => key in DEFAULT_HTTP_LIMITS && value !== undefined));
    const limits = { ...DEFAULT_HTTP_LIMITS, ...given };
    const leases = relay?.state.listens;
    this.listens = new ListenPolicy(
      uriLimits,
      new ListenCaps(limits.maxListenStreamsPerClient, leases),
      relay?.state.name ?? 'shared',
      leases ? new ListenCaps(limits.maxListenStreams, leases) : undefined,
      counting?.events,
    );
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
      limits,
      eventStore,
      options.retryIntervalMs,
      relay ? (copies) => new SharedSessions(relay, copies, limits) : () => localSessions,
      counting?.events,
    );
    this.modern = createMcpHandler(() => factory('request'), {
      legacy: 'reject',
      maxRequestBodySize: this.admission.maxBody,
      maxSubscriptions: limits.maxListenStreams,
    });
    const { sessionIdleTimeoutMs: idle, sessionInitializeTimeoutMs: init } = limits;
    // Until it is done (once per process), session answers are framed by the SDK's transport.
    void sessionFramingChecked();
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
    const admitted = await this.admission.admit(request, info.remoteAddress);
    if ('response' in admitted) return admitted.response;
    rememberClientAddress(request, admitted.caller.address);
    const text = request.method === 'POST' ? await request.clone().text() : undefined;
    const checked = await this.admission.check(request, admitted.caller, text);
    if ('response' in checked) return checked.response;
    const message = this.directCandidate(request, checked.body);
    if (message) {
      const exchange = new FetchExchange(
        message as ModernCall['message'],
        admitted.caller.principal,
        request,
        this.maxPendingNotifications,
      );
      if (this.offerToEngine(exchange)) return exchange.response;
    }
    const call = this.sessionCall(request, admitted.caller, checked.body);
    if (call) return this.answerOnResponse(call, admitted.caller, request);
    return this.route(request, admitted.caller, checked.body);
  };

  /**
   * A session call through the fetch face, answered on Armature's own stream made as a web
   * `Response` (node:http answers on the socket itself, `answerInSession`); or the refusal, when the
   * session ended meanwhile or its store is away.
   */
  private async answerOnResponse(call: SessionCall, caller: Caller, request: Request): Promise<Response> {
    const opened = await this.openSessionAnswer(call);
    if (opened instanceof Response) return opened;
    const extra = { authInfo: caller.principal, request, closeSSEStream: undefined, closeStandaloneSSEStream: undefined };
    return call.session.transport.serveOnResponse([call.message as JSONRPCRequest], 1, opened.resumable, extra);
  }

  /**
   * Offers a 2026-07-28 call to the request engine; true when it took it and answers through the
   * exchange (as the SDK's handler answers a failure of its own: 500, never a dropped request).
   */
  offerToEngine(exchange: ModernCall & { finish(answer: unknown): void; fail(body: string): void }): boolean {
    const answer = this.direct?.(exchange);
    if (!answer) return false;
    answer.then(
      (result) => exchange.finish(result),
      () => exchange.fail(jsonRpcErrorBody(-32603, 'Internal server error', exchange.message.id ?? null)),
    );
    return true;
  }

  /** A checked POST the request engine may answer (see `ModernRoutes.engineCandidate`), or undefined. */
  directCandidate(head: RequestHead, body: ParsedBody | undefined): Message | undefined {
    if (!this.direct || this.admission.closed || head.method !== 'POST' || !body) return undefined;
    return this.modernRoutes.engineCandidate(head, body);
  }

  /**
   * A checked POST in a 2025-11-25 session that Armature answers on its own stream, without the
   * SDK's transport (see `SessionTable.take`), with its session (the id now in flight there);
   * undefined to route it as usual. Its headers and message pass the SDK transport's checks as
   * they stand (a request the SDK's message schema refuses, or an initialize, is left to it), and
   * the SDK's framing is as Armature copies it (`framesAsSdk`). What the request engine does not
   * serve is handed to the SDK as its transport hands it: parsed by its message schema.
   */
  sessionCall(head: RequestHead, caller: Caller, body: ParsedBody | undefined): SessionCall | undefined {
    if (this.admission.closed || head.method !== 'POST' || !body || !framesAsSdk()) return undefined;
    const sessionId = head.headers.get('mcp-session-id');
    const accept = head.headers.get('accept');
    if (!sessionId || !accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    const raw = body.value;
    if (!isPlainRequest(raw) || raw.method === 'initialize') return undefined;
    const message = acceptsLegacy(raw.method, raw.params) ? raw : (asSessionMessage(raw) as Message | undefined);
    if (!message) return undefined;
    const protocolVersion = head.headers.get('mcp-protocol-version');
    const session = this.legacy.take(sessionId, caller, message as SessionRequest, protocolVersion);
    return session && { session, message, protocolVersion };
  }

  /** Opens the answer to a session call (see `SessionTable.openAnswer`). */
  openSessionAnswer(call: SessionCall): Promise<OpenedAnswer | Response> {
    return this.legacy.openAnswer(call.session, call.message as SessionRequest, call.protocolVersion);
  }

  /** Routes a checked request: 2025-11-25 traffic to the sessions, the rest to the SDK's 2026-07-28 handler. */
  async route(request: Request, caller: Caller, body: ParsedBody | undefined): Promise<Response> {
    if (await isLegacyRequest(request, body?.value, { maxRequestBodySize: this.admission.maxBody })) {
      return this.legacy.serve(request, caller, body);
    }
    return this.serveModern(request, caller, body);
  }

  /** 2026-07-28: the SDK's stateless handler, with `subscriptions/listen` streams held to the listen policy. */
  private async serveModern(request: Request, caller: Caller, body: ParsedBody | undefined): Promise<Response> {
    const options = {
      ...(caller.principal ? { authInfo: caller.principal } : {}),
      ...(body ? { parsedBody: body.value } : {}),
    };
    const message = body && !Array.isArray(body.value) ? (body.value as Message | null) : undefined;
    if (message?.method !== 'subscriptions/listen') return this.modern.fetch(request, options);
    const admitted = await this.listens.admit(message, caller);
    if ('response' in admitted) return admitted.response;
    const taskIds = (message.params?.notifications as { taskIds?: unknown } | undefined)?.taskIds;
    if (taskIds !== undefined && this.taskFeed) {
      const refused = taskListenProblem(message, taskIds, this.taskFeed);
      if (refused) {
        admitted.release();
        return refused;
      }
      return serveTaskListen(message, taskIds as string[], caller, this.taskFeed, admitted.release, this.taskStreams);
    }
    const response = await this.modern.fetch(request, options);
    const streaming = response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
    if (!streaming) {
      admitted.release();
      return response;
    }
    return whenBodyEnds(response, admitted.release);
  }

  /** New requests get 503 from now on; open sessions keep their in-flight calls. */
  stopAccepting(): void {
    this.admission.closed = true;
  }

  /** Closes every session and the stateless handler. */
  async close(): Promise<void> {
    if (this.sweeperStopped) return;
    this.sweeperStopped = true;
    this.admission.closed = true;
    clearInterval(this.sweeper);
    for (const end of [...this.taskStreams]) end();
    await this.legacy.close();
    await this.modern.close();
  }
}
