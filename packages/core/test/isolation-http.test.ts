import { connect as connectTcp, type Socket } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsString } from 'class-validator';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type CreateMcpAppOptions,
  createMcpApp,
  type HttpListener,
  InMemoryEventStore,
  type ListenHttpOptions,
  McpServer,
  Tool,
} from '../src/index.js';
import { exposureWarning } from '../src/transports/http/network-exposure.js';
import { INITIALIZE, JSON_HEADERS, rawHttp } from './support/raw-http.js';

class EchoInput {
  @IsString()
  text!: string;
}

@McpServer({ name: 'isolation', version: '1.0.0' })
class IsolationServer {
  @Tool({ description: 'echo' })
  echo(input: EchoInput) {
    return input.text;
  }

  @Tool({ description: 'answers once the test releases it' })
  async hold() {
    held.running = true;
    await new Promise<void>((resolve) => {
      held.release = resolve;
    });
    return 'released';
  }
}

/** The `hold` call, held by the test: no race between a sleep and how fast a busy machine is. */
const held = { running: false, release: (): void => undefined };

const open: HttpListener[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});

async function listen(options: ListenHttpOptions = {}, appOptions: CreateMcpAppOptions = {}): Promise<HttpListener> {
  const listener = await createMcpApp(IsolationServer, appOptions).listenHttp({ port: 0, ...options });
  open.push(listener);
  return listener;
}

const LEGACY = { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' };

async function openSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const init = await rawHttp(url, { headers: { ...JSON_HEADERS, ...headers }, body: INITIALIZE });
  expect(init.status).toBe(200);
  const session = init.headers['mcp-session-id'] as string;
  const ready = await rawHttp(url, {
    headers: { ...LEGACY, ...headers, 'mcp-session-id': session },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(ready.status).toBe(202);
  return session;
}

function call(id: number | string, name: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}

/** Reads a streaming response for at most `ms`, then drops it: SSE streams stay open. */
async function peek(url: string, init: RequestInit, ms = 600): Promise<{ status: number; text: string }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), ms);
  try {
    const res = await fetch(url, { ...init, signal: abort.signal });
    let text = '';
    try {
      for await (const chunk of res.body ?? []) text += Buffer.from(chunk as Uint8Array).toString('utf8');
    } catch {
      // aborted: what arrived so far is the answer
    }
    return { status: res.status, text };
  } finally {
    clearTimeout(timer);
  }
}

function eventIds(sse: string): string[] {
  return [...sse.matchAll(/^id: (.+)$/gm)].map((m) => m[1] as string);
}

describe('event streams belong to their session', () => {
  it("refuses session B's replay of session A's Last-Event-ID with 404 and sends none of A's events", async () => {
    const listener = await listen({ eventStore: true });
    const alice = await openSession(listener.url);
    const answer = await rawHttp(listener.url, {
      headers: { ...LEGACY, 'mcp-session-id': alice },
      // Over 16 KiB, so that the answer is a stored stream with event ids (a smaller one answered at
      // once is one JSON body, stored nowhere).
      body: call(2, 'echo', { text: 'alice-private-result'.padEnd(17_000, '.') }),
    });
    expect(answer.body).toContain('alice-private-result');
    const [firstEvent] = eventIds(answer.body);
    expect(firstEvent).toBeDefined();

    const bob = await openSession(listener.url);
    const replay = await peek(listener.url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': bob,
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': firstEvent as string,
      },
    });
    expect(replay.text).not.toContain('alice-private-result');
    expect(replay.status).toBe(404);
    expect(JSON.parse(replay.text)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32001,
        message: 'Event stream not found: resume with a Last-Event-ID from this session, or open a new stream without it',
      },
    });
    // An invented id gets exactly the same answer: nothing tells a foreign id from a missing one.
    const invented = await peek(listener.url, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': bob,
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': 'no-such-event',
      },
    });
    expect(invented).toEqual(replay);
  });

  it('purges a session’s events when it is deleted or evicted idle', async () => {
    const store = new InMemoryEventStore();
    const listener = await listen({ eventStore: store, sessionIdleTimeoutMs: 400 });
    const session = await openSession(listener.url);
    await rawHttp(listener.url, {
      headers: { ...LEGACY, 'mcp-session-id': session },
      body: call(2, 'echo', { text: 'x'.repeat(100_000) }),
    });
    expect(store.size.bytes).toBeGreaterThan(100_000);
    const deleted = await rawHttp(listener.url, { method: 'DELETE', headers: { ...LEGACY, 'mcp-session-id': session } });
    expect(deleted.status).toBe(200);
    await vi.waitFor(() => expect(store.size).toEqual({ events: 0, bytes: 0 }), { timeout: 10_000 });

    const idle = await openSession(listener.url);
    // Over 16 KiB, so that it is stored (see above).
    await rawHttp(listener.url, {
      headers: { ...LEGACY, 'mcp-session-id': idle },
      body: call(3, 'echo', { text: 'idle'.padEnd(17_000, '.') }),
    });
    expect(store.size.events).toBeGreaterThan(0);
    // Evicted after 400 ms idle (looking at the store does not touch the session).
    await vi.waitFor(() => expect(store.size).toEqual({ events: 0, bytes: 0 }), { timeout: 10_000 });
  });

  it('refuses at start-up a custom event store that cannot say which stream an event belongs to', () => {
    const store = { storeEvent: async () => 'e', replayEventsAfter: async () => 's' };
    expect(() => createMcpApp(IsolationServer).httpHandler({ eventStore: store })).toThrow(
      'McpApp.listenHttp/httpHandler: the eventStore must implement getStreamIdForEventId(eventId), so a resumed stream can be checked against the session asking for it; add it, or use `eventStore: true` (InMemoryEventStore)',
    );
  });

  it('keeps the in-memory store within its byte budget, oldest events dropped first', async () => {
    const store = new InMemoryEventStore({ maxBytes: 50_000 });
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      ids.push(await store.storeEvent('s', { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'y'.repeat(1_000) } }));
    }
    expect(store.size.bytes).toBeLessThanOrEqual(50_000);
    expect(store.size.events).toBeGreaterThan(40);
    expect(await store.getStreamIdForEventId(ids[0] as string)).toBeUndefined();
    expect(await store.getStreamIdForEventId(ids[99] as string)).toBe('s');
  });
});

describe('duplicate in-flight request ids (2025-11-25 session)', () => {
  it('answers a second request with an id still in flight -32600, and the first still completes', async () => {
    const listener = await listen();
    const session = await openSession(listener.url);
    const headers = { ...LEGACY, 'mcp-session-id': session };
    held.running = false;
    const first = rawHttp(listener.url, { headers, body: call(5, 'hold', {}) });
    await vi.waitFor(() => expect(held.running).toBe(true), { timeout: 10_000 });
    const second = await rawHttp(listener.url, { headers, body: call(5, 'echo', { text: 'second' }) });
    expect(second.status).toBe(400);
    expect(JSON.parse(second.body)).toEqual({
      jsonrpc: '2.0',
      id: 5,
      error: {
        code: -32600,
        message: 'Invalid Request: a request with id 5 is still in flight in this session; use a new id for each request',
      },
    });
    held.release();
    const answered = await first;
    expect(answered.body).toContain('released');
    // Answered, the id is free again.
    const again = await rawHttp(listener.url, { headers, body: call(5, 'echo', { text: 'again' }) });
    expect(again.body).toContain('again');
  });
});

describe('request ids JavaScript numbers cannot hold (HTTP)', () => {
  it('refuses them -32600 with the id exactly as written, on both revisions', async () => {
    const listener = await listen();
    const session = await openSession(listener.url);
    const modernMeta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const cases = [
      { headers: { ...LEGACY, 'mcp-session-id': session }, body: '{"jsonrpc":"2.0","id":1152921504606846977,"method":"ping"}' },
      {
        headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'ping' },
        body: `{"jsonrpc":"2.0","id":1152921504606846977,"method":"ping","params":{"_meta":${JSON.stringify(modernMeta)}}}`,
      },
    ];
    for (const { headers, body } of cases) {
      const res = await rawHttp(listener.url, { headers, body });
      expect(res.status).toBe(400);
      expect(res.body).toBe(
        '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: the id 1152921504606846977 is not an integer between -(2^53-1) and 2^53-1; use a smaller integer or a string id"},"id":1152921504606846977}',
      );
    }
  });
});

describe('session caps', () => {
  it('refuses initialize beyond maxSessions with 503 and Retry-After', async () => {
    const listener = await listen({ maxSessions: 3, maxSessionsPerClient: 10 });
    for (let i = 0; i < 3; i++) await openSession(listener.url);
    const refused = await rawHttp(listener.url, { headers: JSON_HEADERS, body: INITIALIZE });
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('30');
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32000, message: 'Service Unavailable: the server holds its maximum of 3 sessions (maxSessions); retry later' },
    });
  });

  it('refuses one client (peer address) beyond maxSessionsPerClient with 429, and frees a slot on DELETE', async () => {
    const listener = await listen({ maxSessionsPerClient: 2 });
    const first = await openSession(listener.url);
    await openSession(listener.url);
    const refused = await rawHttp(listener.url, { headers: JSON_HEADERS, body: INITIALIZE });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect(JSON.parse(refused.body).error.message).toBe(
      'Too Many Requests: this client already holds 2 sessions (maxSessionsPerClient); end unused ones with DELETE, or retry later',
    );
    await rawHttp(listener.url, { method: 'DELETE', headers: { ...LEGACY, 'mcp-session-id': first } });
    await openSession(listener.url);
  });

  it('closes a session that never sends notifications/initialized after sessionInitializeTimeoutMs', async () => {
    const listener = await listen({ sessionInitializeTimeoutMs: 300 });
    const init = await rawHttp(listener.url, { headers: JSON_HEADERS, body: INITIALIZE });
    const halfOpen = init.headers['mcp-session-id'] as string;
    const ready = await openSession(listener.url);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    // Looks 1 s apart (over three times the timeout), repeated in case a busy machine closes it late.
    await vi.waitFor(
      async () =>
        expect((await rawHttp(listener.url, { headers: { ...LEGACY, 'mcp-session-id': halfOpen }, body: list })).status).toBe(404),
      { interval: 1_000, timeout: 15_000 },
    );
    expect((await rawHttp(listener.url, { headers: { ...LEGACY, 'mcp-session-id': ready }, body: list })).status).toBe(200);
  });
});

describe('subscriptions/listen streams per client (2026-07-28)', () => {
  it('refuses one client beyond maxListenStreamsPerClient, leaving the pool to others, and frees the slot on close', async () => {
    const listener = await listen({ maxListenStreamsPerClient: 2 });
    const client = new Client({ name: 'greedy', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const first = await client.listen({ toolsListChanged: true });
      await client.listen({ toolsListChanged: true });
      await expect(client.listen({ toolsListChanged: true })).rejects.toThrow(
        'Subscription limit reached: this client already holds 2 subscriptions/listen streams (maxListenStreamsPerClient); close one before opening another',
      );
      await first.close();
      // The slot is freed once the server sees the stream closed: try again until it has.
      await vi.waitFor(() => client.listen({ toolsListChanged: true }), { timeout: 10_000 });
    } finally {
      await client.close();
    }
  });

  it('refuses a listen filter naming too many resources or an over-long URI with -32602', async () => {
    // The app's caps on resources/subscribe hold for listen filters too.
    const listener = await listen({}, { maxSubscriptionsPerSession: 2, maxUriLength: 100 });
    const client = new Client({ name: 'wide', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      await expect(client.listen({ resourceSubscriptions: ['a://1', 'a://2', 'a://3'] })).rejects.toThrow(
        'Invalid params: a listen stream may name at most 2 resources in resourceSubscriptions (maxSubscriptionsPerSession)',
      );
      await expect(client.listen({ resourceSubscriptions: [`a://${'x'.repeat(200)}`] })).rejects.toThrow(
        'Invalid params: a resource URI in resourceSubscriptions is longer than 100 characters (maxUriLength)',
      );
    } finally {
      await client.close();
    }
  });
});

/** A raw TCP connection to the listener, for slow or piled-up clients. */
function socketTo(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connectTcp(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

function closedWithin(socket: Socket, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

describe('the node server of listenHttp', () => {
  it('closes a connection that trickles its headers past headersTimeoutMs', async () => {
    const listener = await listen({ headersTimeoutMs: 500 });
    const socket = await socketTo(listener.url);
    socket.on('error', () => undefined);
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const trickle = setInterval(() => socket.writable && socket.write('X-Slow: 1\r\n'), 100);
    try {
      expect(await closedWithin(socket, 3_000)).toBe(true);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  it('drops connections beyond maxConnections', async () => {
    const listener = await listen({ maxConnections: 2 });
    const sockets = await Promise.all([socketTo(listener.url), socketTo(listener.url), socketTo(listener.url)]);
    try {
      for (const s of sockets) s.on('error', () => undefined);
      const closed = await Promise.all(sockets.map((s) => closedWithin(s, 1_000)));
      expect(closed.filter(Boolean)).toHaveLength(1);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });

  it('answers an odd Host header 400, not 500', async () => {
    const listener = await listen({ allowedHosts: false });
    for (const host of ['localhost:99999', 'exa mple', 'a/b@c']) {
      const res = await rawHttp(listener.url, { headers: { ...JSON_HEADERS, host }, body: INITIALIZE });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error.message).toBe(`Bad Request: the Host header ${JSON.stringify(host)} is not a valid host[:port]`);
    }
  });

  it('warns when a non-loopback bind has no auth and Host checks that trust localhost', () => {
    expect(exposureWarning({ host: '0.0.0.0' })).toContain('McpApp.listenHttp: listening on 0.0.0.0 without authentication');
    expect(exposureWarning({ host: '0.0.0.0', allowedHosts: false })).toBeDefined();
    expect(exposureWarning({ host: '127.0.0.1' })).toBeUndefined();
    expect(exposureWarning({ host: '::1' })).toBeUndefined();
    expect(exposureWarning({ host: '0.0.0.0', auth: {} })).toBeUndefined();
    expect(exposureWarning({ host: '0.0.0.0', allowedHosts: ['mcp.example.com'] })).toBeUndefined();
  });
});
