import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import type { McpApp } from '../../src/index.js';

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** The official v2 client over the SDK's in-memory transport (2025-11-25, like a stdio pipe). */
export async function connectInMemory(app: McpApp, capabilities: Record<string, unknown> = {}): Promise<Connected> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = app.createServer();
  await server.connect(serverTransport);
  const client = new Client({ name: 'armature-test', version: '1.0.0' }, { capabilities });
  await client.connect(clientTransport);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** `app` ready (its remote servers connected) with the official client connected in memory; `close` closes both. */
export async function readyInMemory(app: McpApp): Promise<Connected> {
  await app.ready();
  const connected = await connectInMemory(app);
  return {
    client: connected.client,
    async close() {
      await connected.close();
      await app.close();
    },
  };
}

/**
 * The official v2 client over Streamable HTTP to the app listening on 127.0.0.1 (a free port).
 * `modern` negotiates 2026-07-28; otherwise the client speaks 2025-11-25 with a session.
 */
export async function connectHttp(
  app: McpApp,
  options: { modern: boolean; capabilities?: Record<string, unknown> },
): Promise<Connected & { url: string }> {
  const listener = await app.listenHttp({ port: 0 });
  const transport = new StreamableHTTPClientTransport(new URL(listener.url));
  const client = new Client(
    { name: 'armature-test', version: '1.0.0' },
    { capabilities: options.capabilities ?? {}, ...(options.modern ? { versionNegotiation: { mode: 'auto' as const } } : {}) },
  );
  await client.connect(transport);
  return {
    client,
    url: listener.url,
    async close() {
      await client.close().catch(() => undefined);
      await listener.close();
    },
  };
}

/** The v1 client (`@modelcontextprotocol/sdk` 1.32.2) over HTTP to a listening URL. */
export async function connectV1Http(url: string): Promise<{ client: V1Client; close(): Promise<void> }> {
  const { StreamableHTTPClientTransport: V1Transport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new V1Client({ name: 'armature-v1-test', version: '1.0.0' });
  await client.connect(new V1Transport(new URL(url)));
  return { client, close: () => client.close() };
}
