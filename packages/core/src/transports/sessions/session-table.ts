import { randomUUID } from 'node:crypto';
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  type EventStore,
  isInitializeRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpServer as SdkMcpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { clientAddressOf, rememberClientAddress } from '../../context/client-address-of.js';
import { IN_FLIGHT } from '../../context/in-flight-table.js';
import { wireMessages } from '../../messages/wire-messages.js';
import type { ServerEvents } from '../../observability/server-events.js';
import { onClosed } from '../../seams/sdk-callbacks.js';
import { framesAsSdk } from '../../seams/sdk-session-framing.js';
import { sessionState } from '../../seams/sdk-session-state.js';
import type { Caller } from '../http/http-caller.js';
import type { DEFAULT_HTTP_LIMITS } from '../http/http-limits.js';
import { isBatch, messagesOf, type ParsedBody } from '../http/http-messages.js';
import { PerClientCounter } from '../http/per-client-counter.js';
import { jsonRpcErrorResponse } from '../wire/json-rpc-error-response.js';
import { asSessionMessage, idKey, isPlainRequest } from '../wire/json-rpc-shape.js';
import { MAX_BATCH_MESSAGES, primesStreams } from '../wire/sse-format.js';
import type { ResumableAnswer } from './session-answer.js';
import { SessionEventStore } from './session-event-store.js';
import { SessionCapReached, type SessionSharing } from './session-sharing.js';
import { type Session, SessionTransport } from './session-transport.js';
import type { SessionCopies } from './shared-sessions.js';

/** A plain request of a session that Armature answers on its own stream. */
export interface SessionRequest {
  readonly id: string | number;
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** What the answer to a request Armature took needs: its events, in a resumable session. */
export interface OpenedAnswer {
  readonly resumable?: ResumableAnswer;
}

/**
 * The 2025-11-25 half of the HTTP endpoint: sessions kept here (the SDK keeps none), routed by
 * `Mcp-Session-Id`, owned by whoever opened them, within the total and per-client caps, each with its
 * own view of the event store, evicted when idle or never initialized, and purged when they end.
 * Its `SessionSharing` decides what other instances see of them (nothing, for `localSessions`).
 */
export class SessionTable {
  private readonly sessions = new Map<string, Session>();
  private readonly sessionsPerClient: PerClientCounter;
  private readonly sharing: SessionSharing;

  /**
   * @param factory builds the SDK server of one session.
   * @param share makes the table's sharing, given the table's copies of its sessions.
   * @param events hears the initializes refused at a cap.
   */
  constructor(
    private readonly factory: () => SdkMcpServer,
    private readonly limits: typeof DEFAULT_HTTP_LIMITS,
    private readonly eventStore: EventStore | undefined,
    private readonly retryInterval: number | undefined,
    share: (copies: SessionCopies) => SessionSharing,
    private readonly events?: ServerEvents,
  ) {
    this.sessionsPerClient = new PerClientCounter(limits.maxSessionsPerClient);
    this.sharing = share({
      get: (id) => this.sessions.get(id),
      set: (id, session) => this.sessions.set(id, session),
      drop: (id) => this.endSession(id, true),
    });
  }

  /**
   * A session speaks the revision it negotiated. A request in that session whose
   * `MCP-Protocol-Version` header names another supported revision (a client bug: the spec says
   * to send the negotiated one) is served as the negotiated revision, so per-revision transport
   * behaviour (SSE priming events and retry hints, SEP-1699) follows what the client actually
   * agreed to. Unsupported values are left for the transport to refuse.
   */
  private withSessionVersion(request: Request, session: Session): Request {
    const header = request.headers.get('mcp-protocol-version');
    const negotiated = session.server.server.getNegotiatedProtocolVersion();
    if (!header || !negotiated || header === negotiated || !SUPPORTED_PROTOCOL_VERSIONS.includes(header)) return request;
    const headers = new Headers(request.headers);
    headers.set('mcp-protocol-version', negotiated);
    return rememberClientAddress(new Request(request, { headers }), clientAddressOf(request));
  }

  /** 2025-11-25: route by `Mcp-Session-Id`, opening a session only for an initialize request. */
  async serve(request: Request, caller: Caller, parsed: ParsedBody | undefined): Promise<Response> {
    try {
      return await this.route(request, caller, parsed);
    } catch (error) {
      const failure = this.sharing.failure(error, parsed);
      if (!failure) throw error;
      return failure;
    }
  }

  private route(request: Request, caller: Caller, parsed: ParsedBody | undefined): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId && request.method === 'GET') return this.sharing.openingStream(sessionId, () => this.routed(request, caller, parsed));
    return this.routed(request, caller, parsed);
  }

  private async routed(request: Request, caller: Caller, parsed: ParsedBody | undefined): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    const options = { ...(caller.principal ? { authInfo: caller.principal } : {}), ...(parsed ? { parsedBody: parsed.value } : {}) };
    if (sessionId) {
      const session = this.sessions.get(sessionId) ?? (await this.sharing.revive(sessionId, caller, (id) => this.connect(id)));
      // A session belongs to whoever opened it: someone else presenting its id is told it does not exist.
      if (!session || session.owner !== caller.owner) return jsonRpcErrorResponse(404, -32001, wireMessages.sessionNotFound);
      session.lastSeen = Date.now();
      if (request.method === 'POST' && (parsed ? Array.isArray(parsed.value) : await isBatch(request))) {
        const version = request.headers.get('mcp-protocol-version') ?? session.server.server.getNegotiatedProtocolVersion() ?? '';
        // JSON-RPC batches were part of 2025-03-26 only; 2025-06-18 and later removed them.
        if (version >= '2025-06-18') {
          return jsonRpcErrorResponse(400, -32600, wireMessages.batchOnRevision(version));
        }
      }
      if (!(await this.sharing.refresh(sessionId, session))) return jsonRpcErrorResponse(404, -32001, wireMessages.sessionNotFound);
      if (request.method === 'GET') {
        const replay = await this.sharing.store(this.refusedReplay(request, session));
        if (replay) return replay;
      }
      const refused = this.admitMessages(session, parsed);
      if (refused) return refused;
      if (request.method === 'POST' && (await this.sharing.relayed(sessionId, session, parsed))) return new Response(null, { status: 202 });
      if (this.delivered(session, request, parsed, caller)) return new Response(null, { status: 202 });
      if (this.speaksSession(session, request) && request.method === 'DELETE') return this.deleted(session, sessionId);
      const versioned = this.withSessionVersion(request, session);
      if (this.streamsItself(session, versioned)) return session.transport.openStream(versioned);
      const batch = Array.isArray(parsed?.value) ? this.batchHere(session, versioned, parsed.value, caller) : undefined;
      return batch ?? this.handle(session, versioned, parsed, options);
    }
    if (request.method !== 'POST') {
      return jsonRpcErrorResponse(400, -32000, wireMessages.sessionIdRequired);
    }
    let body: unknown;
    if (parsed) body = parsed.value;
    else {
      try {
        body = await request.clone().json();
      } catch {
        return jsonRpcErrorResponse(400, -32700, wireMessages.invalidJson);
      }
    }
    if (Array.isArray(body)) return jsonRpcErrorResponse(400, -32600, wireMessages.initializeInBatch);
    const initializing = isInitializeRequest(body);
    if (!initializing) return jsonRpcErrorResponse(400, -32000, wireMessages.notInitialized);
    return this.openSession(request, caller, body, parsed !== undefined, options);
  }

  /**
   * The session of a request Armature answers on its own stream, bypassing the SDK's transport
   * (whose checks it passes as they stand: a plain request in an initialized session of this
   * process, with the negotiated revision or none in `MCP-Protocol-Version`, and an id not in
   * flight), its id now in flight; undefined to serve it the usual way. Local, shared and resumable
   * sessions alike: `openAnswer` then does what sharing and the event store ask before it is served.
   */
  take(sessionId: string, caller: Caller, message: SessionRequest, protocolVersion: string | null): Session | undefined {
    const session = this.sessions.get(sessionId);
    if (!session || session.owner !== caller.owner) return undefined;
    const { transport } = session;
    if (transport.sessionId !== sessionId) return undefined;
    if (protocolVersion !== null && protocolVersion !== session.server.server.getNegotiatedProtocolVersion()) return undefined;
    const key = idKey(message.id);
    if (transport.inFlight.has(key)) return undefined;
    transport.inFlight.set(key, IN_FLIGHT);
    session.lastSeen = Date.now();
    this.sharing.record(session, message);
    return session;
  }

  /**
   * Opens the answer to a request `take` took: a shared session's life is extended (and what the
   * client changed through another instance taken) at most once per refresh interval, and a
   * resumable session's store must be reachable. Its stream is stored from its first step on
   * (`SessionAnswer`: claimed and primed with the messages the handler sent by then, its answer
   * among them when it came). Its events, or the answer refusing the request (the session ended
   * meanwhile, the store is away), its id then no longer in flight.
   */
  async openAnswer(session: Session, message: SessionRequest, protocolVersion: string | null): Promise<OpenedAnswer | Response> {
    const { transport, events } = session;
    const sessionId = transport.sessionId as string;
    try {
      const [live] = await Promise.all([this.sharing.refresh(sessionId, session), events && this.sharing.store(events.reachable())]);
      if (!live) {
        transport.inFlight.delete(idKey(message.id));
        return jsonRpcErrorResponse(404, -32001, wireMessages.sessionNotFound);
      }
      if (!events) return {};
      return { resumable: this.resumableOf(events, [message.id], protocolVersion ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION) };
    } catch (error) {
      transport.inFlight.delete(idKey(message.id));
      const failure = this.sharing.failure(error, { value: message });
      if (!failure) throw error;
      return failure;
    }
  }

  /**
   * The events of a new stream answering requests `ids` in a resumable session, opening with a
   * priming event (and offering `ctx.http.closeSSE`) when `protocolVersion` is 2025-11-25 or later,
   * as the SDK's transport does.
   */
  private resumableOf(events: SessionEventStore, ids: (string | number)[], protocolVersion: string): ResumableAnswer {
    // Named when it opens: a request answered with one JSON body has no stream.
    let streamId = '';
    const primed = primesStreams(protocolVersion);
    return {
      open: (first) => {
        streamId = randomUUID();
        return events.openStream(streamId, ids, primed, first);
      },
      store: (event) => events.storeEvent(streamId, event),
      primed,
      ...(this.retryInterval !== undefined ? { retryMs: this.retryInterval } : {}),
    };
  }

  /**
   * A POST of one notification or response (no request, so no stream to answer on) in an
   * initialized session, delivered to the session's server here, as the SDK's transport delivers
   * it (parsed by its message schema, with the caller's auth and the request); true when it was.
   * What the SDK transport's checks would refuse (an Accept without both streams, another revision
   * in `MCP-Protocol-Version`, a message its schema refuses), and batches, are left to it.
   */
  private delivered(session: Session, request: Request, parsed: ParsedBody | undefined, caller: Caller): boolean {
    if (request.method !== 'POST' || !parsed || Array.isArray(parsed.value) || !this.speaksSession(session, request)) return false;
    const raw = parsed.value as { method?: unknown; id?: unknown } | null;
    if (raw === null || typeof raw !== 'object' || (typeof raw.method === 'string' && raw.id !== undefined)) return false;
    const accept = request.headers.get('accept');
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return false;
    const { transport } = session;
    const message = asSessionMessage(raw);
    if (!message) return false;
    transport.onmessage?.(message, { authInfo: caller.principal, request });
    return true;
  }

  /**
   * Whether Armature serves `request` of `session` itself, past the checks the SDK's transport
   * makes of every request in a session: the session initialized here, the negotiated revision or
   * none in `MCP-Protocol-Version`, and the SDK's framing as Armature copies it.
   */
  private speaksSession(session: Session, request: Request): boolean {
    const version = request.headers.get('mcp-protocol-version');
    return (
      framesAsSdk() &&
      session.transport.sessionId !== undefined &&
      (version === null || version === session.server.server.getNegotiatedProtocolVersion())
    );
  }

  /**
   * Serves a JSON-RPC batch (2025-03-26) of a session on Armature's own stream, as the SDK's
   * transport serves it: each message handed to the session's server in order, and the requests'
   * answers written on one SSE stream as they come, which ends with the last (only notifications
   * and responses: 202). Undefined to leave it to the SDK's transport: a session Armature does not
   * speak (`speaksSession`), an Accept without both streams, a batch beyond the SDK's size limit,
   * a message its schema refuses, an initialize (refused there).
   */
  private batchHere(session: Session, request: Request, batch: unknown[], caller: Caller): Response | Promise<Response> | undefined {
    const accept = request.headers.get('accept');
    if (request.method !== 'POST' || !this.speaksSession(session, request) || batch.length > MAX_BATCH_MESSAGES) return undefined;
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    const messages: JSONRPCMessage[] = [];
    const ids: (string | number)[] = [];
    for (const raw of batch) {
      const message = asSessionMessage(raw);
      if (!message || isInitializeRequest(message)) return undefined;
      messages.push(message);
      if ('method' in message && 'id' in message) ids.push(message.id);
    }
    const { transport, events } = session;
    if (ids.length === 0) {
      for (const message of messages) transport.onmessage?.(message, { authInfo: caller.principal, request });
      return new Response(null, { status: 202 });
    }
    const protocolVersion = request.headers.get('mcp-protocol-version') ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
    const resumable = events && this.resumableOf(events, ids, protocolVersion);
    const extra = { authInfo: caller.principal, request, closeSSEStream: undefined, closeStandaloneSSEStream: undefined };
    return transport.serveOnResponse(messages, ids.length, resumable, extra, true);
  }

  /**
   * Whether Armature holds the GET stream `request` asks for itself: one the SDK's transport would
   * open (the client accepts an event stream), in a session Armature speaks.
   */
  private streamsItself(session: Session, request: Request): boolean {
    return (
      request.method === 'GET' && !!request.headers.get('accept')?.includes('text/event-stream') && this.speaksSession(session, request)
    );
  }

  /** DELETE: the session ends for every instance (its share freed first), then its streams and server close. */
  private async deleted(session: Session, sessionId: string): Promise<Response> {
    try {
      await this.endSession(sessionId, false, true);
      return new Response(null, { status: 200 });
    } finally {
      await session.transport.close();
    }
  }

  /** A new 2025-11-25 session, within the total and per-client caps. */
  private async openSession(
    request: Request,
    caller: Caller,
    body: unknown,
    parsedAsJson: boolean,
    options: Record<string, unknown>,
  ): Promise<Response> {
    const id = (body as { id?: unknown }).id ?? null;
    if (this.sessions.size >= this.limits.maxSessions) return this.capReached('maxSessions', id, caller);
    if (!this.sessionsPerClient.tryAcquire(caller.client)) return this.capReached('maxSessionsPerClient', id, caller);
    const sessionId = randomUUID();
    const { server, transport, events } = await this.connect(sessionId);
    // Registered before the initialize is handled so that concurrent initializes count against the caps.
    const now = Date.now();
    this.sessions.set(sessionId, {
      transport,
      server,
      owner: caller.owner,
      client: caller.client,
      events,
      opened: now,
      initialized: false,
      lastSeen: now,
      counted: true,
    });
    try {
      await this.sharing.opened(sessionId, this.sessions.get(sessionId) as Session, caller, body);
    } catch (error) {
      this.endSession(sessionId, true);
      if (error instanceof SessionCapReached) return this.capReached(error.cap, id, caller);
      throw error;
    }
    const session = this.sessions.get(sessionId) as Session;
    const response =
      (parsedAsJson ? await this.initializeHere(session, sessionId, request, body, caller) : undefined) ??
      (await this.handle(session, request, { value: body }, { ...options, parsedBody: body }));
    if (transport.sessionId === undefined) this.endSession(sessionId, true);
    return response;
  }

  /**
   * Answers a new session's `initialize` on Armature's own stream, as the SDK's transport answers
   * it: the transport initialized under the session's id (through the checked seam), the answer on
   * an SSE stream carrying `Mcp-Session-Id`, opened with a priming event in a resumable session
   * when the client asks for 2025-11-25 or later. Undefined to leave it to the SDK's transport: a
   * self-check failed (framing or session state), or its checks are to refuse the request (an
   * Accept without both streams; a body not sent as JSON, or not as its schema reads it).
   */
  private async initializeHere(
    session: Session,
    sessionId: string,
    request: Request,
    body: unknown,
    caller: Caller,
  ): Promise<Response | undefined> {
    const accept = request.headers.get('accept');
    if (!framesAsSdk() || !accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
    const message = isPlainRequest(body) ? (asSessionMessage(body) as JSONRPCRequest | undefined) : undefined;
    const writer = message && (await sessionState());
    if (!message || !writer) return undefined;
    const { transport, events } = session;
    transport.initialized(writer, sessionId);
    const { protocolVersion } = (message.params ?? {}) as { protocolVersion?: string };
    const resumable = events && this.resumableOf(events, [message.id], String(protocolVersion));
    const extra = { authInfo: caller.principal, request, closeSSEStream: undefined, closeStandaloneSSEStream: undefined };
    return transport.serveOnResponse([message], 1, resumable, extra);
  }

  /**
   * Hands a request to the session's transport. With claims (instances sharing sessions), the
   * requests of a POST are announced first, so the stream the transport opens for them is claimed
   * by this instance; a POST the transport answers without a stream (a refusal) withdraws them, and
   * its request ids are no longer in flight.
   */
  private async handle(session: Session, request: Request, parsed: ParsedBody | undefined, options: Record<string, unknown>) {
    const claims = session.events?.claims;
    // Not `isPlainRequest`: every request the SDK's transport may open a stream for, plain or not, is claimed.
    const ids = messagesOf(parsed)
      .filter((m) => typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number'))
      .map((m) => m.id as string | number);
    if (request.method !== 'POST' || ids.length === 0) return session.transport.handleRequest(request, options);
    claims?.expect(ids);
    const response = await session.transport.handleRequest(request, options);
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      // Refused, no stream opened: nothing is claimed for its requests, and their ids are free again.
      claims?.withdraw(ids);
      for (const id of ids) session.transport.inFlight.delete(idKey(id));
    }
    return response;
  }

  /** A new SDK server connected to a new transport for session `sessionId`. */
  private async connect(sessionId: string) {
    const server = this.factory();
    const events = this.eventStore ? new SessionEventStore(this.eventStore, sessionId, this.sharing.claims()) : undefined;
    const transport = new SessionTransport({
      sessionIdGenerator: () => sessionId,
      ...(events ? { eventStore: events } : {}),
      ...(this.retryInterval !== undefined ? { retryInterval: this.retryInterval } : {}),
      // DELETE: the session ends everywhere.
      onsessionclosed: (closedId) => this.endSession(closedId, false, true),
    });
    onClosed(transport, () => this.endSession(sessionId));
    await server.connect(transport);
    this.sharing.connected(sessionId, transport);
    return { server, transport, events };
  }

  /** The answer to an initialize beyond a session cap (of this instance, or of all of them when they share sessions). */
  private capReached(cap: SessionCapReached['cap'], id: unknown, caller: Caller): Response {
    const total = cap === 'maxSessions';
    const message = total
      ? wireMessages.tooManySessions(this.limits.maxSessions)
      : wireMessages.tooManyClientSessions(this.limits.maxSessionsPerClient);
    const retryAfterSeconds = total ? 30 : 5;
    this.events?.emit({
      event: 'refused',
      reason: total ? 'session-cap' : 'client-cap',
      message,
      method: 'initialize',
      ...(typeof id === 'string' || typeof id === 'number' ? { requestId: id } : {}),
      ...(caller.client !== undefined ? { client: caller.client } : {}),
      retryAfterMs: retryAfterSeconds * 1_000,
    });
    return jsonRpcErrorResponse(total ? 503 : 429, -32000, message, id, { 'retry-after': String(retryAfterSeconds) });
  }

  /**
   * A `Last-Event-ID` that is not one of this session's events (another session's, another
   * user's, expired, invented) is answered like an unknown session: nothing about it is revealed.
   */
  private async refusedReplay(request: Request, session: Session): Promise<Response | undefined> {
    const lastEventId = request.headers.get('last-event-id');
    if (!lastEventId || !session.events) return undefined;
    if (await session.events.owns(lastEventId)) return undefined;
    return jsonRpcErrorResponse(404, -32001, wireMessages.eventStreamNotFound);
  }

  /**
   * Per-message checks inside a session: duplicate in-flight request ids (JSON-RPC ids must be
   * unique among a session's pending requests, or the first caller never gets its answer), and
   * `notifications/initialized`.
   */
  private admitMessages(session: Session, parsed: ParsedBody | undefined): Response | undefined {
    const messages = messagesOf(parsed);
    const fresh: string[] = [];
    for (const message of messages) {
      if (typeof message.method !== 'string' || message.id === undefined) continue;
      const key = idKey(message.id);
      if (session.transport.inFlight.has(key) || fresh.includes(key)) {
        return jsonRpcErrorResponse(400, -32600, wireMessages.idInFlightInSession(message.id), message.id);
      }
      fresh.push(key);
    }
    for (const message of messages) {
      if (message.method === 'notifications/initialized') session.initialized = true;
      if (message.method === 'notifications/cancelled') session.transport.inFlight.delete(idKey(message.params?.requestId));
      this.sharing.record(session, message);
    }
    for (const key of fresh) session.transport.inFlight.set(key, IN_FLIGHT);
    return undefined;
  }

  /**
   * Forgets a session and what it held (its client's slot; its events, as its sharing decides);
   * closes its server when asked. `ended`: the client ended it (DELETE), for every instance.
   */
  private endSession(id: string, closeServer = false, ended = false): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return Promise.resolve();
    this.sessions.delete(id);
    if (session.counted) this.sessionsPerClient.release(session.client);
    if (closeServer) void session.server.close().catch(() => undefined);
    // A DELETE is answered once its share is freed everywhere (the transport awaits this).
    return this.sharing.forget(id, session, ended);
  }

  /** Closes sessions idle past `sessionIdleTimeoutMs`, and those that never sent `initialized` in time. */
  evictIdle(): void {
    const now = Date.now();
    const idleCutoff = now - this.limits.sessionIdleTimeoutMs;
    const initCutoff = now - this.limits.sessionInitializeTimeoutMs;
    for (const [id, session] of this.sessions) {
      if (session.lastSeen < idleCutoff || (!session.initialized && session.opened < initCutoff)) this.endSession(id, true);
    }
  }

  /** Ends every session (its events purged) and closes their servers. */
  async close(): Promise<void> {
    this.sharing.close();
    const sessions = [...this.sessions.values()];
    for (const id of [...this.sessions.keys()]) this.endSession(id);
    await Promise.allSettled(sessions.map((s) => s.server.close()));
  }
}
