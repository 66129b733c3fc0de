import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** One upstream behind the proxy: a name (for assertions) and its URL. */
export interface Instance {
  readonly name: string;
  readonly url: URL;
}

/** Which instance a request went to, as the proxy saw it. */
export interface Routed {
  readonly method: string;
  readonly instance: string;
  readonly body: string;
  /** The request's Last-Event-ID, if any. */
  readonly lastEventId?: string;
  /** The answer's status, once it came. */
  status?: number;
}

/**
 * A strictly alternating round-robin HTTP proxy on 127.0.0.1: request n goes to instance
 * n mod N. An instance that refuses the connection (killed) is skipped from then on, as a load
 * balancer's health check would. Responses (SSE streams included) are piped through as they come.
 */
export class RoundRobinProxy {
  readonly routed: Routed[] = [];
  private next = 0;
  private readonly down = new Set<Instance>();
  private readonly server: Server;
  private readonly open = new Set<IncomingMessage>();

  private constructor(private readonly instances: Instance[]) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => this.forward(req, Buffer.concat(chunks), res, this.instances.length));
    });
  }

  static async start(instances: Instance[]): Promise<RoundRobinProxy & { url: URL }> {
    const proxy = new RoundRobinProxy(instances);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return Object.assign(proxy, { url: new URL(`http://127.0.0.1:${(proxy.server.address() as { port: number }).port}/mcp`) });
  }

  private forward(req: IncomingMessage, body: Buffer, res: ServerResponse, attempts: number): void {
    let instance = this.instances[this.next++ % this.instances.length] as Instance;
    // Instances found down are skipped, as a load balancer's health check would.
    while (this.down.has(instance) && this.down.size < this.instances.length)
      instance = this.instances[this.next++ % this.instances.length] as Instance;
    const lastEventId = req.headers['last-event-id'];
    const routed: Routed = {
      method: req.method ?? '',
      instance: instance.name,
      body: body.toString(),
      ...(typeof lastEventId === 'string' ? { lastEventId } : {}),
    };
    this.routed.push(routed);
    const upstream = httpRequest(
      {
        host: instance.url.hostname,
        port: instance.url.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: instance.url.host },
      },
      (answer) => {
        routed.status = answer.statusCode;
        this.open.add(answer);
        answer.once('close', () => this.open.delete(answer));
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        // A killed instance ends its streams abruptly: the client must see the stream break.
        answer.once('aborted', () => res.destroy());
        answer.once('error', () => res.destroy());
      },
    );
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED') this.down.add(instance);
      if (error.code === 'ECONNREFUSED' && attempts > 1) {
        this.routed.splice(this.routed.indexOf(routed), 1);
        return this.forward(req, body, res, attempts - 1);
      }
      if (!res.headersSent) res.writeHead(502).end(`proxy: ${error.message}`);
      else res.destroy();
    });
    res.once('close', () => upstream.destroy());
    upstream.end(body);
  }

  /** The instances that served the requests whose body contains `text`, in order. */
  servedBy(text: string): string[] {
    return this.routed.filter((r) => r.body.includes(text)).map((r) => r.instance);
  }

  async close(): Promise<void> {
    for (const stream of this.open) stream.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
