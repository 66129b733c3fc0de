import 'reflect-metadata';
import { Context, createMcpApp, type McpApp, McpServer, Tool, ToolError } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { IsInt } from 'class-validator';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisState } from '../src/index.js';
import { holdStream, openSession, post, type RawAnswer } from './support/raw-session.js';

// The engine front of packages/core's engine-fronts test, on the Redis state: a 2025-11-25 session
// on redisState is shared and resumable, and the engine answers its requests itself (priming event,
// event ids from the Redis event store, the session's record kept alive). The same conversation
// gets the same bytes with the engine on as with every request through the SDK's request handling,
// both on Armature's own session stream, and as framed by the SDK's session transport (fetch face).

class Pair {
  @IsInt()
  a!: number;

  @IsInt()
  b!: number;
}

@McpServer({ name: 'fronts', version: '1.0.0' })
class FrontServer {
  @Tool({ description: 'adds' })
  add(input: Pair) {
    return input.a + input.b;
  }

  @Tool({ description: 'an expected failure' })
  refuse() {
    throw new ToolError('No stock left', { sku: 'A1' });
  }

  @Tool({ description: 'logs, then answers' })
  async chatty(ctx: Context) {
    await ctx.log.info('working');
    return 'done';
  }
}

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

/** The fetch face of `handler` as a `post` (its answers framed by the SDK's session transport). */
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

/**
 * One session's conversation on a fresh app on the Redis state, over node:http (Armature's own
 * session stream) or the fetch face (the SDK's session transport), each answer as `status content-type body`.
 */
async function converse(requestEngine: boolean, face: 'node' | 'fetch' = 'node'): Promise<{ answers: string[]; served: number }> {
  const app = createMcpApp(FrontServer, {
    state: redisState({ url: redis.url, keyPrefix: `fronts-${requestEngine}-${face}:` }),
    requestStateKey: 'k'.repeat(32),
    onError: () => undefined,
    requestEngine,
  });
  let send: Post;
  let close: () => Promise<void>;
  if (face === 'node') {
    const listener = await app.listenHttp({ port: 0, retryIntervalMs: 1_500 });
    send = (body, headers) => post(listener.url, body, headers);
    close = () => listener.close();
  } else {
    await app.ready();
    const handler = app.httpHandler({ retryIntervalMs: 1_500 });
    send = fetchPost(handler);
    close = () => handler.close();
  }
  try {
    const headers = await openSession(send);
    await send({ jsonrpc: '2.0', id: 'level', method: 'logging/setLevel', params: { level: 'info' } }, headers);
    const answers: string[] = [];
    for (const [i, [method, params]] of CONVERSATION.entries()) {
      const answer = await send({ jsonrpc: '2.0', id: i + 1, method, params }, headers);
      answers.push(`${answer.status} ${answer.headers['content-type']} ${numberedEventIds(answer.body)}`);
    }
    return { answers, served: app.stats.engine };
  } finally {
    await close();
    await app.close();
  }
}

describe('a 2025-11-25 session on the Redis state, answered by the request engine', () => {
  it("gets the same bytes as through the SDK's request handling, on Armature's own stream: the SDK session transport sees only the initialize", async () => {
    // A first app, so that the session framing self-check (once per process, with its own probes) is done.
    await converse(false);
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const viaSdk = await converse(false);
    const sdkHandled = handled.mock.calls.length;
    handled.mockClear();
    const viaEngine = await converse(true);
    expect(viaEngine.answers).toEqual(viaSdk.answers);
    // initialize; notifications/initialized and logging/setLevel (not an engine method) are Armature's too.
    expect([handled.mock.calls.length, sdkHandled]).toEqual([1, 1]);
    expect([viaSdk.served, viaEngine.served]).toEqual([0, CONVERSATION.length]);
    // Framed by the SDK's session transport (the fetch face), the same bytes.
    expect((await converse(false, 'fetch')).answers).toEqual(viaSdk.answers);
    const text = viaEngine.answers.join('\n');
    // Primed with the retry hint, numbered from the store, a log line before its answer.
    expect(viaEngine.answers[0]).toMatch(
      /^200 text\/event-stream id: <1>\nretry: 1500\ndata: \n\nevent: message\nid: <2>\ndata: \{"result"/,
    );
    expect(text).toContain('{"type":"text","text":"5"}');
    expect(text).toContain('No stock left');
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

describe("a 2025-11-25 session's GET stream on the Redis state", () => {
  it('is written and resumed from the Redis event store as from the in-memory one (which engine-fronts in core holds to the SDK bytes)', async () => {
    // First in memory: the session framing self-check (once per process) is done by then.
    const inMemory = await streamConversation('memory');
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const onRedis = await streamConversation('redis');
    // Only the initialize went through the SDK's transport.
    expect(handled.mock.calls.length).toBe(1);
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
