import 'reflect-metadata';
import { createMcpApp, type McpApp } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisState } from '../src/index.js';
import { FrontServer } from './support/front-server.js';
import { holdStream, openSession, post, type RawAnswer } from './support/raw-session.js';

// The engine front of packages/core's engine-fronts test, on the Redis state: a 2025-11-25 session
// on redisState is shared and resumable, and the engine answers its requests itself (priming event,
// event ids from the Redis event store, the session's record kept alive). The same conversation
// gets the same bytes with the engine on as with every request through the SDK's request handling,
// on Armature's own session stream (both faces), and as framed by the SDK's session transport (the
// fallback when the framing self-check fails).

const CONVERSATION: readonly (readonly [string, Record<string, unknown>])[] = [
  ['ping', {}],
  ['tools/list', {}],
  ['tools/call', { name: 'add', arguments: { a: 2, b: 3 } }],
  ['tools/call', { name: 'add', arguments: { a: 'two', b: 3 } }],
  ['tools/call', { name: 'refuse', arguments: {} }],
  ['tools/call', { name: 'chatty', arguments: {} }],
  ['tools/call', { name: 'nope', arguments: {} }],
];

/** The SSE event ids of an answer, numbered in order of appearance (they are random per run). */
function numberedEventIds(body: string): string {
  let n = 0;
  return body.replace(/^id: .+$/gm, () => `id: <${++n}>`);
}

let redis: RedisServer;

beforeAll(async () => {
  redis = await RedisServer.start();
});

afterAll(async () => {
  await redis?.dispose();
});

afterEach(() => {
  vi.restoreAllMocks();
});

type Post = (body: object, headers?: Record<string, string>) => Promise<RawAnswer>;

/** The fetch face of `handler` as a `post`. */
function fetchPost(handler: ReturnType<McpApp['httpHandler']>): Post {
  return async (body, headers = {}) => {
    const response = await handler.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: '127.0.0.1', ...headers },
        body: JSON.stringify(body),
      }),
    );
    return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
  };
}

/** What a conversation's app is made of. */
interface Modules {
  readonly createMcpApp: typeof createMcpApp;
  readonly redisState: typeof redisState;
  readonly FrontServer: typeof FrontServer;
}

const CURRENT: Modules = { createMcpApp, redisState, FrontServer };

/**
 * The modules loaded afresh, so that the session framing self-check runs again, on a probe whose
 * transport frames an event its own way: every session exchange is then framed by the SDK's transport.
 */
async function sdkFramed(): Promise<Modules> {
  vi.resetModules();
  const prototype = WebStandardStreamableHTTPServerTransport.prototype as unknown as {
    writeSSEEvent(
      this: { sessionId?: string },
      controller: ReadableStreamDefaultController,
      encoder: TextEncoder,
      message: unknown,
      id?: string,
    ): boolean;
  };
  const original = prototype.writeSSEEvent;
  vi.spyOn(prototype, 'writeSSEEvent').mockImplementation(function (this: { sessionId?: string }, controller, encoder, message, id) {
    if (this.sessionId !== 'armature-probe-session') return original.call(this, controller, encoder, message, id);
    controller.enqueue(encoder.encode(`data: ${JSON.stringify(message)}\n\n`));
    return true;
  });
  const core = await import('@armature/core');
  const redis = await import('../src/index.js');
  const server = await import('./support/front-server.js');
  return { createMcpApp: core.createMcpApp, redisState: redis.redisState, FrontServer: server.FrontServer };
}

/** The SDK transport's own `handleRequest`, before any spy. */
const SDK_HANDLE_REQUEST = WebStandardStreamableHTTPServerTransport.prototype.handleRequest;

/**
 * Has the SDK's session transport of a resumable session answer each POST of one request with its
 * JSON framing (`enableJsonResponse`, read per POST), as Armature answers a request answered within
 * the turn it came in with nothing before its answer: the SDK's own bytes to compare those answers
 * with. Not so the requests that are not: a call of `chatty` (which logs first), and on the Redis
 * state the initialize and `logging/setLevel` (each waits for the session's record in Redis).
 * Batches keep the SDK's SSE framing.
 */
function sdkAnswersAtOnceAsJson(): void {
  vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest').mockImplementation(function (
    this: WebStandardStreamableHTTPServerTransport,
    request,
    options,
  ) {
    const own = this as unknown as { _eventStore?: unknown; _enableJsonResponse: boolean; sessionId?: string };
    const body = options?.parsedBody as { method?: unknown; params?: { name?: unknown } } | undefined;
    const waits = body?.method === 'initialize' || body?.method === 'logging/setLevel' || body?.params?.name === 'chatty';
    const atOnce = !Array.isArray(body) && !waits;
    own._enableJsonResponse = own.sessionId !== 'armature-probe-session' && own._eventStore !== undefined && atOnce;
    return SDK_HANDLE_REQUEST.call(this, request, options);
  });
}

/** An answer as `status content-type body`, then its headers (sorted; no date; the session's id only said to be there). */
function answerText({ status, headers, body }: RawAnswer): string {
  const lines = Object.entries(headers)
    .filter(([name]) => name !== 'date')
    .map(([name, value]) => `${name}: ${name === 'mcp-session-id' ? '<session>' : String(value)}`)
    .sort();
  return `${status} ${headers['content-type']} ${numberedEventIds(body)}\n--\n${lines.join('\n')}`;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/**
 * A 2025-03-26 session's JSON-RPC batches: requests (the engine's, the SDK's, one that logs) with a
 * notification; notifications alone; one request.
 */
const BATCHES: readonly object[][] = [
  [
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'chatty', arguments: {} } },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'refuse', arguments: {} } },
  ],
  [
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } },
  ],
  [{ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'chatty', arguments: {} } }],
];

let apps = 0;

/**
 * One session's conversation on a fresh app on the Redis state, over node:http or the fetch face:
 * the answer to its initialize, to a log level, then to each request of CONVERSATION (`answerText`).
 */
async function converse(
  requestEngine: boolean,
  face: 'node' | 'fetch' = 'node',
  modules: Modules = CURRENT,
  { batches = false, inMemory = false } = {},
): Promise<{ answers: string[]; served: number }> {
  const app = modules.createMcpApp(modules.FrontServer, {
    ...(inMemory ? {} : { state: modules.redisState({ url: redis.url, keyPrefix: `fronts-${++apps}:` }), requestStateKey: 'k'.repeat(32) }),
    onError: () => undefined,
    requestEngine,
  });
  let send: Post;
  let close: () => Promise<void>;
  if (face === 'node') {
    const listener = await app.listenHttp({ port: 0, retryIntervalMs: 1_500, ...(inMemory ? { eventStore: true } : {}) });
    send = (body, headers) => post(listener.url, body, headers);
    close = () => listener.close();
  } else {
    await app.ready();
    const handler = app.httpHandler({ retryIntervalMs: 1_500, ...(inMemory ? { eventStore: true } : {}) });
    send = fetchPost(handler);
    close = () => handler.close();
  }
  try {
    const protocolVersion = batches ? '2025-03-26' : '2025-11-25';
    const init = await send({ ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion } });
    const answers = [answerText(init)];
    const headers = { 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': protocolVersion };
    await send({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    if (batches) {
      for (const batch of BATCHES) answers.push(answerText(await send(batch as unknown as object, headers)));
      return { answers, served: app.stats.engine };
    }
    answers.push(answerText(await send({ jsonrpc: '2.0', id: 'level', method: 'logging/setLevel', params: { level: 'info' } }, headers)));
    for (const [i, [method, params]] of CONVERSATION.entries()) {
      answers.push(answerText(await send({ jsonrpc: '2.0', id: i + 1, method, params }, headers)));
    }
    return { answers, served: app.stats.engine };
  } finally {
    await close();
    await app.close();
  }
}

describe.each(['node', 'fetch'] as const)('a 2025-11-25 session on the Redis state, through the %s face', (face) => {
  it("is answered on Armature's own stream, its initialize included, with the bytes (headers too) the SDK's session transport writes when the framing self-check fails, engine on and off", async () => {
    // A first app, so that the self-checks (once per process, with their own probes) are done.
    await converse(false, face);
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const viaSdk = await converse(false, face);
    const viaEngine = await converse(true, face);
    // Not one request went through the SDK's session transport.
    expect(handled.mock.calls.length).toBe(0);
    expect([viaSdk.served, viaEngine.served]).toEqual([0, CONVERSATION.length]);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    sdkAnswersAtOnceAsJson();
    const framed = await converse(true, face, await sdkFramed());
    // The probes' ten requests, then every request of the session.
    expect(handled.mock.calls.length).toBe(10 + 3 + CONVERSATION.length);
    expect(viaSdk.answers).toEqual(framed.answers);
    expect(viaEngine.answers).toEqual(framed.answers);
    const text = viaEngine.answers.join('\n');
    // The initialize waits for the session's record: primed with the retry hint, numbered from the store.
    expect(viaEngine.answers[0]).toMatch(
      /^200 text\/event-stream id: <1>\nretry: 1500\ndata: \n\nevent: message\nid: <2>\ndata: \{"result":\{"protocolVersion":"2025-11-25"/,
    );
    expect(viaEngine.answers[0]).toContain('\nmcp-session-id: <session>');
    // A request answered at once, nothing before: one JSON body.
    expect(viaEngine.answers[2]).toMatch(/^200 application\/json \{"result"/);
    expect(viaEngine.answers[2]).toContain('\nmcp-session-id: <session>');
    // A call that logs first: primed, each event numbered from the store.
    expect(text).toMatch(
      /200 text\/event-stream id: <1>\nretry: 1500\ndata: \n\nevent: message\nid: <2>\ndata: \{"jsonrpc":"2.0","method":"notifications\/message"/,
    );
    expect(text).toContain('{"type":"text","text":"5"}');
    expect(text).toContain('No stock left');
    // A log line before its answer.
    expect(text).toMatch(/"method":"notifications\/message","params":\{"level":"info","data":"working"\}\}\n\nevent: message\nid: <3>/);
  });
});

/**
 * A session's GET stream, each step as `status body` (event ids numbered, keep-alives aside): a
 * list change on it, a second GET refused, the stream dropped while another change is sent, a
 * resume with the last id seen (the change, then the next on the same stream), a resume of a
 * stream that is open, an id that is not the session's.
 */
async function streamConversation(state: 'redis' | 'memory'): Promise<string[]> {
  const app = createMcpApp(FrontServer, {
    ...(state === 'redis' ? { state: redisState({ url: redis.url, keyPrefix: 'fronts-get:' }), requestStateKey: 'k'.repeat(32) } : {}),
    onError: () => undefined,
  });
  const listener = await app.listenHttp({ port: 0, retryIntervalMs: 1_500, ...(state === 'memory' ? { eventStore: true } : {}) });
  const steps: string[] = [];
  const step = (status: number, body: string) => steps.push(`${status} ${numberedEventIds(body.replaceAll(': keepalive\n\n', ''))}`);
  try {
    const session = await openSession(listener.url);
    const first = await holdStream(listener.url, session);
    const second = await holdStream(listener.url, session);
    step(second.status, await second.events(1));
    await app.tools.disable('add');
    const seen = await first.events(1);
    step(first.status, seen);
    first.drop();
    await app.tools.enable('add');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lastId = [...seen.matchAll(/^id: (.+)$/gm)].at(-1)?.[1] ?? '';
    const resumed = await holdStream(listener.url, { ...session, 'last-event-id': lastId });
    await app.tools.disable('refuse');
    step(resumed.status, await resumed.events(2));
    const conflict = await holdStream(listener.url, { ...session, 'last-event-id': lastId });
    step(conflict.status, await conflict.events(1));
    resumed.drop();
    const foreign = await holdStream(listener.url, { ...session, 'last-event-id': 'not-an-event-of-this-session' });
    step(foreign.status, await foreign.events(1));
    return steps;
  } finally {
    await listener.close();
    await app.close();
  }
}

describe.each(['node', 'fetch'] as const)('JSON-RPC batches of a 2025-03-26 session on the Redis state, through the %s face', (face) => {
  it("are answered on Armature's own stream as the SDK's session transport answers them when the framing self-check fails, in the order they were sent", async () => {
    await converse(true, face);
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const own = await converse(true, face, CURRENT, { batches: true });
    expect(handled.mock.calls.length).toBe(0);
    // The batches as on the in-memory store (whose batches core's engine-fronts holds to the SDK's
    // bytes). Not the initialize: in memory it is answered at once (one JSON body), on Redis it
    // waits for the session's record (a stored stream).
    const inMemory = await converse(true, face, CURRENT, { batches: true, inMemory: true });
    expect(own.answers.slice(1)).toEqual(inMemory.answers.slice(1));
    expect([own.answers[0], inMemory.answers[0]].map((answer) => answer?.split(' ', 2)[1])).toEqual([
      'text/event-stream',
      'application/json',
    ]);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    handled.mockClear();
    sdkAnswersAtOnceAsJson();
    const framed = await converse(true, face, await sdkFramed(), { batches: true });
    // The probes' ten requests, then the initialize, its notification and every batch.
    expect(handled.mock.calls.length).toBe(10 + 2 + BATCHES.length);
    // The same bytes, but the order of a batch's messages on its stream: the SDK's transport writes
    // each once its store answered, and on Redis the first store of a stream waits for its claim,
    // so later messages overtake it; Armature writes them in the order they were sent.
    const [init, mixed, notifications, single] = own.answers;
    const sorted = (answer = '') => {
      const [events = '', headers] = answer
        .replace(/^200 text\/event-stream /, '')
        .replace(/id: <\d>/g, 'id: <n>')
        .split('\n--\n');
      return [...events.split('\n\n').sort(), headers];
    };
    expect([init, notifications, single]).toEqual([framed.answers[0], framed.answers[2], framed.answers[3]]);
    expect(sorted(mixed)).toEqual(sorted(framed.answers[1]));
    // Four answers and a log line on one stream, each event numbered from the Redis store, the log
    // line first (sent before any answer).
    expect(mixed?.match(/event: message\nid: <\d>\n/g)).toHaveLength(5);
    expect(mixed).toMatch(/^200 text\/event-stream event: message\nid: <1>\ndata: .*"notifications\/message"/);
    expect(mixed).toContain('{"type":"text","text":"5"}');
    expect(notifications).toMatch(/^202 /);
    expect(single).toMatch(/"notifications\/message".*\n\nevent: message\nid: <2>\ndata: \{"result"/s);
  });
});

describe("a 2025-11-25 session's GET stream on the Redis state", () => {
  it('is written and resumed from the Redis event store as from the in-memory one (which engine-fronts in core holds to the SDK bytes)', async () => {
    // First in memory: the session framing self-check (once per process) is done by then.
    const inMemory = await streamConversation('memory');
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const onRedis = await streamConversation('redis');
    // Nothing went through the SDK's transport.
    expect(handled.mock.calls.length).toBe(0);
    expect(onRedis).toEqual(inMemory);
    expect(onRedis[0]).toMatch(/^409 .*Only one SSE stream is allowed per session/);
    expect(onRedis[1]).toMatch(
      /^200 event: message\nid: <1>\ndata: \{"jsonrpc":"2.0","method":"notifications\/tools\/list_changed"\}\n\n$/,
    );
    expect(onRedis[2]).toMatch(/^200 event: message\nid: <1>\ndata: .*\n\nevent: message\nid: <2>\ndata: .*\n\n$/);
    expect(onRedis[3]).toMatch(/^409 .*Stream already has an active connection/);
    expect(onRedis[4]).toMatch(/^404 .*Event stream not found/);
  }, 60_000);
});
