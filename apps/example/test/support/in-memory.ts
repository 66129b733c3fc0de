import type { McpApp } from '@armature/core';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { recordTraffic, type Traffic } from './traffic.js';

export interface InMemoryConnection {
  client: Client;
  traffic: Traffic;
  close(): Promise<void>;
}

/**
 * The official v2 client connected to `app` over the SDK's in-memory transport (protocol
 * 2025-11-25, like a stdio pipe, without a process). One fresh SDK server per connection.
 */
export async function connectInMemory(app: McpApp): Promise<InMemoryConnection> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = app.createServer();
  await server.connect(serverTransport);
  const client = new Client({ name: 'armature-example-test', version: '1.0.0' });
  await client.connect(clientTransport);
  return {
    client,
    traffic: recordTraffic(clientTransport),
    async close() {
      await client.close();
      await server.close();
    },
  };
}
