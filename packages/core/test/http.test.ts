import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { IsNumber } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Context, createMcpApp, type HttpListener, McpServer, Tool } from '../src/index.js';
import { sessionFramingChecked } from '../src/transports/wire/sse-format.js';
import { connectV1Http } from './support/clients.js';
import { INITIALIZE, JSON_HEADERS, rawHttp } from './support/raw-http.js';

class AddInput {
  @IsNumber()
  a!: number;
  @IsNumber()
  b!: number;
}

/** Told when a `hang` call starts. */
let started: () => void = () => undefined;
/** Resolves when the next `hang` call starts. */
const nextHang = () =>
  new Promise<void>((resolve) => {
    started = resolve;
  });

@McpServer({ name: 'http', version: '1.0.0' })
class HttpServer {
  @Tool({ description: 'add' })
  add(input: AddInput) {
    return input.a + input.b;
  }

  @Tool({ description: 'adds, answering a moment later' })
  async addLater(input: AddInput) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    return input.a + input.b;
  }

  @Tool({ description: 'answers only when its call is aborted' })
  async hang(ctx: Context) {
    started();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return 'aborted';
  }
}

let listener: HttpListener;
beforeAll(async () => {
  listener = await createMcpApp(HttpServer).listenHttp({ port: 0 });
});
afterAll(() => listener.close());

async function openSession(): Promise<string> {
  const res = await rawHttp(listener.url, { headers: JSON_HEADERS, body: INITIALIZE });
  expect(res.status).toBe(200);
  const id = res.headers['mcp-session-id'];
  expect(typeof id).toBe('string');
  return id as string;
}

describe('Streamable HTTP endpoint', () => {
  it('binds 127.0.0.1 by default and serves /mcp', () => {
    expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('serves the v1 client (1.32.2, 2025-11-25 with a session)', async () => {
    const { client, close } = await connectV1Http(listener.url);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['add', 'addLater', 'hang']);
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
    const bad = await client.callTool({ name: 'add', arguments: { a: 'x', b: 3 } });
    expect(bad).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'Invalid arguments for tool "add":\na: must be number' }],
    });
    await close();
  });

  it('refuses a foreign Host or Origin (DNS rebinding) before creating anything', async () => {
    const evilHost = await rawHttp(listener.url, { headers: { ...JSON_HEADERS, host: 'evil.example.com' }, body: INITIALIZE });
    expect(evilHost.status).toBe(403);
    expect(JSON.parse(evilHost.body)).toMatchObject({
      error: {
        code: -32000,
        message:
          "Invalid Host: evil.example.com: not in allowedHosts (DNS rebinding protection). If the server is reached under this name, add it: listenHttp({ allowedHosts: ['evil.example.com'] }) (or the same option of the handler); allowedHosts: false leaves the check to a proxy in front",
      },
    });
    const evilOrigin = await rawHttp(listener.url, { headers: { ...JSON_HEADERS, origin: 'http://evil.example.com' }, body: INITIALIZE });
    expect(evilOrigin.status).toBe(403);
    const localOrigin = await rawHttp(listener.url, { headers: { ...JSON_HEADERS, origin: 'http://localhost:5173' }, body: INITIALIZE });
    expect(localOrigin.status).toBe(200);
  });

  it('answers an unknown session 404, a request without session 400, and ends a session on DELETE', async () => {
    const unknown = await rawHttp(listener.url, {
      headers: { ...JSON_HEADERS, 'mcp-session-id': 'no-such-session', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ error: { code: -32001, message: 'Session not found' } });

    const noSession = await rawHttp(listener.url, {
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(noSession.status).toBe(400);

    const session = await openSession();
    const headers = { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    // Ended by Armature's session transport, not handed to the SDK's (once the framing check passed).
    await sessionFramingChecked();
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const deleted = await rawHttp(listener.url, { method: 'DELETE', headers });
    expect(deleted.status).toBe(200);
    expect(handled).not.toHaveBeenCalled();
    handled.mockRestore();
    const after = await rawHttp(listener.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }) });
    expect(after.status).toBe(404);
  });

  it('ends the stream of a call Armature answers itself when the session is deleted meanwhile', async () => {
    const session = await openSession();
    const headers = { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await rawHttp(listener.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const hanging = nextHang();
    const call = rawHttp(listener.url, {
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hang', arguments: {} } }),
    });
    // The call's stream is open (its headers sent) before the session ends.
    await hanging;
    const deleted = await rawHttp(listener.url, { method: 'DELETE', headers });
    expect(deleted.status).toBe(200);
    const answer = await call;
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
  });

  it("refuses hostile requests in a session before Armature's own stream takes them, and keeps serving the session", async () => {
    const session = await openSession();
    const headers = { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await rawHttp(listener.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const send = (message: unknown, extra: Record<string, string> = {}) =>
      rawHttp(listener.url, { headers: { ...headers, ...extra }, body: JSON.stringify(message) });
    const refusals = await Promise.all([
      // A second initialize in the session.
      send(JSON.parse(INITIALIZE)),
      // A revision the server does not speak.
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-protocol-version': '1999-01-01' }),
      // Another session's id.
      send({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': 'not-a-session' }),
      // Not a JSON-RPC request: params that are not an object, no jsonrpc member.
      send({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: [1, 2] }),
      send({ id: 5, method: 'tools/list' }),
      // Only one of the two streams the transport answers with.
      send({ jsonrpc: '2.0', id: 6, method: 'tools/list' }, { accept: 'application/json' }),
    ]);
    expect(refusals.map((r) => [r.status, JSON.parse(r.body).error?.code])).toEqual([
      [400, -32600],
      [400, -32000],
      [404, -32001],
      [400, -32600],
      [400, -32600],
      [406, -32000],
    ]);
    // An id still in flight (a call that waits) is refused, and the session serves on.
    const hanging = nextHang();
    const hang = send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'hang', arguments: {} } });
    await hanging;
    const twice = await send({ jsonrpc: '2.0', id: 7, method: 'tools/list' });
    expect([twice.status, JSON.parse(twice.body).error?.code]).toEqual([400, -32600]);
    const listed = await send({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
    expect(listed.status).toBe(200);
    expect(listed.body).toContain('"name":"add"');
    await rawHttp(listener.url, { method: 'DELETE', headers });
    expect((await hang).status).toBe(200);
  });

  it('answers malformed requests with the right status and code, and keeps serving', async () => {
    const badJson = await rawHttp(listener.url, { headers: JSON_HEADERS, body: '{"jsonrpc":"2.0",' });
    expect(badJson.status).toBe(400);
    expect(JSON.parse(badJson.body)).toMatchObject({ error: { code: -32700 } });

    const wrongType = await rawHttp(listener.url, { headers: { ...JSON_HEADERS, 'content-type': 'text/plain' }, body: INITIALIZE });
    expect(wrongType.status).toBe(415);

    const huge = await rawHttp(listener.url, { headers: JSON_HEADERS, body: Buffer.alloc(5 * 1024 * 1024, 0x20) });
    expect(huge.status).toBe(413);
    expect(JSON.parse(huge.body)).toMatchObject({ error: { code: -32000 } });

    const bomb = await rawHttp(listener.url, {
      headers: JSON_HEADERS,
      body: `{"jsonrpc":"2.0","id":9,"method":"initialize","params":${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
    });
    expect(bomb.status).toBe(400);
    expect(JSON.parse(bomb.body)).toEqual({
      jsonrpc: '2.0',
      error: { code: -32600, message: 'Invalid Request: the message is nested deeper than 64 levels' },
      id: 9,
    });

    const elsewhere = await rawHttp(listener.url.replace('/mcp', '/other'), { headers: JSON_HEADERS, body: INITIALIZE });
    expect(elsewhere.status).toBe(404);

    for (const res of [badJson, wrongType, huge]) expect(res.body).not.toMatch(/\bat |\/work\/|node_modules/);
    expect(await openSession()).toBeTruthy();
  });

  it('evicts idle 2025-11-25 sessions', async () => {
    const short = await createMcpApp(HttpServer).listenHttp({ port: 0, sessionIdleTimeoutMs: 300 });
    try {
      const res = await rawHttp(short.url, { headers: JSON_HEADERS, body: INITIALIZE });
      const session = res.headers['mcp-session-id'] as string;
      // Each look is a request, which keeps a live session alive: looks are 1 s apart (over three
      // times the idle timeout), repeated until evicted, since a busy machine may run the sweep late.
      await vi.waitFor(
        async () => {
          const later = await rawHttp(short.url, {
            headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
          });
          expect(later.status).toBe(404);
        },
        { interval: 1_000, timeout: 15_000 },
      );
    } finally {
      await short.close();
    }
  });
});

describe('JSON-RPC batches per protocol revision', () => {
  it('2025-11-25 removed batching: a batch in a session and a batched initialize are -32600', async () => {
    const batchedInit = await rawHttp(listener.url, { headers: JSON_HEADERS, body: `[${INITIALIZE}]` });
    expect(batchedInit.status).toBe(400);
    expect(JSON.parse(batchedInit.body)).toMatchObject({
      error: { code: -32600, message: 'Invalid Request: initialize must not be part of a JSON-RPC batch' },
    });
    const session = await openSession();
    const batch = await rawHttp(listener.url, {
      headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      ]),
    });
    expect(batch.status).toBe(400);
    expect(JSON.parse(batch.body)).toMatchObject({ error: { code: -32600 } });
  });
});

describe("JSON-RPC batches of a 2025-03-26 session, answered on Armature's own stream", () => {
  it('refuses what the SDK refuses (too many, an initialize, an id twice, a non-message), frees the refused ids, and serves on', async () => {
    const init = await rawHttp(listener.url, {
      headers: JSON_HEADERS,
      body: JSON.stringify({ ...JSON.parse(INITIALIZE), params: { ...JSON.parse(INITIALIZE).params, protocolVersion: '2025-03-26' } }),
    });
    const headers = { ...JSON_HEADERS, 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-03-26' };
    await rawHttp(listener.url, { headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const post = (batch: unknown) => rawHttp(listener.url, { headers, body: JSON.stringify(batch) });
    const pings = (count: number, from = 0) => Array.from({ length: count }, (_, i) => ({ jsonrpc: '2.0', id: from + i, method: 'ping' }));
    const refusals = [
      await post(pings(101)),
      await post([{ jsonrpc: '2.0', id: 3, method: 'ping' }, JSON.parse(INITIALIZE)]),
      await post([
        { jsonrpc: '2.0', id: 7, method: 'ping' },
        { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      ]),
      await post([{ jsonrpc: '2.0', id: 1, method: 'ping' }, 42]),
    ];
    expect(refusals.map((r) => [r.status, (JSON.parse(r.body) as { error: { code: number } }).error.code])).toEqual([
      [400, -32600],
      [400, -32600],
      [400, -32600],
      [400, -32600],
    ]);
    expect(refusals[0]?.body).toContain('Batch must not exceed 100 messages');
    expect(refusals[1]?.body).toContain('Server already initialized');
    // The largest batch: every request answered on the one stream, which then ends.
    const largest = await post(pings(100, 1000));
    expect(largest.status).toBe(200);
    expect(largest.body.match(/^data: \{"result":\{\},"jsonrpc":"2.0","id":1\d{3}\}$/gm)).toHaveLength(100);
    // The ids of a refused batch are not left in flight: id 5 was in the batch of 101.
    const after = await post([{ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } }]);
    expect(after.body).toContain('"text":"3"');
  });
});

describe('a session speaks the revision it negotiated', () => {
  it('serves a request whose MCP-Protocol-Version header names another supported revision as the negotiated one (SSE priming kept on a stream that runs)', async () => {
    const resumable = await createMcpApp(HttpServer).listenHttp({ port: 0, eventStore: true, retryIntervalMs: 500 });
    try {
      const init = await rawHttp(resumable.url, { headers: JSON_HEADERS, body: INITIALIZE });
      const session = init.headers['mcp-session-id'] as string;
      const call = (version: string) =>
        rawHttp(resumable.url, {
          headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': version },
          body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'addLater', arguments: { a: 1, b: 2 } } }),
        });
      for (const version of ['2025-11-25', '2025-03-26']) {
        const res = await call(version);
        expect(res.status).toBe(200);
        // The priming event (SEP-1699): an event id and the retry hint before any data.
        expect(res.body).toMatch(/^id: \S+\nretry: 500\ndata: \n/);
        expect(res.body).toContain('"text":"3"');
      }
      const unsupported = await call('1999-01-01');
      expect(unsupported.status).toBe(400);
    } finally {
      await resumable.close();
    }
  });
});
