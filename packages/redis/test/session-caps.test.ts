import 'reflect-metadata';
import { createMcpApp, type HttpListener, type McpApp, McpServer, Tool } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisState } from '../src/index.js';

@McpServer({ name: 'capped', version: '1.0.0' })
class CappedServer {
  @Tool({ description: 'ping' })
  ping() {
    return 'pong';
  }
}

let redis: RedisServer;
const running: { app: McpApp; listener: HttpListener }[] = [];

beforeAll(async () => {
  redis = await RedisServer.start();
  for (let i = 0; i < 2; i++) {
    const app = createMcpApp(CappedServer, { state: redisState({ url: redis.url }), requestStateKey: 'k'.repeat(32) });
    // Each client is told apart by the address one trusted proxy reports.
    const listener = await app.listenHttp({
      port: 0,
      maxSessions: 3,
      maxSessionsPerClient: 2,
      maxListenStreamsPerClient: 1,
      trustProxy: 1,
    });
    running.push({ app, listener });
  }
});

afterAll(async () => {
  for (const { app, listener } of running) {
    await listener.close();
    await app.close();
  }
  await redis?.dispose();
});

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'capped', version: '1' } },
});

/** Opens a session on instance `on` for the client at `address`: its status and session id. */
async function open(on: number, address: string): Promise<{ status: number; session?: string }> {
  const response = await fetch((running[on] as { listener: HttpListener }).listener.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': address },
    body: INITIALIZE,
  });
  await response.text();
  return { status: response.status, session: response.headers.get('mcp-session-id') ?? undefined };
}

describe('session caps on the redis state', () => {
  it('count the sessions of every instance: in total and per client', async () => {
    const x1 = await open(0, '203.0.113.1');
    const x2 = await open(1, '203.0.113.1');
    expect([x1.status, x2.status]).toEqual([200, 200]);
    // The client holds two sessions, one on each instance: a third is refused on either.
    expect((await open(0, '203.0.113.1')).status).toBe(429);
    expect((await open(1, '203.0.113.2')).status).toBe(200);
    // Three sessions in all (maxSessions): another client is refused too, on the instance holding one.
    expect((await open(0, '203.0.113.3')).status).toBe(503);
    // Ending a session frees its share everywhere.
    const ended = await fetch((running[1] as { listener: HttpListener }).listener.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': x2.session as string, 'mcp-protocol-version': '2025-11-25', 'x-forwarded-for': '203.0.113.1' },
    });
    expect(ended.status).toBe(200);
    expect((await open(0, '203.0.113.1')).status).toBe(200);
  });
});

/** A 2026-07-28 client of instance `on` (no proxy header: every such client is 127.0.0.1). */
async function modernClient(on: number): Promise<Client> {
  const client = new Client({ name: 'listener', version: '1' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL((running[on] as { listener: HttpListener }).listener.url)));
  return client;
}

describe('listen streams on the redis state', () => {
  it('count the streams a client holds on every instance, and free a closed one everywhere', async () => {
    const [onA, onB] = [await modernClient(0), await modernClient(1)];
    try {
      const held = await onA.listen({ toolsListChanged: true });
      // The client already holds its one stream, on the other instance.
      await expect(onB.listen({ toolsListChanged: true })).rejects.toThrow(
        'Subscription limit reached: this client already holds 1 subscriptions/listen streams (maxListenStreamsPerClient); close one before opening another',
      );
      await held.close();
      // Freed once the first instance sees the stream closed: try again until it has.
      await vi.waitFor(() => onB.listen({ toolsListChanged: true }), { timeout: 10_000 });
    } finally {
      await Promise.all([onA.close(), onB.close()]);
    }
  });
});

describe('the total listen-stream cap on the redis state', () => {
  const apps: { app: McpApp; listener: HttpListener }[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const app = createMcpApp(CappedServer, {
        state: redisState({ url: redis.url, keyPrefix: 'total-listens:' }),
        requestStateKey: 'k'.repeat(32),
      });
      apps.push({ app, listener: await app.listenHttp({ port: 0, maxListenStreams: 1 }) });
    }
  });
  afterAll(async () => {
    for (const { app, listener } of apps) {
      await listener.close();
      await app.close();
    }
  });

  it('counts the streams of every instance, and frees a closed one everywhere', async () => {
    const connect = async (on: number) => {
      const client = new Client({ name: 'listener', version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(new URL((apps[on] as { listener: HttpListener }).listener.url)));
      return client;
    };
    const [onA, onB] = [await connect(0), await connect(1)];
    try {
      const held = await onA.listen({ toolsListChanged: true });
      // The one stream of all the instances is held on the first: the second refuses, though it holds none.
      await expect(onB.listen({ toolsListChanged: true })).rejects.toThrow(
        "Subscription limit reached: the server's instances hold 1 subscriptions/listen streams in all (maxListenStreams); retry later",
      );
      await held.close();
      await vi.waitFor(() => onB.listen({ toolsListChanged: true }), { timeout: 10_000 });
    } finally {
      await Promise.all([onA.close(), onB.close()]);
    }
  });
});
