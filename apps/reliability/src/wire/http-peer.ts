// Raw HTTP on node:http: exact headers and bytes, a keep-alive agent, and the JSON-RPC messages
// of a response read from either a JSON body or an SSE stream.
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { callRequest, INITIALIZED, initializeRequest, type JsonRpcMessage, PROTOCOL_2025 } from './jsonrpc.js';

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The JSON-RPC messages in the body (JSON object, JSON array or SSE `data:` lines). */
  messages: JsonRpcMessage[];
  /** The body could not be read as JSON-RPC (not JSON, or SSE data that is not JSON). */
  unparsable: boolean;
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export function parseBody(contentType: string | undefined, text: string): { messages: JsonRpcMessage[]; unparsable: boolean } {
  if (text.length === 0) return { messages: [], unparsable: false };
  const messages: JsonRpcMessage[] = [];
  try {
    if (contentType?.includes('text/event-stream')) {
      for (const line of text.split('\n')) {
        if (!line.startsWith('data:')) continue;
        const data = line.slice(5).trim();
        if (data !== '') messages.push(JSON.parse(data));
      }
    } else {
      const value = JSON.parse(text);
      if (Array.isArray(value)) messages.push(...value);
      else messages.push(value);
    }
    return { messages, unparsable: false };
  } catch {
    return { messages, unparsable: true };
  }
}

export class HttpClient {
  readonly agent: Agent;
  private readonly target: URL;

  constructor(
    readonly url: string,
    maxSockets = 64,
  ) {
    this.target = new URL(url);
    // Idle sockets are dropped after 2 s, before the server's 5 s keep-alive timeout can close one
    // under a request (the classic keep-alive race, which would look like a lost call).
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'fifo', timeout: 2_000 });
  }

  /** One request; the answer is read to the end (bounded by `timeoutMs`). */
  send(
    options: {
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      path?: string;
      timeoutMs?: number;
      /** An already connected socket to send this one request on (see `preconnect`). */
      socket?: Socket;
    } = {},
  ): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: this.target.hostname,
          port: this.target.port,
          path: options.path ?? this.target.pathname,
          method: options.method ?? 'POST',
          // A preconnected socket carries exactly one request: `Connection: close`, so neither side
          // keeps it open afterwards (an open keep-alive connection holds server memory).
          headers: options.socket ? { ...options.headers, connection: 'close' } : (options.headers ?? {}),
          // No `agent` key at all with createConnection: `agent: false` would make a fresh Agent,
          // which opens its own connection and ignores createConnection.
          ...(options.socket ? { createConnection: () => options.socket as Socket } : { agent: this.agent }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            options.socket?.destroy();
            const text = Buffer.concat(chunks).toString('utf8');
            const parsed = parseBody(res.headers['content-type'], text);
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, ...parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.setTimeout(options.timeoutMs ?? 30_000, () =>
        req.destroy(new Error(`HTTP request timed out after ${options.timeoutMs ?? 30_000} ms`)),
      );
      req.end(options.body);
    });
  }

  post(message: unknown, headers: Record<string, string> = {}, timeoutMs?: number): Promise<HttpAnswer> {
    return this.send({ headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(message), timeoutMs });
  }

  /** Opens a 2025-11-25 session (initialize + notifications/initialized); returns its id. */
  async openSession(): Promise<string> {
    const answer = await this.post(initializeRequest(0));
    const id = answer.headers['mcp-session-id'];
    if (answer.status !== 200 || typeof id !== 'string') {
      throw new Error(`initialize failed: HTTP ${answer.status} ${answer.text.slice(0, 300)}`);
    }
    const initialized = await this.post(INITIALIZED, sessionHeaders(id));
    if (initialized.status !== 202) throw new Error(`notifications/initialized got HTTP ${initialized.status}`);
    return id;
  }

  /** A tools/call on a session; resolves with the HTTP answer. */
  call(sessionId: string, id: string | number, name: string, args: unknown, timeoutMs?: number, socket?: Socket): Promise<HttpAnswer> {
    return this.send({
      headers: { ...JSON_HEADERS, ...sessionHeaders(sessionId) },
      body: JSON.stringify(callRequest(id, name, args)),
      timeoutMs,
      socket,
    });
  }

  async closeSession(sessionId: string): Promise<void> {
    await this.send({ method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_2025 } }).catch(
      () => undefined,
    );
  }

  destroy(): void {
    this.agent.destroy();
  }
}

/**
 * Opens `count` TCP connections to the server, at most `parallel` connecting at a time, so that a
 * burst of requests can then be sent on all of them at once without a SYN storm against the
 * listen backlog (which would measure the kernel, not the server).
 */
export async function preconnect(url: string, count: number, parallel = 200): Promise<Socket[]> {
  const target = new URL(url);
  const sockets: Socket[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      sockets.push(
        await new Promise<Socket>((resolve, reject) => {
          const socket = connect({ host: target.hostname, port: Number(target.port) }, () => {
            socket.off('error', reject);
            resolve(socket);
          });
          socket.once('error', reject);
        }),
      );
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  } catch (error) {
    for (const socket of sockets) socket.destroy();
    throw error;
  }
  return sockets;
}

export function sessionHeaders(sessionId: string): Record<string, string> {
  return { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_2025 };
}

export function modernHeaders(method: string, name?: string): Record<string, string> {
  return { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) };
}
