// How each side is reached: the official v2 client in memory and over HTTP, a raw JSON-RPC driver
// (no client at all) for the server-only figure, and the two bare-SDK HTTP servers.
import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, InMemoryTransport, type JSONRPCMessage, type McpServer as SdkMcpServer } from '@modelcontextprotocol/server';

export interface Connection {
  readonly client: Client;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'armature-bench', version: '1.0.0' };

/** The official v2 client over `InMemoryTransport.createLinkedPair()` (2025-11-25). */
export async function connectInMemory(server: SdkMcpServer): Promise<Connection> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  await client.connect(clientTransport);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/**
 * The client transport passes its transport-wide AbortSignal to every POST. undici (Node 20) adds an
 * abort listener to that signal per request and removes it only when the Request is garbage
 * collected, so listeners pile up with calls until a GC (MaxListenersExceededWarning past 1,500):
 * a client-side cost that grows fastest in whichever process collects least often. POSTs go
 * without it here, on both sides alike; the GET stream keeps it so close() still ends it.
 */
const fetchPostsWithoutSharedSignal: FetchLike = (url, init) => fetch(url, init?.method === 'POST' ? { ...init, signal: undefined } : init);

/** The official v2 client over Streamable HTTP: 2025-11-25 with a session, or 2026-07-28 (`modern`). */
export async function connectHttp(url: string, modern: boolean): Promise<Connection> {
  const client = new Client(CLIENT_INFO, { capabilities: {}, ...(modern ? { versionNegotiation: { mode: 'auto' as const } } : {}) });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: fetchPostsWithoutSharedSignal }));
  return { client, close: () => client.close().catch(() => undefined) };
}

/**
 * JSON-RPC straight into the server's in-memory transport: no client-side validation or parsing,
 * so the figure is the server's own cost per request (plus the transport's hand-off).
 */
export class RawConnection {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();

  private constructor(
    private readonly transport: InMemoryTransport,
    private readonly server: SdkMcpServer,
  ) {
    transport.onmessage = (message: JSONRPCMessage) => {
      const reply = message as { id?: number; result?: unknown; error?: { message: string } };
      if (typeof reply.id !== 'number') return;
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (reply.error) waiter.reject(new Error(reply.error.message));
      else waiter.resolve(reply.result);
    };
  }

  static async open(server: SdkMcpServer): Promise<RawConnection> {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const raw = new RawConnection(clientTransport, server);
    await clientTransport.start();
    await raw.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: CLIENT_INFO });
    await clientTransport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return raw;
  }

  request(method: string, params?: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.transport.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) } as JSONRPCMessage).catch(reject);
    });
  }

  async close(): Promise<void> {
    await this.transport.close();
    await this.server.close();
  }
}

export interface Listener {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(server: HttpServer, onClose: () => Promise<void>): Promise<Listener> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await onClose();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The bare SDK served for 2025-11-25 with sessions, the way the SDK documents it: one
 * `NodeStreamableHTTPServerTransport` + one McpServer per session, a session map keyed by
 * `Mcp-Session-Id`, on node:http.
 */
export function listenBareSessionful(build: () => SdkMcpServer): Promise<Listener> {
  const sessions = new Map<string, { transport: NodeStreamableHTTPServerTransport; server: SdkMcpServer }>();
  const http = createServer(async (req, res) => {
    try {
      const sessionId = req.headers['mcp-session-id'];
      if (typeof sessionId === 'string') {
        const session = sessions.get(sessionId);
        if (!session) {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
          return;
        }
        await session.transport.handleRequest(req, res);
        return;
      }
      const server = build();
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, server });
        },
        onsessionclosed: (id) => {
          sessions.delete(id);
        },
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  return listen(http, async () => {
    const open = [...sessions.values()];
    sessions.clear();
    await Promise.allSettled(open.map((s) => s.server.close()));
  });
}

/** The bare SDK served for 2026-07-28: `createMcpHandler(factory)` mounted with `toNodeHandler`. */
export function listenBareStateless(build: () => SdkMcpServer): Promise<Listener> {
  const handler = createMcpHandler(() => build());
  const node = toNodeHandler(handler);
  const http = createServer((req, res) => {
    void node(req, res);
  });
  return listen(http, () => handler.close());
}
