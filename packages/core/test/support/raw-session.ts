import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import type { McpApp } from '../../src/index.js';

/** A 2025-11-25 session driven with raw JSON-RPC messages over the in-memory transport. */
export async function rawSession(app: McpApp) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.createServer().connect(serverSide);
  const received: JSONRPCMessage[] = [];
  const waiting = new Map<number, (m: JSONRPCMessage) => void>();
  clientSide.onmessage = (message) => {
    received.push(message);
    const id = (message as { id?: number }).id;
    if (id !== undefined && 'method' in message === false) waiting.get(id)?.(message);
  };
  await clientSide.start();
  let nextId = 1;
  const request = (method: string, params: Record<string, unknown> = {}) => {
    const id = nextId++;
    const answered = new Promise<JSONRPCMessage>((resolve) => waiting.set(id, resolve));
    void clientSide.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage);
    return answered as Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }>;
  };
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
  return { request, received, close: () => clientSide.close() };
}
