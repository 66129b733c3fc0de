// A raw 2025-11-25 sessionful client: node:http with a keep-alive pool of N connections, one
// session (initialize, notifications/initialized, then every call with its Mcp-Session-Id), each
// answer read from its JSON body or its SSE stream by hand. No SDK on the client side, so the client
// is not the bottleneck.
import { Agent, request } from 'node:http';

const VERSION = '2025-11-25';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

interface JsonRpcAnswer {
  id?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

export class HttpSessionClient {
  private readonly agent: Agent;
  private nextId = 1;

  private constructor(
    private readonly url: URL,
    connections: number,
    private sessionId = '',
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: connections });
  }

  /** Opens the session: initialize, then notifications/initialized. */
  static async open(url: string, connections: number): Promise<HttpSessionClient> {
    const client = new HttpSessionClient(new URL(url), connections);
    const init = await client.post({
      jsonrpc: '2.0',
      id: client.nextId++,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'armature-bench', version: '1.0.0' } },
    });
    const id = init.headers['mcp-session-id'];
    if (init.status !== 200 || typeof id !== 'string') throw new Error(`initialize: HTTP ${init.status}, no Mcp-Session-Id: ${init.text}`);
    client.sessionId = id;
    readAnswer(init, 1);
    const initialized = await client.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (initialized.status !== 202) throw new Error(`notifications/initialized: HTTP ${initialized.status}: ${initialized.text}`);
    return client;
  }

  /** One tools/call; resolves with its `result`, rejects on a JSON-RPC error or a non-200 status. */
  async callTool(name: string, args: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    const answer = await this.post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    return readAnswer(answer, id);
  }

  /** Ends the session (DELETE) and the connections. */
  async close(): Promise<void> {
    await this.send('DELETE', undefined).catch(() => undefined);
    this.agent.destroy();
  }

  private post(message: Record<string, unknown>): Promise<Answer> {
    return this.send('POST', JSON.stringify(message));
  }

  private send(method: 'POST' | 'DELETE', body: string | undefined, mayRetry = true): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request(
        this.url,
        {
          method,
          agent: this.agent,
          headers: {
            accept: 'application/json, text/event-stream',
            'content-type': 'application/json',
            'content-length': body === undefined ? 0 : Buffer.byteLength(body),
            ...(this.sessionId ? { 'mcp-session-id': this.sessionId, 'mcp-protocol-version': VERSION } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
          res.on('error', reject);
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the server closed as it went idle: send again on a fresh socket.
        if (mayRetry && req.reusedSocket && (error.code === 'ECONNRESET' || error.message === 'socket hang up')) {
          this.send(method, body, false).then(resolve, reject);
        } else reject(error);
      });
      req.end(body);
    });
  }
}

/** The `result` of the answer to request `id`, from a JSON body or the `data:` lines of an SSE stream. */
function readAnswer(answer: Answer, id: number): unknown {
  if (answer.status !== 200) throw new Error(`HTTP ${answer.status}: ${answer.text}`);
  const sse = String(answer.headers['content-type']).includes('text/event-stream');
  const messages = sse
    ? answer.text
        .split('\n')
        .filter((line) => line.startsWith('data: ') && line.length > 6)
        .map((line) => JSON.parse(line.slice(6)) as JsonRpcAnswer)
    : [JSON.parse(answer.text) as JsonRpcAnswer];
  const message = messages.find((m) => m.id === id);
  if (!message) throw new Error(`no answer to request ${id} in: ${answer.text}`);
  if (message.error) throw new Error(`${message.error.code} ${message.error.message}`);
  return message.result;
}
