import { randomUUID } from 'node:crypto';
import {
  type EventStore,
  isInitializeRequest,
  type McpServer as SdkMcpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { Caller } from './http-caller.js';
import type { DEFAULT_HTTP_LIMITS } from './http-limits.js';
import { isBatch, messagesOf, type ParsedBody } from './http-messages.js';
import { jsonRpcErrorResponse } from './json-rpc-error-response.js';
import { PerClientCounter } from './per-client-counter.js';
import { SessionEventStore } from './session-event-store.js';
import { idKey, type Session, SessionTransport } from './session-transport.js';

const SESSION_NOT_FOUND = 'Session not found';

/**
 * The 2025-11-25 half of the HTTP endpoint: sessions kept here (the SDK keeps none), routed by
 * `Mcp-Session-Id`, owned by whoever opened them, within the total and per-client caps, each with its
 * own view of the event store, evicted when idle or never initialized, and purged when they end.
 */
export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly sessionsPerClient: PerClientCounter;

  /** @param factory builds the SDK server of one session (tracked for change notifications). */
  constructor(
    private readonly factory: () => SdkMcpServer,
    private readonly limits: typeof DEFAULT_HTTP_LIMITS,
    private readonly eventStore: EventStore | undefined,
    private readonly retryInterval: number | undefined,
  ) {
    this.sessionsPerClient = new PerClientCounter(limits.maxSessionsPerClient);
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
    const sessionId = request.headers.get('mcp-session-id');
    const options = { ...(caller.principal ? { authInfo: caller.principal } : {}), ...(parsed ? { parsedBody: parsed.value } : {}) };
    if (sessionId) {
      const session = this.sessions.get(sessionId);
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
      if (request.method === 'GET') {
        const replay = await this.refusedReplay(request, session);
        if (replay) return replay;
      }
      const refused = this.admitMessages(session, parsed);
      if (refused) return refused;
      return session.transport.handleRequest(this.withSessionVersion(request, session), options);
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
    const server = this.factory();
    const events = this.eventStore ? new SessionEventStore(this.eventStore, sessionId) : undefined;
    const transport = new SessionTransport({
      sessionIdGenerator: () => sessionId,
      ...(events ? { eventStore: events } : {}),
      ...(this.retryInterval !== undefined ? { retryInterval: this.retryInterval } : {}),
      onsessionclosed: (closedId) => this.endSession(closedId),
    });
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
    });
    transport.onclose = () => this.endSession(sessionId);
    await server.connect(transport);
    const response = await transport.handleRequest(request, { ...options, parsedBody: body });
    if (transport.sessionId === undefined) this.endSession(sessionId, true);
    return response;
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
    }
    for (const key of fresh) session.transport.inFlight.add(key);
    return undefined;
  }

  /** Forgets a session and what it held (its client's slot, its events); closes its server when asked. */
  private endSession(id: string, closeServer = false): void {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    this.sessionsPerClient.release(session.client);
    void session.events?.purge().catch(() => undefined);
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
    const sessions = [...this.sessions.values()];
    for (const id of [...this.sessions.keys()]) this.endSession(id);
    await Promise.allSettled(sessions.map((s) => s.server.close()));
  }
}
