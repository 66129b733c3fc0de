/**
 * An HTTP -> stdio bridge, so that the conformance suite (which speaks Streamable HTTP only) can
 * test the server's stdio transport. One child process per MCP session: an `initialize` POST
 * starts `command`; later requests with that `Mcp-Session-Id` are relayed to it, message by message.
 *
 * The HTTP side is the SDK's own `WebStandardStreamableHTTPServerTransport` (one per session, no
 * MCP server behind it: its `onmessage` writes to the child's stdin). The child side is a plain
 * newline-delimited JSON-RPC pipe. Server -> client messages go to the POST stream of the request
 * they belong to: progress by its token, anything else (log messages, elicitation/sampling
 * requests) to the only request in flight when there is exactly one, else to the GET stream.
 * The conformance client never sends DELETE, so only the newest `maxSessions` sessions are kept.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  hostHeaderValidationResponse,
  isInitializeRequest,
  type JSONRPCMessage,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

export interface StdioBridgeOptions {
  /** The server command: executable and arguments (no shell). */
  command: readonly [string, ...string[]];
  /** Sessions kept (oldest closed first). Default 4. */
  maxSessions?: number;
  /**
   * Children started ahead of need, so that their start-up overlaps the sessions before them
   * (the suite opens a new session per scenario). Default 2; 0 starts each child on demand.
   */
  spares?: number;
  /** Where the children's stderr goes (one line at a time). Default: kept in `log`. */
  onStderr?: (line: string) => void;
}

export interface StdioBridge {
  readonly url: string;
  /** Children started so far. */
  readonly spawned: number;
  /** The last lines the children wrote to stderr (for failure messages). */
  readonly log: readonly string[];
  close(): Promise<void>;
}

/** A child MCP server on stdio: newline-delimited JSON-RPC both ways. */
class StdioChild {
  readonly process: ChildProcess;
  readonly exited: Promise<void>;
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;

  constructor(command: readonly [string, ...string[]], onStderr: (line: string) => void) {
    const [file, ...args] = command;
    this.process = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.process.once('exit', () => resolve()));
    this.process.once('exit', () => this.onclose?.());
    this.process.once('error', (error) => onStderr(`spawn failed: ${error.message}`));
    this.process.stdin?.on('error', () => undefined); // EPIPE after the child exits
    createInterface({ input: this.process.stderr! }).on('line', onStderr);
    createInterface({ input: this.process.stdout! }).on('line', (line) => {
      if (line.trim() === '') return;
      let message: JSONRPCMessage;
      try {
        message = JSON.parse(line) as JSONRPCMessage;
      } catch {
        onStderr(`[bridge] the child wrote a non-JSON line to stdout: ${line.slice(0, 200)}`);
        return;
      }
      this.onmessage?.(message);
    });
  }

  send(message: JSONRPCMessage): void {
    if (this.process.exitCode === null && this.process.stdin?.writable) this.process.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Closes stdin (a stdio server exits on EOF); SIGKILL if it is still there after `graceMs`. */
  async stop(graceMs = 2000): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.process.stdin?.end();
    const timer = setTimeout(() => this.process.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

interface Session {
  readonly child: StdioChild;
  readonly http: WebStandardStreamableHTTPServerTransport;
  closed: boolean;
}

type Id = string | number;

function jsonError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });
}

function isRequest(message: JSONRPCMessage): message is JSONRPCMessage & { id: Id; method: string; params?: Record<string, unknown> } {
  return 'method' in message && 'id' in message;
}

function isResponse(message: JSONRPCMessage): message is JSONRPCMessage & { id: Id } {
  return !('method' in message) && 'id' in message;
}

export async function startStdioBridge(options: StdioBridgeOptions): Promise<StdioBridge> {
  const maxSessions = options.maxSessions ?? 4;
  const spareCount = options.spares ?? 2;
  const log: string[] = [];
  const onStderr =
    options.onStderr ??
    ((line: string) => {
      log.push(line);
      if (log.length > 200) log.shift();
    });
  const sessions = new Map<string, Session>();
  const children = new Set<StdioChild>();
  let spawned = 0;
  const spares: StdioChild[] = [];
  let closing = false;

  const spawnChild = () => {
    const child = new StdioChild(options.command, onStderr);
    spawned++;
    children.add(child);
    void child.exited.then(() => children.delete(child));
    return child;
  };
  const refill = () => {
    while (!closing && spares.length < spareCount) spares.push(spawnChild());
  };
  const takeChild = () => {
    let child = spares.shift();
    while (child && (child.process.exitCode !== null || child.process.signalCode !== null)) child = spares.shift();
    child ??= spawnChild();
    refill();
    return child;
  };

  const closeSession = (session: Session) => {
    if (session.closed) return;
    session.closed = true;
    for (const [id, s] of sessions) if (s === session) sessions.delete(id);
    void session.http.close().catch(() => undefined);
    void session.child.stop();
  };

  const openSession = (): Session => {
    const child = takeChild();
    const inflight = new Set<Id>(); // client -> server requests awaiting their response
    const tokens = new Map<unknown, Id>(); // progressToken -> request id
    const http: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, session);
        while (sessions.size > maxSessions) {
          const [, oldest] = sessions.entries().next().value as [string, Session];
          closeSession(oldest);
        }
      },
      onsessionclosed: () => closeSession(session),
    });
    const session: Session = { child, http, closed: false };

    http.onmessage = (message) => {
      if (isRequest(message)) {
        inflight.add(message.id);
        const token = (message.params?._meta as Record<string, unknown> | undefined)?.progressToken;
        if (token !== undefined) tokens.set(token, message.id);
      }
      child.send(message);
    };
    child.onmessage = (message) => {
      if (isResponse(message)) {
        inflight.delete(message.id);
        for (const [token, id] of tokens) if (id === message.id) tokens.delete(token);
        http.send(message).catch((error: Error) => onStderr(`[bridge] response ${message.id} undeliverable: ${error.message}`));
        return;
      }
      let related: Id | undefined;
      const params = (message as { params?: Record<string, unknown> }).params;
      if ('method' in message && message.method === 'notifications/progress') related = tokens.get(params?.progressToken);
      else if (inflight.size === 1) related = [...inflight][0];
      http
        .send(message, related !== undefined ? { relatedRequestId: related } : undefined)
        .catch((error: Error) => onStderr(`[bridge] ${'method' in message ? message.method : 'message'} undeliverable: ${error.message}`));
    };
    child.onclose = () => closeSession(session);
    http.onclose = () => closeSession(session);
    return session;
  };

  const allowedHosts = localhostAllowedHostnames();
  const allowedOrigins = localhostAllowedOrigins();
  const fetch = async (request: Request): Promise<Response> => {
    const rejected = hostHeaderValidationResponse(request, allowedHosts) || originValidationResponse(request, allowedOrigins);
    if (rejected) return rejected;
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      return session ? session.http.handleRequest(request) : jsonError(404, -32001, 'Session not found');
    }
    if (request.method !== 'POST') return jsonError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    let body: unknown;
    try {
      body = await request.clone().json();
    } catch {
      return jsonError(400, -32700, 'Parse error: Invalid JSON');
    }
    const initializing = Array.isArray(body) ? body.some((m) => isInitializeRequest(m)) : isInitializeRequest(body);
    if (!initializing) return jsonError(400, -32000, 'Bad Request: send initialize first, or the Mcp-Session-Id header');
    const session = openSession();
    await session.http.start();
    const response = await session.http.handleRequest(request, { parsedBody: body });
    if (!session.http.sessionId) closeSession(session); // initialize was rejected
    return response;
  };

  const handler = toNodeHandler({ fetch });
  const server: Server = createServer((req, res) => {
    if ((req.url ?? '/').split('?')[0] !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    handler(req, res).catch((error: Error) => {
      onStderr(`[bridge] request failed: ${error.stack ?? error.message}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  refill();
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    get spawned() {
      return spawned;
    },
    log,
    async close() {
      closing = true;
      for (const session of [...sessions.values()]) closeSession(session);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...children].map((child) => child.stop()));
    },
  };
}
