import { randomUUID } from 'node:crypto';
import {
  type AuthInfo,
  createMcpHandler,
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  type EventStore,
  hostHeaderValidationResponse,
  isInitializeRequest,
  isJsonContentType,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  type McpServer as SdkMcpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { type AuthOptions, BearerAuth } from '../auth/bearer-auth.js';
import { DEFAULT_MESSAGE_LIMITS, type MessageLimits, prescanJson } from '../validation/json-prescan.js';
import { InMemoryEventStore } from './in-memory-event-store.js';

export interface HttpEndpointOptions {
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
  /** A 2025-11-25 session idle for this long is closed. Default 30 minutes. */
  sessionIdleTimeoutMs?: number;
  /**
   * Resumable SSE streams for 2025-11-25 sessions (clients reconnect with `Last-Event-ID`):
   * `true` keeps events in memory (`InMemoryEventStore`), or pass your own store. Default off.
   */
  eventStore?: EventStore | boolean;
  /** The `retry` hint (ms) sent on resumable SSE streams. */
  retryIntervalMs?: number;
  /** OAuth 2.1 resource-server protection (bearer tokens, metadata, scopes). Default: none. */
  auth?: AuthOptions;
  /** Nesting and size limits checked on each body before it is parsed. */
  messageLimits?: MessageLimits;
}

/** Scopes one JSON-RPC request needs (from `@RequireScopes`), given by the app. */
export type ScopeRequirement = (method: string, params: Record<string, unknown> | undefined) => readonly string[];

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: SdkMcpServer;
  /** Who opened the session (with auth on): another caller may not use it. */
  readonly owner?: string;
  lastSeen: number;
}

function ownerOf(principal: AuthInfo | undefined): string | undefined {
  if (!principal) return undefined;
  return `${principal.clientId}\u0000${String((principal.extra as { sub?: unknown } | undefined)?.sub ?? '')}`;
}

/** A request body already parsed by the endpoint (wrapped, since `null` is a valid JSON body). */
interface ParsedBody {
  readonly value: unknown;
}

/** True when a POST body is a JSON array (a batch), read from a clone so the body stays readable. */
async function isBatch(request: Request): Promise<boolean> {
  const text = await request.clone().text();
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    return c === 0x5b; // '['
  }
  return false;
}

function jsonError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * One MCP endpoint serving both protocol revisions: 2026-07-28 requests go to the SDK's stateless
 * per-request handler, 2025-11-25 traffic to sessions kept here (the SDK keeps none). Host and
 * Origin are checked in front of both, before any server or session is created.
 */
export class HttpEndpoint {
  private readonly sessions = new Map<string, Session>();
  private readonly modern;
  private readonly maxBody: number;
  private readonly allowedHosts: string[] | false;
  private readonly allowedOrigins: string[] | false;
  private readonly idleMs: number;
  private readonly eventStore?: EventStore;
  private readonly retryInterval?: number;
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;
  private sweeperStopped = false;
  private readonly auth?: BearerAuth;
  private readonly messageLimits: Readonly<Required<MessageLimits>>;

  /**
   * @param factory builds a fresh SDK server; `track` is true for a 2025-11-25 session (kept and
   *   notified of changes) and false for a single 2026-07-28 request.
   */
  constructor(
    private readonly factory: (track: boolean) => SdkMcpServer,
    options: HttpEndpointOptions = {},
    private readonly scopesFor?: ScopeRequirement,
  ) {
    if (options.auth) this.auth = new BearerAuth(options.auth);
    this.messageLimits = { ...DEFAULT_MESSAGE_LIMITS, ...options.messageLimits };
    this.maxBody = options.maxRequestBodySize ?? DEFAULT_MAX_REQUEST_BODY_SIZE;
    this.allowedHosts = options.allowedHosts ?? localhostAllowedHostnames();
    this.allowedOrigins = options.allowedOrigins ?? localhostAllowedOrigins();
    this.idleMs = options.sessionIdleTimeoutMs ?? 30 * 60_000;
    this.eventStore = options.eventStore === true ? new InMemoryEventStore() : options.eventStore || undefined;
    this.retryInterval = options.retryIntervalMs;
    this.modern = createMcpHandler(() => factory(false), { legacy: 'reject', maxRequestBodySize: this.maxBody });
    this.sweeper = setInterval(() => this.evictIdle(), Math.min(60_000, Math.max(1_000, this.idleMs / 2)));
    this.sweeper.unref();
  }

  /** Publishes change notifications to this endpoint's 2026-07-28 `subscriptions/listen` streams. */
  get notifier() {
    return this.modern.notify;
  }

  /** Number of open 2025-11-25 sessions. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Web-standard face: one HTTP request in, one response out. */
  readonly fetch = async (request: Request): Promise<Response> => {
    if (this.closed) return jsonError(503, -32000, 'Service Unavailable: the server is shutting down');
    const rejected =
      (this.allowedHosts && hostHeaderValidationResponse(request, this.allowedHosts)) ||
      (this.allowedOrigins && originValidationResponse(request, this.allowedOrigins));
    if (rejected) return rejected;
    const metadata = this.auth?.serveMetadata(request);
    if (metadata) return metadata;
    const length = Number(request.headers.get('content-length') ?? 0);
    if (length > this.maxBody) {
      return jsonError(413, -32000, `Payload Too Large: Request body must not exceed ${this.maxBody} bytes`);
    }
    // A JSON POST body is read and parsed here once and handed on as `parsedBody`: the SDK's era
    // classifier and transports would otherwise each parse it again. A nesting or size bomb is
    // refused before anything parses it.
    let body: ParsedBody | undefined;
    if (request.method === 'POST') {
      const text = await request.clone().text();
      const scan = prescanJson(text, this.messageLimits);
      if (scan.problem) {
        return new Response(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: `Invalid Request: ${scan.problem}` }, id: scan.id ?? null }),
          {
            status: 400,
            headers: { 'content-type': 'application/json' },
          },
        );
      }
      // Bodies that are not JSON (or not sent as JSON) are left for the SDK to refuse (-32700, 415).
      if (isJsonContentType(request.headers.get('content-type') ?? '')) {
        try {
          body = { value: JSON.parse(text) as unknown };
        } catch {
          body = undefined;
        }
      }
    }
    let principal: AuthInfo | undefined;
    if (this.auth) {
      // Before anything else is allocated: a refused request creates no session and no server.
      const outcome = await this.auth.authenticate(request);
      if ('response' in outcome) return outcome.response;
      // MCP authorization forbids passing the token through: handlers see who, not the token.
      principal = { ...outcome.principal, token: 'redacted' };
      const stepUp = this.missingScopes(body, outcome.principal);
      if (stepUp) return this.auth.insufficientScope(stepUp);
    }
    if (await isLegacyRequest(request, body?.value, { maxRequestBodySize: this.maxBody }))
      return this.serveLegacy(request, principal, body);
    return this.modern.fetch(request, {
      ...(principal ? { authInfo: principal } : {}),
      ...(body ? { parsedBody: body.value } : {}),
    });
  };

  /** The scopes a POSTed call needs when the token lacks some of them (403 insufficient_scope). */
  private missingScopes(body: ParsedBody | undefined, principal: AuthInfo): readonly string[] | undefined {
    if (!this.scopesFor || !body) return undefined;
    for (const message of Array.isArray(body.value) ? body.value : [body.value]) {
      const { method, params } = (message ?? {}) as { method?: unknown; params?: Record<string, unknown> };
      if (typeof method !== 'string') continue;
      const needed = this.scopesFor(method, params);
      if (needed.some((scope) => !principal.scopes.includes(scope))) return needed;
    }
    return undefined;
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
  private async serveLegacy(request: Request, principal: AuthInfo | undefined, parsed: ParsedBody | undefined): Promise<Response> {
    const sessionId = request.headers.get('mcp-session-id');
    const options = { ...(principal ? { authInfo: principal } : {}), ...(parsed ? { parsedBody: parsed.value } : {}) };
    if (sessionId) {
      const session = this.sessions.get(sessionId);
      // A session belongs to whoever opened it: someone else presenting its id is told it does not exist.
      if (!session || session.owner !== ownerOf(principal)) return jsonError(404, -32001, 'Session not found');
      session.lastSeen = Date.now();
      if (request.method === 'POST' && (parsed ? Array.isArray(parsed.value) : await isBatch(request))) {
        const version = request.headers.get('mcp-protocol-version') ?? session.server.server.getNegotiatedProtocolVersion() ?? '';
        // JSON-RPC batches were part of 2025-03-26 only; 2025-06-18 and later removed them.
        if (version >= '2025-06-18') {
          return jsonError(
            400,
            -32600,
            `Invalid Request: JSON-RPC batches are not supported on protocol revision ${version}; send one message per request`,
          );
        }
      }
      return session.transport.handleRequest(this.withSessionVersion(request, session), options);
    }
    if (request.method !== 'POST') {
      return jsonError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    let body: unknown;
    if (parsed) body = parsed.value;
    else {
      try {
        body = await request.clone().json();
      } catch {
        return jsonError(400, -32700, 'Parse error: Invalid JSON');
      }
    }
    if (Array.isArray(body)) return jsonError(400, -32600, 'Invalid Request: initialize must not be part of a JSON-RPC batch');
    const initializing = isInitializeRequest(body);
    if (!initializing)
      return jsonError(400, -32000, 'Bad Request: Server not initialized (send initialize first, or the Mcp-Session-Id header)');

    const server = this.factory(true);
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      ...(this.eventStore ? { eventStore: this.eventStore } : {}),
      ...(this.retryInterval !== undefined ? { retryInterval: this.retryInterval } : {}),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server, owner: ownerOf(principal), lastSeen: Date.now() });
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(request, { ...options, parsedBody: body });
  }

  private evictIdle(): void {
    const cutoff = Date.now() - this.idleMs;
    for (const [id, session] of this.sessions) {
      if (session.lastSeen < cutoff) {
        this.sessions.delete(id);
        void session.server.close().catch(() => undefined);
      }
    }
  }

  /** New requests get 503 from now on; open sessions keep their in-flight calls. */
  stopAccepting(): void {
    this.closed = true;
  }

  get accepting(): boolean {
    return !this.closed;
  }

  /** Closes every session and the stateless handler. */
  async close(): Promise<void> {
    if (this.sweeperStopped) return;
    this.sweeperStopped = true;
    this.closed = true;
    clearInterval(this.sweeper);
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((s) => s.server.close()));
    await this.modern.close();
  }
}
