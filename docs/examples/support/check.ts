import { inspect, isDeepStrictEqual } from 'node:util';
import type { McpApp } from '@armature/core';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';

/** Throws unless `actual` deep-equals `expected`: what makes every example check itself. */
export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Error(`${what}:\n  expected ${inspect(expected, { depth: 12 })}\n  got      ${inspect(actual, { depth: 12 })}`);
  }
}

/** Plain JSON copy: results and schemas compared by value, whatever class built them. */
export function json<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export interface InMemoryConnection {
  client: Client;
  /** Every message the server sent, for checks such as "no response after a cancel". */
  sent: JSONRPCMessage[];
  close(): Promise<void>;
}

/** The official v2 client connected to a fresh server of `app` over the SDK's in-memory transport. */
export async function connectInMemory(app: McpApp): Promise<InMemoryConnection> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = serverTransport.send.bind(serverTransport);
  serverTransport.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  const server = app.createServer();
  await server.connect(serverTransport);
  const client = new Client({ name: 'docs-check', version: '1.0.0' });
  await client.connect(clientTransport);
  return {
    client,
    sent,
    async close() {
      await client.close();
      await server.close();
    },
  };
}
