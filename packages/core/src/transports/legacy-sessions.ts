import { randomUUID } from 'node:crypto';
import {
  type EventStore,
  isInitializeRequest,
  type JSONRPCMessage,
  type McpServer as SdkMcpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { type SessionRecord, storeUnavailableMessage } from '../state/app-state.js';
import type { Caller } from './http-caller.js';
import type { DEFAULT_HTTP_LIMITS } from './http-limits.js';
import { isBatch, messagesOf, type ParsedBody } from './http-messages.js';
import { jsonRpcErrorResponse } from './json-rpc-error-response.js';
import { PerClientCounter } from './per-client-counter.js';
import { SessionEventStore } from './session-event-store.js';
import type { RelayTarget, SessionRelay } from './session-relay.js';
import { applyLogLevel, reviveSession } from './session-revival.js';
import { idKey, type Session, SessionTransport } from './session-transport.js';
import { StreamClaims } from './stream-claims.js';

const SESSION_NOT_FOUND = 'Session not found';

/** Thrown by a shared-store operation; answered 503 naming the store. */
class StoreFailure {
  constructor(readonly cause: unknown) {}
}

/** An effect on the shared record whose failure the client is told about, naming the store. */
function naming(store: string, effect: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await effect();
    } catch {
      throw new Error(storeUnavailableMessage(store));
    }
  };
}

async function fromStore<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw new StoreFailure(error);
  }
}

/**
 * The 2025-11-25 half of the HTTP endpoint: sessions kept here (the SDK keeps none), routed by
 * `Mcp-Session-Id`, owned by whoever opened them, within the total and per-client caps, each with its
 * own view of the event store, evicted when idle or never initialized, and purged when they end.
 * With a relay (instances sharing a state), a session opened on another instance is re-created
 * here from its stored record, and traffic for it crosses instances through the relay.
 */
export class LegacySessions implements RelayTarget {
  private readonly sessions = new Map<string, Session>();
  private readonly reviving = new Map<string, Promise<Session | undefined>>();
  private readonly sessionsPerClient: PerClientCounter;
  private readonly unregister?: () => void;

  /** @param factory builds the SDK server of one session (tracked for change notifications when not shared). */
  constructor(
    private readonly factory: () => SdkMcpServer,
    private readonly limits: typeof DEFAULT_HTTP_LIMITS,
    private readonly eventStore: EventStore | undefined,
    private readonly retryInterval: number | undefined,
    private readonly relay?: SessionRelay,
  ) {
    this.sessionsPerClient = new PerClientCounter(limits.maxSessionsPerClient);
    this.unregister = relay?.register(this);
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
    return new Request(request, { headers });
  }

  /** 2025-11-25: route by `Mcp-Session-Id`, opening a session only for an initialize request. */
  async serve(request: Request, caller: Caller, parsed: ParsedBody | undefined): Promise<Response> {
    try {
      return await this.route(request, caller, parsed);
    } catch (error) {
      if (!(error instanceof StoreFailure) || !this.relay) throw error;
      const id = messagesOf(parsed).length === 1 ? (messagesOf(parsed)[0]?.id ?? null) : null;
      return jsonRpcErrorResponse(503, -32000, storeUnavailableMessage(this.relay.state.name), id, { 'retry-after': '5' });
    }
  }

  private async route(request: Request, caller: Caller, parsed: ParsedBody | undefined): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    const options = { ...(caller.principal ? { authInfo: caller.principal } : {}), ...(parsed ? { parsedBody: parsed.value } : {}) };
    if (sessionId) {
      const session = this.sessions.get(sessionId) ?? (await this.revive(sessionId, caller));
      // A session belongs to whoever opened it: someone else presenting its id is told it does not exist.
      if (!session || session.owner !== caller.owner) return jsonRpcErrorResponse(404, -32001, SESSION_NOT_FOUND);
      session.lastSeen = Date.now();
      if (request.method === 'POST' && (parsed ? Array.isArray(parsed.value) : await isBatch(request))) {
        const version = request.headers.get('mcp-protocol-version') ?? session.server.server.getNegotiatedProtocolVersion() ?? '';
        // JSON-RPC batches were part of 2025-03-26 only; 2025-06-18 and later removed them.
        if (version >= '2025-06-18') {
          return jsonRpcErrorResponse(
            400,
            -32600,
            `Invalid Request: JSON-RPC batches are not supported on protocol revision ${version}; send one message per request`,
          );
        }
      }
      if (this.relay && !(await this.refreshed(sessionId, session))) return jsonRpcErrorResponse(404, -32001, SESSION_NOT_FOUND);
      if (request.method === 'GET') {
        const replay = await (this.relay ? fromStore(this.refusedReplay(request, session)) : this.refusedReplay(request, session));
        if (replay) return replay;
      }
      const refused = this.admitMessages(session, parsed);
      if (refused) return refused;
      if (this.relay && request.method === 'POST' && (await this.relayed(sessionId, session, parsed)))
        return new Response(null, { status: 202 });
      return this.handle(session, this.withSessionVersion(request, session), parsed, options);
    }
    if (request.method !== 'POST') {
      return jsonRpcErrorResponse(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    let body: unknown;
    if (parsed) body = parsed.value;
    else {
      try {
        body = await request.clone().json();
      } catch {
        return jsonRpcErrorResponse(400, -32700, 'Parse error: Invalid JSON');
      }
    }
    if (Array.isArray(body)) return jsonRpcErrorResponse(400, -32600, 'Invalid Request: initialize must not be part of a JSON-RPC batch');
    const initializing = isInitializeRequest(body);
    if (!initializing)
      return jsonRpcErrorResponse(400, -32000, 'Bad Request: Server not initialized (send initialize first, or the Mcp-Session-Id header)');
    return this.openSession(request, caller, body, options);
  }

  /** A new 2025-11-25 session, within the total and per-client caps. */
  private async openSession(request: Request, caller: Caller, body: unknown, options: Record<string, unknown>): Promise<Response> {
    const id = (body as { id?: unknown }).id ?? null;
    if (this.sessions.size >= this.limits.maxSessions) {
      return jsonRpcErrorResponse(
        503,
        -32000,
        `Service Unavailable: the server holds its maximum of ${this.limits.maxSessions} sessions (maxSessions); retry later`,
        id,
        { 'retry-after': '30' },
      );
    }
    if (!this.sessionsPerClient.tryAcquire(caller.client)) {
      return jsonRpcErrorResponse(
        429,
        -32000,
        `Too Many Requests: this client already holds ${this.limits.maxSessionsPerClient} sessions (maxSessionsPerClient); end unused ones with DELETE, or retry later`,
        id,
        { 'retry-after': '5' },
      );
    }
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
    if (this.relay) {
      const { sessions, name } = this.relay.state;
      const params = (body as { params?: Partial<SessionRecord> }).params ?? {};
      const record = (protocolVersion: string): SessionRecord => ({
        ...(caller.owner !== undefined ? { owner: caller.owner } : {}),
        ...(caller.client !== undefined ? { client: caller.client } : {}),
        protocolVersion,
        capabilities: params.capabilities ?? {},
        clientInfo: params.clientInfo ?? { name: 'unknown', version: 'unknown' },
        initialized: false,
      });
      const ttl = this.limits.sessionInitializeTimeoutMs;
      try {
        // Stored before anything is streamed (a store that is away is a 503 here, not a broken stream).
        await fromStore(sessions.put(sessionId, record(String(params.protocolVersion)), ttl));
      } catch (error) {
        this.endSession(sessionId, true);
        throw error;
      }
      // Then with the revision negotiated, before the client can see its session id and use it elsewhere.
      transport.onAnswered.set(
        idKey(id),
        naming(name, () =>
          sessions.put(sessionId, record(server.server.getNegotiatedProtocolVersion() ?? String(params.protocolVersion)), ttl),
        ),
      );
    }
    const response = await this.handle(this.sessions.get(sessionId) as Session, request, { value: body }, { ...options, parsedBody: body });
    if (transport.sessionId === undefined) this.endSession(sessionId, true);
    return response;
  }

  /**
   * Hands a request to the session's transport. With claims (instances sharing sessions), the
   * requests of a POST are announced first, so the stream the transport opens for them is claimed
   * by this instance; a POST the transport answers without a stream withdraws them.
   */
  private async handle(session: Session, request: Request, parsed: ParsedBody | undefined, options: Record<string, unknown>) {
    const claims = session.events?.claims;
    const ids = messagesOf(parsed)
      .filter((m) => typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number'))
      .map((m) => m.id as string | number);
    if (!claims || request.method !== 'POST' || ids.length === 0) return session.transport.handleRequest(request, options);
    claims.expect(ids);
    const response = await session.transport.handleRequest(request, options);
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) claims.withdraw(ids);
    return response;
  }

  /** A new SDK server connected to a new transport for session `sessionId`. */
  private async connect(sessionId: string) {
    const server = this.factory();
    const relay = this.relay;
    const claims = relay ? new StreamClaims(relay.instance, relay.state.events, relay.state.instances) : undefined;
    const events = this.eventStore ? new SessionEventStore(this.eventStore, sessionId, claims) : undefined;
    const transport = new SessionTransport({
      sessionIdGenerator: () => sessionId,
      ...(events ? { eventStore: events } : {}),
      ...(this.retryInterval !== undefined ? { retryInterval: this.retryInterval } : {}),
      // DELETE: the session ends everywhere.
      onsessionclosed: (closedId) => this.endSession(closedId, false, true),
    });
    transport.onclose = () => this.endSession(sessionId);
    await server.connect(transport);
    if (relay) transport.relay = (message) => relay.toClient(sessionId, message);
    return { server, transport, events };
  }

  /**
   * A session opened on another instance, re-created here from its stored record (once, however
   * many requests for it arrive together). Undefined when no instance knows it, or not for `caller`.
   */
  private revive(sessionId: string, caller: Caller): Promise<Session | undefined> {
    if (!this.relay) return Promise.resolve(undefined);
    let pending = this.reviving.get(sessionId);
    if (!pending) {
      pending = this.reviveOnce(sessionId, caller).finally(() => this.reviving.delete(sessionId));
      this.reviving.set(sessionId, pending);
    }
    return pending;
  }

  private async reviveOnce(sessionId: string, caller: Caller): Promise<Session | undefined> {
    const record = await fromStore((this.relay as SessionRelay).state.sessions.get(sessionId));
    if (!record || record.owner !== caller.owner) return undefined;
    const { server, transport, events } = await this.connect(sessionId);
    await reviveSession(transport, sessionId, record);
    const now = Date.now();
    const session: Session = {
      transport,
      server,
      ...(record.owner !== undefined ? { owner: record.owner } : {}),
      ...(record.client !== undefined ? { client: record.client } : {}),
      events,
      opened: now,
      initialized: record.initialized,
      lastSeen: now,
      counted: false,
      ...(record.logLevel !== undefined ? { logLevel: record.logLevel } : {}),
    };
    this.sessions.set(sessionId, session);
    return session;
  }

  /**
   * Extends the shared session's life and takes what the client changed through other instances
   * (its log level). False when the session ended meanwhile: this copy is dropped.
   */
  private async refreshed(sessionId: string, session: Session): Promise<boolean> {
    const current = await fromStore((this.relay as SessionRelay).state.sessions.touch(sessionId, this.idleTtl(session)));
    if (!current) {
      this.endSession(sessionId, true);
      return false;
    }
    if (current.logLevel !== undefined && current.logLevel !== session.logLevel) {
      session.logLevel = current.logLevel;
      await applyLogLevel(session.transport, sessionId, session.server.server.getNegotiatedProtocolVersion() ?? '', current.logLevel);
    }
    return true;
  }

  private idleTtl(session: Session): number {
    return session.initialized ? this.limits.sessionIdleTimeoutMs : this.limits.sessionInitializeTimeoutMs;
  }

  /**
   * Client messages another instance may be waiting for (answers to its elicitation or sampling
   * requests, cancellations, a new log level) are relayed. True when nothing is left for this
   * instance to handle (the body held only answers awaited elsewhere).
   */
  private async relayed(sessionId: string, session: Session, parsed: ParsedBody | undefined): Promise<boolean> {
    const relay = this.relay as SessionRelay;
    let local = false;
    for (const message of messagesOf(parsed)) {
      const isAnswer = message.method === undefined && message.id !== undefined;
      if (isAnswer && session.transport.awaiting.delete(idKey(message.id))) local = true;
      else if (isAnswer) await fromStore(relay.fromClient(sessionId, message as JSONRPCMessage));
      else {
        local = true;
        if (message.method === 'notifications/cancelled') await fromStore(relay.fromClient(sessionId, message as JSONRPCMessage));
      }
    }
    return !local;
  }

  /** A client message that reached another instance (an answer awaited here, a cancellation): taken here when this copy is concerned. */
  fromClient(sessionId: string, message: JSONRPCMessage): void {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    const { transport } = session;
    if (!('method' in message) && 'id' in message && !transport.awaiting.delete(idKey(message.id))) return;
    transport.onmessage?.(message);
  }

  /** An event stored by another instance for the session's GET stream: written if this instance holds it. */
  written(sessionId: string, eventId: string, message: JSONRPCMessage): void {
    const session = this.sessions.get(sessionId);
    if (session) void session.transport.writeRelayed(eventId, message).catch(() => undefined);
  }

  ended(sessionId: string): void {
    this.endSession(sessionId, true);
  }

  /**
   * A `Last-Event-ID` that is not one of this session's events (another session's, another
   * user's, expired, invented) is answered like an unknown session: nothing about it is revealed.
   */
  private async refusedReplay(request: Request, session: Session): Promise<Response | undefined> {
    const lastEventId = request.headers.get('last-event-id');
    if (!lastEventId || !session.events) return undefined;
    if (await session.events.owns(lastEventId)) return undefined;
    return jsonRpcErrorResponse(
      404,
      -32001,
      'Event stream not found: resume with a Last-Event-ID from this session, or open a new stream without it',
    );
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
        return jsonRpcErrorResponse(
          400,
          -32600,
          `Invalid Request: a request with id ${JSON.stringify(message.id)} is still in flight in this session; use a new id for each request`,
          message.id,
        );
      }
      fresh.push(key);
    }
    for (const message of messages) {
      if (message.method === 'notifications/initialized') session.initialized = true;
      if (message.method === 'notifications/cancelled') session.transport.inFlight.delete(idKey(message.params?.requestId));
      if (this.relay) this.recordEffect(session, message);
    }
    for (const key of fresh) session.transport.inFlight.add(key);
    return undefined;
  }

  /** What a client message changes in the shared record, done once it succeeded. */
  private recordEffect(session: Session, message: { method?: unknown; id?: unknown; params?: Record<string, unknown> }): void {
    const relay = this.relay as SessionRelay;
    const { sessions } = relay.state;
    const id = session.transport.sessionId as string;
    const uri = String(message.params?.uri);
    const effects: Record<string, () => Promise<void>> = {
      'resources/subscribe': () => sessions.subscribe(id, uri),
      'resources/unsubscribe': () => sessions.unsubscribe(id, uri),
      'logging/setLevel': async () => {
        session.logLevel = String(message.params?.level);
        await sessions.update(id, { logLevel: session.logLevel });
      },
    };
    if (message.method === 'notifications/initialized') {
      // From now on the record lives as long as an idle session may.
      void sessions
        .update(id, { initialized: true })
        .then(() => sessions.touch(id, this.limits.sessionIdleTimeoutMs))
        .catch((error: unknown) => session.transport.onerror?.(error as Error));
      return;
    }
    const effect = typeof message.method === 'string' ? effects[message.method] : undefined;
    if (effect && message.id !== undefined) session.transport.onAnswered.set(idKey(message.id), naming(relay.state.name, effect));
  }

  /**
   * Forgets a session and what it held (its client's slot, its events); closes its server when
   * asked. With a shared state this instance drops only its copy, unless the session `ended`
   * (DELETE): then its record and events go and the other instances drop theirs.
   */
  private endSession(id: string, closeServer = false, ended = false): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    if (session.counted) this.sessionsPerClient.release(session.client);
    const relay = this.relay;
    if (!relay || ended) void session.events?.purge().catch(() => undefined);
    if (relay && ended) {
      void relay.state.sessions.delete(id).catch(() => undefined);
      void relay.ended(id).catch(() => undefined);
    }
    if (closeServer) void session.server.close().catch(() => undefined);
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
    this.unregister?.();
    const sessions = [...this.sessions.values()];
    for (const id of [...this.sessions.keys()]) this.endSession(id);
    await Promise.allSettled(sessions.map((s) => s.server.close()));
  }
}
