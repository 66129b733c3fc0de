// JSON-RPC straight into a server's in-memory transport (`InMemoryTransport.createLinkedPair()`,
// 2025-11-25): no client-side validation or parsing, so a figure is the server's own cost per
// request (plus the transport's hand-off).
import { InMemoryTransport, type JSONRPCMessage, type McpServer as SdkMcpServer } from '@modelcontextprotocol/server';
import { PROTOCOL_VERSION } from './stdio-child.js';

const CLIENT_INFO = { name: 'armature-bench', version: '1.0.0' };

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
    await raw.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
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
