import { PassThrough } from 'node:stream';
import { InMemoryTransport, type JSONRPCMessage, Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { IsInt, Max, Min } from 'class-validator';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RequestEngine } from '../src/engine/request-engine.js';
import { Context, createMcpApp, type McpApp, McpServer, Tool, ToolError } from '../src/index.js';
import { sessionState } from '../src/seams/sdk-session-state.js';
import { sessionFramingChecked } from '../src/transports/wire/sse-format.js';
import { EngineTools } from './support/engine-tools.js';
import { holdStream, lastEventId } from './support/event-streams.js';
import { flipSessionStateCheck } from './support/flip-session-state.js';
import { FrontServer } from './support/front-server.js';
import { rawHttp } from './support/raw-http.js';

// Every front of the request engine, held to the same rule: the same conversation gets the same
// bytes with the engine on (requestEngine, the default) as with every request going through the SDK's
// public request handling, and with the engine on, the engine answered every request of it. A run
// whose engine is deliberately broken must fail the comparison, so the comparison is known to see
// the engine's answers.

/** The requests of the conversation: every kind of answer the conversion table makes, and refusals. */
const CONVERSATION: readonly (readonly [string, Record<string, unknown>])[] = [
  ['ping', {}],
  ['tools/list', {}],
  ['tools/call', { name: 'add', arguments: { a: 2, b: 3 } }],
  ['tools/call', { name: 'add', arguments: { a: 'two', b: 3, c: 1 } }],
  ['tools/call', { name: 'search', arguments: { query: 'lamp' } }],
  ['tools/call', { name: 'annotated', arguments: {} }],
  ['tools/call', { name: 'whole', arguments: {} }],
  ['tools/call', { name: 'invalid', arguments: {} }],
  ['tools/call', { name: 'refuse', arguments: {} }],
  ['tools/call', { name: 'crash', arguments: {} }],
  ['tools/call', { name: 'nope', arguments: {} }],
];

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const request = (i: number) => {
  const [method, params] = CONVERSATION[i] as (typeof CONVERSATION)[number];
  return { jsonrpc: '2.0', id: i + 1, method, params };
};

/** A front: how one conversation reaches the app over it, answers as the client sees them. */
interface Front {
  readonly name: string;
  converse(app: McpApp): Promise<string[]>;
}

const inMemory: Front = {
  name: 'in-memory (2025-11-25)',
  async converse(app) {
    const [client, server] = InMemoryTransport.createLinkedPair();
    await app.createServer().connect(server);
    const answers: string[] = [];
    let answered: (() => void) | undefined;
    client.onmessage = (message) => {
      answers.push(JSON.stringify(message));
      answered?.();
    };
    await client.start();
    const send = (message: object) =>
      new Promise<void>((resolve) => {
        answered = resolve;
        void client.send(message as JSONRPCMessage);
      });
    await send(INITIALIZE);
    await client.send(INITIALIZED as JSONRPCMessage);
    for (let i = 0; i < CONVERSATION.length; i++) await send(request(i));
    await client.close();
    return answers.slice(1);
  },
};

const stdio: Front = {
  name: 'stdio (2025-11-25)',
  async converse(app) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const handle = app.listenStdio({ stdin, stdout });
    const lines: string[] = [];
    let answered: (() => void) | undefined;
    let buffer = '';
    stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
        lines.push(buffer.slice(0, at));
        buffer = buffer.slice(at + 1);
        answered?.();
      }
    });
    const send = (message: object) =>
      new Promise<void>((resolve) => {
        answered = resolve;
        stdin.write(`${JSON.stringify(message)}\n`);
      });
    await send(INITIALIZE);
    stdin.write(`${JSON.stringify(INITIALIZED)}\n`);
    for (let i = 0; i < CONVERSATION.length; i++) await send(request(i));
    await handle.close();
    return lines.slice(1);
  },
};

/** A wider conversation a test has a session front hold instead of CONVERSATION. */
const CONVERSATION_OVERRIDE: { value?: readonly (readonly [string, Record<string, unknown>])[] } = {};

type SessionPost = (body: object, headers: Record<string, string>) => Promise<[number, string, string, string?, string?]>;

/** When on, a session front holds a 2025-03-26 session sending BATCHES instead of the conversation. */
const BATCH_MODE: { on?: boolean } = {};

/**
 * JSON-RPC batches (2025-03-26): requests the engine serves, one the SDK serves and a notification,
 * answered on one stream; notifications alone; a batch with a message the SDK's schema refuses.
 */
const BATCHES: readonly object[][] = [
  [
    { jsonrpc: '2.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    { jsonrpc: '2.0', id: 3, method: 'resources/list' },
    { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'refuse', arguments: {} } },
  ],
  [
    { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99 } },
  ],
  [
    { jsonrpc: '2.0', id: 5, method: 'ping' },
    { jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: { progressToken: { not: 'a token' } } } },
  ],
  [{ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search', arguments: { query: 'lamp' } } }],
];

/** A 2025-03-26 session over HTTP: the answer to its initialize, then each of BATCHES's (as `sessionOver`). */
async function batchesOver(post: SessionPost) {
  const initialize = { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: '2025-03-26' } };
  const [initStatus, initType, initBody, sessionId, initHeaders] = await post(initialize, {});
  const answers = [`${initStatus} ${initType} ${initBody}\n--\n${initHeaders}`];
  const headers = { 'mcp-session-id': sessionId as string, 'mcp-protocol-version': '2025-03-26' };
  await post(INITIALIZED, headers);
  for (const batch of BATCHES) {
    const [status, type, body, , answerHeaders] = await post(batch, headers);
    answers.push(`${status} ${type} ${body}\n--\n${answerHeaders}`);
  }
  return answers;
}

/**
 * The headers of an answer as one text, sorted, but for what differs from run to run: the date, and
 * the session's id (random), which is only said to be there.
 */
function headerText(headers: Iterable<[string, string | string[] | undefined]>): string {
  return [...headers]
    .filter(([name]) => name !== 'date')
    .map(([name, value]) => `${name}: ${name === 'mcp-session-id' ? '<session>' : String(value)}`)
    .sort()
    .join('\n');
}

/**
 * A 2025-11-25 session over HTTP: the answer to its initialize, then each exchange's, as
 * `status content-type body`, followed by its headers.
 */
async function sessionOver(post: SessionPost) {
  if (BATCH_MODE.on) return batchesOver(post);
  const [initStatus, initType, initBody, sessionId, initHeaders] = await post(INITIALIZE, {});
  const answers = [`${initStatus} ${initType} ${initBody}\n--\n${initHeaders}`];
  const headers = { 'mcp-session-id': sessionId as string, 'mcp-protocol-version': '2025-11-25' };
  await post(INITIALIZED, headers);
  const conversation = CONVERSATION_OVERRIDE.value ?? CONVERSATION;
  for (let i = 0; i < conversation.length; i++) {
    const [method, params] = conversation[i] as (typeof CONVERSATION)[number];
    const [status, type, body, , answerHeaders] = await post({ jsonrpc: '2.0', id: i + 1, method, params }, headers);
    answers.push(`${status} ${type} ${body}\n--\n${answerHeaders}`);
  }
  return answers;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const httpSession: Front = {
  name: 'HTTP session on node:http (2025-11-25)',
  async converse(app) {
    const listener = await app.listenHttp({ port: 0 });
    try {
      return await sessionOver(async (body, headers) => {
        const answer = await rawHttp(listener.url, { headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });
        const sessionId = answer.headers['mcp-session-id'] as string;
        return [answer.status, String(answer.headers['content-type']), answer.body, sessionId, headerText(Object.entries(answer.headers))];
      });
    } finally {
      await listener.close();
    }
  },
};

/** The SSE event ids of an answer, numbered in order of appearance (they are random per run). */
function numberedEventIds(body: string): string {
  let n = 0;
  return body.replace(/^id: .+$/gm, () => `id: <${++n}>`);
}

/**
 * A resumable 2025-11-25 session over node:http (an in-memory event store, a retry hint): each
 * answer opens with its priming event, and every message carries its event id.
 */
const httpResumable: Front = {
  name: 'HTTP resumable session on node:http (2025-11-25)',
  async converse(app) {
    const listener = await app.listenHttp({ port: 0, eventStore: true, retryIntervalMs: 1_500 });
    try {
      return await sessionOver(async (body, headers) => {
        const answer = await rawHttp(listener.url, { headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });
        const sessionId = answer.headers['mcp-session-id'] as string;
        const text = headerText(Object.entries(answer.headers));
        return [answer.status, String(answer.headers['content-type']), numberedEventIds(answer.body), sessionId, text];
      });
    } finally {
      await listener.close();
    }
  },
};

/** A session through the fetch face (`httpHandler(options)`). */
function fetchSession(name: string, options: Parameters<McpApp['httpHandler']>[0] = {}): Front {
  return {
    name,
    async converse(app) {
      const handler = app.httpHandler(options);
      try {
        return await sessionOver(async (body, headers) => {
          const response = await handler.fetch(
            new Request('http://127.0.0.1/mcp', {
              method: 'POST',
              headers: { ...JSON_HEADERS, host: '127.0.0.1', ...headers },
              body: JSON.stringify(body),
            }),
          );
          return [
            response.status,
            String(response.headers.get('content-type')),
            numberedEventIds(await response.text()),
            response.headers.get('mcp-session-id') ?? undefined,
            headerText(response.headers),
          ];
        });
      } finally {
        await handler.close();
      }
    },
  };
}

const httpFetch = fetchSession('HTTP session through fetch (2025-11-25)');

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

const httpModern: Front = {
  name: 'HTTP on node:http (2026-07-28)',
  async converse(app) {
    const listener = await app.listenHttp({ port: 0 });
    try {
      return await modernOver(async (body, headers) => {
        const answer = await rawHttp(listener.url, { headers, body: JSON.stringify(body) });
        return `${answer.status} ${answer.headers['content-type']} ${answer.body}`;
      });
    } finally {
      await listener.close();
    }
  },
};

/** The conversation as 2026-07-28 requests, each answered by `post` as `status content-type body`. */
async function modernOver(post: (body: object, headers: Record<string, string>) => Promise<string>) {
  const answers: string[] = [];
  for (let i = 0; i < CONVERSATION.length; i++) {
    const { id, method, params } = request(i);
    const name = (params as { name?: string }).name;
    const headers = { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(name ? { 'mcp-name': name } : {}) };
    answers.push(await post({ jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } }, headers));
  }
  return answers;
}

const httpFetchModern: Front = {
  name: 'HTTP through fetch (2026-07-28)',
  async converse(app) {
    const handler = app.httpHandler();
    try {
      return await modernOver(async (body, headers) => {
        const response = await handler.fetch(
          new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...headers, host: '127.0.0.1' }, body: JSON.stringify(body) }),
        );
        return `${response.status} ${response.headers.get('content-type')} ${await response.text()}`;
      });
    } finally {
      await handler.close();
    }
  },
};

/** What the engine answers on each front: the whole conversation, but ping on 2026-07-28 (not a method there). */
const SERVED: Record<string, number> = {
  [inMemory.name]: CONVERSATION.length,
  [stdio.name]: CONVERSATION.length,
  [httpSession.name]: CONVERSATION.length,
  [httpResumable.name]: CONVERSATION.length,
  [httpFetch.name]: CONVERSATION.length,
  [httpModern.name]: CONVERSATION.length - 1,
  [httpFetchModern.name]: CONVERSATION.length - 1,
};

async function converse(front: Front, requestEngine: boolean): Promise<{ answers: string[]; served: number }> {
  const app = createMcpApp(FrontServer, { onError: () => undefined, exposeErrors: true, requestEngine });
  try {
    const answers = await front.converse(app);
    return { answers, served: app.stats.engine };
  } finally {
    await app.close();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** The fetch face with an in-memory event store. */
const httpFetchResumable = fetchSession('HTTP resumable session through fetch (2025-11-25)', { eventStore: true, retryIntervalMs: 1_500 });

/** The 2025-11-25 sessions over HTTP: both faces, plain and resumable. */
const SESSION_FRONTS = [httpSession, httpResumable, httpFetch, httpFetchResumable];

describe.each(SESSION_FRONTS)('$name', (front) => {
  it("answers the initialize and every request on Armature's own stream, engine on or off: the SDK's session transport sees none", async () => {
    // The self-checks' probes (once per process) are not the conversation's.
    await Promise.all([sessionFramingChecked(), sessionState()]);
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    await converse(front, true);
    const viaEngine = handled.mock.calls.length;
    handled.mockClear();
    await converse(front, false);
    expect([viaEngine, handled.mock.calls.length]).toEqual([0, 0]);
  });
});

/**
 * Requests the engine does not serve, answered on Armature's stream by the SDK's request handling
 * (a method the server lacks, a log level), and one refused before any stream (a progress token
 * that is an object).
 */
const BEYOND_ENGINE: readonly (readonly [string, Record<string, unknown>])[] = [
  ['resources/list', {}],
  ['logging/setLevel', { level: 'info' }],
  ['tools/list', { _meta: { progressToken: { not: 'a token' } } }],
];

/** `front`'s answers on `app` (closed after) to the initialize, the conversation and then BEYOND_ENGINE. */
async function widerConversation(front: Front, app: McpApp): Promise<string[]> {
  CONVERSATION_OVERRIDE.value = [...CONVERSATION, ...BEYOND_ENGINE];
  try {
    return await front.converse(app);
  } finally {
    CONVERSATION_OVERRIDE.value = undefined;
    await app.close();
  }
}

const appWith = (requestEngine: boolean) => createMcpApp(FrontServer, { onError: () => undefined, exposeErrors: true, requestEngine });

describe.each(SESSION_FRONTS)("Armature's own session stream: $name", (front) => {
  it("writes every answer, the initialize's included, as the SDK's session transport does when the framing self-check fails (headers too), engine on and off", async () => {
    const own = await widerConversation(front, appWith(false));
    const ownWithEngine = await widerConversation(front, appWith(true));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    sdkAnswersAtOnceAsJson();
    const framedBySdk = await widerConversation(front, await sdkFramedApp());
    // The probes' ten requests, then the initialize, its notification and every request: all the
    // SDK's (but the last, refused before any transport).
    expect(handled.mock.calls.length).toBe(10 + 2 + CONVERSATION.length + BEYOND_ENGINE.length - 1);
    expect(own).toEqual(framedBySdk);
    expect(ownWithEngine).toEqual(framedBySdk);
    // The initialize's answer is there, carrying the session's id: on an event stream, or one JSON
    // body in a resumable session (answered at once).
    expect(framedBySdk[0]).toMatch(/^200 (text\/event-stream|application\/json) .*"result":\{"protocolVersion":"2025-11-25"/s);
    expect(framedBySdk[0]).toContain('\nmcp-session-id: <session>');
    // What the SDK answers beyond the engine is there: a method error, a log level set, a refusal.
    const [unknown, level, refused] = framedBySdk.slice(1 + CONVERSATION.length);
    expect(unknown).toContain('"error":{"code":-32601,"message":"Method not found"}');
    expect(level).toMatch(/"result":\{\},"jsonrpc":"2.0","id":13\}/);
    expect(refused).toMatch(/^400 application\/json/);
  });
});

/** `front`'s answers on `app` (closed after) to a 2025-03-26 session's BATCHES. */
async function batchConversation(front: Front, app: McpApp): Promise<string[]> {
  BATCH_MODE.on = true;
  try {
    return await front.converse(app);
  } finally {
    BATCH_MODE.on = false;
    await app.close();
  }
}

describe.each(SESSION_FRONTS)("JSON-RPC batches (2025-03-26) on Armature's own session stream: $name", (front) => {
  it("are answered as the SDK's session transport answers them when the framing self-check fails (headers too)", async () => {
    await Promise.all([sessionFramingChecked(), sessionState()]);
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const own = await batchConversation(front, appWith(true));
    expect(handled.mock.calls.length).toBe(0);
    handled.mockClear();
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    sdkAnswersAtOnceAsJson();
    const framedBySdk = await batchConversation(front, await sdkFramedApp());
    // The probes' ten requests, then the initialize, its notification and every batch (but the one
    // refused before any transport).
    expect(handled.mock.calls.length).toBe(10 + 2 + BATCHES.length - 1);
    expect(own).toEqual(framedBySdk);
    const [init, mixed, notifications, refused, single] = framedBySdk;
    expect(init).toContain('"protocolVersion":"2025-03-26"');
    // Four answers on one stream (no priming event before 2025-11-25), a tool's result among them.
    expect(mixed?.match(/event: message\n/g)).toHaveLength(4);
    expect(mixed).toContain('{"type":"text","text":"5"}');
    expect(mixed).toContain('"id":3');
    expect(notifications).toMatch(/^202 /);
    expect(refused).toMatch(/^400 application\/json/);
    expect(single).toMatch(/^200 text\/event-stream (id: <1>\n)?event: message\n/);
  });
});

describe.each([httpSession, httpFetchResumable])('the session state self-check flipped, on $name', (front) => {
  it("has the SDK's session transport answer the initialize, with the same bytes, and Armature every request after it", async () => {
    const own = await widerConversation(front, appWith(true));
    flipSessionStateCheck();
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const fresh = await import('../src/index.js');
    const { FrontServer: FreshServer } = await import('./support/front-server.js');
    const app = fresh.createMcpApp(FreshServer, { onError: () => undefined, exposeErrors: true, requestEngine: true });
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    // Both self-checks done first (until the framing one is, every session exchange is the SDK's).
    await (await import('../src/transports/wire/sse-format.js')).sessionFramingChecked();
    await (await import('../src/seams/sdk-session-state.js')).sessionState();
    sdkAnswersAtOnceAsJson();
    expect(await widerConversation(front, app)).toEqual(own);
    expect(said.mock.calls.join('')).toContain('the negotiated revision does not read back');
    // The framing probes' ten requests, the state probe's one, and the initialize.
    expect(handled.mock.calls.length).toBe(10 + 1 + 1);
  });
});

describe('the session framing self-check flipped', () => {
  it("frames every session answer with the SDK's transport, with the same bytes, and says why once", async () => {
    const viaSdk = await converse(httpSession, false);
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const app = await sdkFramedApp();
    try {
      const answers = await httpSession.converse(app);
      expect(answers).toEqual(viaSdk.answers);
      expect(said.mock.calls.join('')).toContain("framed by the SDK's session transport");
      // The probes' ten requests, then the handshake and every request of the conversation.
      expect(handled.mock.calls.length).toBe(10 + 2 + CONVERSATION.length);
    } finally {
      await app.close();
    }
  });
});

describe('a resumable session answered by the engine', () => {
  it('answers a call answered at once with one JSON body carrying the session id, as the SDK does with enableJsonResponse', async () => {
    const viaEngine = await converse(httpResumable, true);
    expect(viaEngine.answers[3]).toMatch(/^200 application\/json \{"result":\{"content":\[\{"type":"text","text":"5"\}\]\}/);
    expect(viaEngine.answers[3]).toContain('\nmcp-session-id: <session>');
  });
});

describe.each([inMemory, stdio, httpSession, httpResumable, httpFetch, httpModern, httpFetchModern])(
  'the request engine on $name',
  (front) => {
    it('answers the conversation with the same bytes as the SDK path, and answered it itself', async () => {
      const viaSdk = await converse(front, false);
      const viaEngine = await converse(front, true);
      expect(viaEngine.answers).toEqual(viaSdk.answers);
      expect(viaSdk.served).toBe(0);
      expect(viaEngine.served).toBe(SERVED[front.name]);
      // The conversation holds what it claims: a result, a tool error and a JSON-RPC error.
      const text = viaSdk.answers.join('\n');
      expect(text).toContain('{"type":"text","text":"5"}');
      expect(text).toContain('No stock left');
      expect(text).toContain('Invalid tools/call result');
    });

    it('is seen by that comparison: an engine that answers differently fails it', async () => {
      const run = RequestEngine.prototype.run;
      vi.spyOn(RequestEngine.prototype, 'run').mockImplementation(async function (this: RequestEngine, ...args) {
        const answer = await run.apply(this, args);
        return answer && 'result' in answer ? { ...answer, result: { ...(answer.result as object), tampered: true } } : answer;
      });
      const viaSdk = await converse(front, false);
      const viaEngine = await converse(front, true);
      expect(viaEngine.answers).not.toEqual(viaSdk.answers);
    });
  },
);

/** The era codec's accessor, which the seam's self-check reads on its probe server. */
type CodecAccessor = { _wireCodec(this: Server): { era: string } };

describe.each([inMemory, stdio, httpSession, httpResumable, httpFetch])('the seam self-check flipped, on $name', (front) => {
  it('serves everything through the SDK, with the same bytes as with the engine off', async () => {
    const viaSdk = await converse(front, false);
    // Fresh modules: the self-check runs again (once per process otherwise), on a probe whose
    // codec reports the wrong era, as an SDK whose internals changed would.
    vi.resetModules();
    const prototype = Server.prototype as unknown as CodecAccessor;
    const original = prototype._wireCodec;
    vi.spyOn(prototype, '_wireCodec').mockImplementation(function (this: Server) {
      const codec = original.call(this);
      const isProbe = (this as unknown as { _serverInfo?: { name?: string } })._serverInfo?.name === 'probe';
      return isProbe ? Object.create(codec, { era: { value: 'flipped' } }) : codec;
    });
    const said = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const fresh = await import('../src/index.js');
    const { FrontServer: FreshServer } = await import('./support/front-server.js');
    const app = fresh.createMcpApp(FreshServer, { onError: () => undefined, exposeErrors: true, requestEngine: true });
    try {
      const answers = await front.converse(app);
      expect(answers).toEqual(viaSdk.answers);
      expect(app.stats.engine).toBe(0);
      expect(said.mock.calls.join('')).toContain('reports era flipped');
    } finally {
      await app.close();
    }
  });
});

/** A keep-alive comment: when one comes depends on the machine's speed. */
const KEEP_ALIVE = ': keepalive\n\n';

/**
 * A session's GET streams over node:http, each step as `status content-type body` (event ids
 * numbered): the standalone stream gets a list change, a second GET is refused, the client drops
 * the stream and another change is sent meanwhile, the client resumes with the last id it saw
 * (and gets the change, on a stream that stays open for the next), resumes from the start, and
 * presents an id that is not the session's; then the session ends.
 */
async function streamConversation(app: McpApp, resumable: boolean): Promise<string[]> {
  const listener = await app.listenHttp({ port: 0, ...(resumable ? { eventStore: true, retryIntervalMs: 1_500 } : {}) });
  try {
    const init = await rawHttp(listener.url, { headers: JSON_HEADERS, body: JSON.stringify(INITIALIZE) });
    const session = { 'mcp-session-id': init.headers['mcp-session-id'] as string, 'mcp-protocol-version': '2025-11-25' };
    await rawHttp(listener.url, { headers: { ...JSON_HEADERS, ...session }, body: JSON.stringify(INITIALIZED) });
    const get = (extra: Record<string, string> = {}) => holdStream(listener.url, { accept: 'text/event-stream', ...session, ...extra });
    const steps: string[] = [];
    const step = (stream: { status: number; contentType: string }, body: string) =>
      steps.push(`${stream.status} ${stream.contentType} ${numberedEventIds(body.replaceAll(KEEP_ALIVE, ''))}`);
    const first = await get();
    const second = await get();
    step(second, await second.ended());
    app.tools.disable('add');
    const seen = await first.events(1);
    step(first, seen);
    first.drop();
    app.tools.enable('add');
    // The change reached the store (or nowhere, without one) once the server saw the client go.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const resumed = await get({ 'last-event-id': lastEventId(seen) || 'none' });
    app.tools.disable('search');
    const afterResume = await resumed.events(resumable ? 2 : 1);
    step(resumed, afterResume);
    const conflict = await get({ 'last-event-id': lastEventId(seen) || 'none' });
    step(conflict, await conflict.ended());
    resumed.drop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Without an event store a Last-Event-ID is not read: that GET would open the standalone stream.
    if (resumable) {
      const foreign = await get({ 'last-event-id': 'not-an-event-of-this-session' });
      step(foreign, await foreign.ended());
    }
    const deleted = await rawHttp(listener.url, { method: 'DELETE', headers: { ...JSON_HEADERS, ...session } });
    steps.push(`${deleted.status} ${deleted.body}`);
    return steps;
  } finally {
    await listener.close();
  }
}

/**
 * An app on fresh modules, so that the framing self-check runs again, on a probe whose transport
 * frames an event its own way: every session exchange is then framed by the SDK's transport.
 */
async function sdkFramedApp(): Promise<McpApp> {
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
  const fresh = await import('../src/index.js');
  const { FrontServer: FreshServer } = await import('./support/front-server.js');
  return fresh.createMcpApp(FreshServer, { onError: () => undefined, exposeErrors: true, requestEngine: true });
}

/** The SDK transport's own `handleRequest`, before any spy. */
const SDK_HANDLE_REQUEST = WebStandardStreamableHTTPServerTransport.prototype.handleRequest;

/**
 * Has the SDK's session transport of a resumable session answer each POST of one request with its
 * JSON framing (`enableJsonResponse`, read per POST), as Armature answers a request answered within
 * the turn it came in with nothing before its answer: the SDK's own bytes to compare those answers
 * with. The conversations here have only such requests; batches keep the SDK's SSE framing.
 */
function sdkAnswersAtOnceAsJson(): void {
  const original = SDK_HANDLE_REQUEST;
  vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest').mockImplementation(function (
    this: WebStandardStreamableHTTPServerTransport,
    request,
    options,
  ) {
    const own = this as unknown as { _eventStore?: unknown; _enableJsonResponse: boolean; sessionId?: string };
    const probe = own.sessionId === 'armature-probe-session';
    own._enableJsonResponse = !probe && own._eventStore !== undefined && !Array.isArray(options?.parsedBody);
    return original.call(this, request, options);
  });
}

describe.each([false, true])("a session's GET streams (resumable: %s)", (resumable) => {
  it("are written by Armature's session transport as the SDK's writes them, and resumed from the event store", async () => {
    await sessionFramingChecked();
    const handled = vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest');
    const app = createMcpApp(FrontServer, { onError: () => undefined, exposeErrors: true });
    let own: string[];
    try {
      own = await streamConversation(app, resumable);
    } finally {
      await app.close();
    }
    // Nothing went through the SDK's transport.
    expect(handled.mock.calls.length).toBe(0);
    vi.restoreAllMocks();
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const sdkApp = await sdkFramedApp();
    let framedBySdk: string[];
    try {
      framedBySdk = await streamConversation(sdkApp, resumable);
    } finally {
      await sdkApp.close();
    }
    expect(own).toEqual(framedBySdk);
    const changed = 'data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}';
    expect(own[0]).toBe(
      '409 application/json {"jsonrpc":"2.0","error":{"code":-32000,"message":"Conflict: Only one SSE stream is allowed per session"},"id":null}',
    );
    expect(own[1]).toMatch(/^200 text\/event-stream event: message\n/);
    expect(own[1]).toContain(changed);
    // Resumed: the change sent while the client was away, then the next one on the same stream.
    if (resumable) {
      expect(own[2]).toMatch(/^200 text\/event-stream event: message\nid: <1>\ndata: \{.*\}\n\nevent: message\nid: <2>\n/);
      expect(own[3]).toMatch(/^409 application\/json .*Conflict: Stream already has an active connection/);
      expect(own[4]).toMatch(/^404 application\/json .*Event stream not found/);
    }
    expect(own.at(-1)).toBe('200 ');
  }, 60_000);
});

class Steps {
  @IsInt()
  @Min(0)
  @Max(5)
  steps!: number;
}

/** Tools that send notifications before their answer (and one after it). */
@McpServer({ name: 'notifying', version: '1.0.0' })
class NotifyingServer extends EngineTools {
  @Tool({ description: 'logs a line at each of five levels' })
  async chatty(ctx: Context) {
    for (const level of ['debug', 'info', 'warning', 'error', 'alert'] as const) await ctx.log[level](`${level} line`, { level });
    return 'logged';
  }

  @Tool({ description: 'reports progress per step' })
  async work(input: Steps, ctx: Context) {
    for (let i = 1; i <= input.steps; i++) await ctx.progress(i, input.steps, `step ${i}`);
    return `worked ${input.steps}`;
  }

  @Tool({ description: 'logs and reports progress' })
  async both(ctx: Context) {
    await ctx.log.info('starting');
    await ctx.progress(1, 2);
    await ctx.log.debug('halfway');
    await ctx.progress(2, 2, 'done');
    return 'both';
  }

  @Tool({ description: 'logs and reports progress, then fails' })
  async fails(ctx: Context): Promise<string> {
    await ctx.log.error('about to fail');
    await ctx.progress(1, 2);
    throw new Error('disk on fire');
  }

  @Tool({ description: 'logs and reports progress, then refuses' })
  async refuses(ctx: Context): Promise<string> {
    await ctx.log.warning('no stock');
    await ctx.progress(1);
    throw new ToolError('No stock left', { sku: 'A1' });
  }

  @Tool({ description: "what the call sees of its request's _meta" })
  seen(ctx: Context) {
    return JSON.stringify(ctx.meta);
  }

  @Tool({ description: 'answers, then logs and reports progress' })
  late(ctx: Context) {
    setTimeout(() => {
      void ctx.log.error('too late');
      void ctx.progress(1, 1);
    }, 5);
    return 'early';
  }
}

/** One 2026-07-28 request of the notifying conversation: its method, params and `_meta` beside the envelope. */
type Notifying = readonly [method: string, params: Record<string, unknown>, meta: Record<string, unknown>, accept?: string];

const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const HUGE_TOKEN = 't'.repeat(200_000);

/** Requests the engine serves: log levels, progress tokens, both, failures after notifications, a JSON-only client. */
const NOTIFYING: readonly Notifying[] = [
  ['tools/call', { name: 'chatty', arguments: {} }, { [LOG_LEVEL]: 'warning' }],
  ['tools/call', { name: 'chatty', arguments: {} }, { [LOG_LEVEL]: 'debug' }],
  ['tools/call', { name: 'chatty', arguments: {} }, { [LOG_LEVEL]: 'emergency' }],
  ['tools/call', { name: 'work', arguments: { steps: 2 } }, { progressToken: 'p-1' }],
  ['tools/call', { name: 'work', arguments: { steps: 3 } }, { progressToken: 0 }],
  ['tools/call', { name: 'work', arguments: { steps: 0 } }, { progressToken: -9_007_199_254_740_991 }],
  ['tools/call', { name: 'both', arguments: {} }, { [LOG_LEVEL]: 'info', progressToken: 7 }],
  ['tools/call', { name: 'both', arguments: {} }, { progressToken: 'only-progress' }],
  ['tools/call', { name: 'fails', arguments: {} }, { [LOG_LEVEL]: 'info', progressToken: 'f' }],
  ['tools/call', { name: 'refuses', arguments: {} }, { [LOG_LEVEL]: 'debug', progressToken: 'r' }],
  ['tools/call', { name: 'work', arguments: { steps: 9 } }, { [LOG_LEVEL]: 'debug', progressToken: 'refused' }],
  ['tools/call', { name: 'nope', arguments: {} }, { [LOG_LEVEL]: 'debug', progressToken: 'unknown tool' }],
  ['tools/call', { name: 'late', arguments: {} }, { [LOG_LEVEL]: 'debug', progressToken: 'late' }],
  ['tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, { [LOG_LEVEL]: 'info' }],
  ['tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, { progressToken: 'quiet' }],
  ['tools/list', {}, { [LOG_LEVEL]: 'info', progressToken: 'list' }],
  ['tools/call', { name: 'both', arguments: {} }, { [LOG_LEVEL]: 'debug', progressToken: 'j' }, 'application/json'],
  ['tools/call', { name: 'add', arguments: { a: 1, b: 1 } }, { [LOG_LEVEL]: 'debug' }, 'application/json'],
  ['tools/call', { name: 'work', arguments: { steps: 1 } }, { progressToken: HUGE_TOKEN }],
  ['tools/call', { name: 'seen', arguments: {} }, { [LOG_LEVEL]: 'info', progressToken: 'm' }],
  ['tools/call', { name: 'seen', arguments: {} }, { [LOG_LEVEL]: 'info' }],
];

/** Hostile `_meta`: every one refused or declined, and answered as the SDK answers it. */
const HOSTILE: readonly Notifying[] = [
  ['tools/call', { name: 'chatty', arguments: {} }, { [LOG_LEVEL]: 5 }],
  ['tools/call', { name: 'chatty', arguments: {} }, { [LOG_LEVEL]: 'verbose' }],
  ['tools/call', { name: 'chatty', arguments: {} }, { [LOG_LEVEL]: 'WARNING' }],
  ['tools/call', { name: 'chatty', arguments: {} }, { [LOG_LEVEL]: null }],
  ['tools/call', { name: 'chatty', arguments: {} }, { [LOG_LEVEL]: ['debug'] }],
  ['tools/call', { name: 'chatty', arguments: {} }, { [LOG_LEVEL]: 'x'.repeat(100_000) }],
  ['tools/call', { name: 'work', arguments: { steps: 1 } }, { progressToken: { not: 'a token' } }],
  ['tools/call', { name: 'work', arguments: { steps: 1 } }, { progressToken: 1.5 }],
  ['tools/call', { name: 'work', arguments: { steps: 1 } }, { progressToken: 2 ** 53 }],
  ['tools/call', { name: 'work', arguments: { steps: 1 } }, { progressToken: null }],
  ['tools/call', { name: 'work', arguments: { steps: 1 } }, { progressToken: true }],
  ['tools/call', { name: 'work', arguments: { steps: 1 } }, { progressToken: ['p'] }],
  ['tools/call', { name: 'work', arguments: { steps: 1 } }, { progressToken: 'p', 'example.com/extra': 1 }],
  ['tools/call', { name: 'chatty', arguments: {} }, { [LOG_LEVEL]: 'info', 'io.modelcontextprotocol/other': 'x' }],
];

/**
 * Headers left out of the comparison on node:http: the moment of the answer, and how the message is
 * framed (the engine sends a JSON answer with its Content-Length, as it does every JSON answer, where
 * the SDK path's web `Response` is written chunked; the bytes of the body are the same).
 */
const UNCOMPARED = new Set(['date', 'content-length', 'transfer-encoding']);

/** `requests` as 2026-07-28 POSTs, each answered by `post` as `status headers body`. */
async function notifyingOver(
  requests: readonly Notifying[],
  post: (body: string, headers: Record<string, string>) => Promise<string>,
): Promise<string[]> {
  const answers: string[] = [];
  for (const [i, [method, params, meta, accept]] of requests.entries()) {
    const name = (params as { name?: string }).name;
    const headers = {
      ...JSON_HEADERS,
      ...(accept ? { accept } : {}),
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id: i + 1, method, params: { ...params, _meta: { ...ENVELOPE, ...meta } } });
    answers.push(await post(body, headers));
  }
  return answers;
}

/** A face of the 2026-07-28 endpoint: the answers to `requests`, headers and all. */
interface ModernFace {
  readonly name: string;
  answers(app: McpApp, requests: readonly Notifying[]): Promise<string[]>;
}

const nodeFace: ModernFace = {
  name: 'node:http',
  async answers(app, requests) {
    const listener = await app.listenHttp({ port: 0 });
    try {
      return await notifyingOver(requests, async (body, headers) => {
        const answer = await rawHttp(listener.url, { headers, body });
        const lines: string[] = [];
        for (let i = 0; i < answer.rawHeaders.length; i += 2) {
          const name = answer.rawHeaders[i] as string;
          if (!UNCOMPARED.has(name.toLowerCase())) lines.push(`${name}: ${answer.rawHeaders[i + 1]}`);
        }
        return `${answer.status}\n${lines.join('\n')}\n\n${answer.body}`;
      });
    } finally {
      await listener.close();
    }
  },
};

const fetchFace: ModernFace = {
  name: 'fetch',
  async answers(app, requests) {
    const handler = app.httpHandler();
    try {
      return await notifyingOver(requests, async (body, headers) => {
        const response = await handler.fetch(
          new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...headers, host: '127.0.0.1' }, body }),
        );
        const lines = [...response.headers].map(([name, value]) => `${name}: ${value}`);
        return `${response.status}\n${lines.join('\n')}\n\n${await response.text()}`;
      });
    } finally {
      await handler.close();
    }
  },
};

async function notifyingConversation(face: ModernFace, requests: readonly Notifying[], requestEngine: boolean) {
  const app = createMcpApp(NotifyingServer, { onError: () => undefined, exposeErrors: true, requestEngine });
  try {
    const answers = await face.answers(app, requests);
    // What a call sends after its answer (`late`) has had its moment.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { answers, served: app.stats.engine };
  } finally {
    await app.close();
  }
}

describe.each([nodeFace, fetchFace])('2026-07-28 requests that carry a log level or a progress token, over $name', (face) => {
  it("are answered by the engine with the SDK path's status, headers and bytes: JSON, or SSE when notifications come first", async () => {
    const viaSdk = await notifyingConversation(face, NOTIFYING, false);
    const viaEngine = await notifyingConversation(face, NOTIFYING, true);
    expect(viaEngine.answers).toEqual(viaSdk.answers);
    expect(viaSdk.served).toBe(0);
    expect(viaEngine.served).toBe(NOTIFYING.length);
    const [
      warning,
      debug,
      emergency,
      progress,
      ,
      noSteps,
      both,
      ,
      fails,
      refuses,
      invalid,
      unknown,
      late,
      add,
      quiet,
      list,
      jsonOnly,
      jsonAdd,
      huge,
      seen,
      unseen,
    ] = viaSdk.answers as string[];
    // Log lines at or above the level only, before the answer, on an event stream.
    expect(warning).toMatch(/^200\n.*content-type: text\/event-stream/is);
    expect(warning).toContain('"level":"warning"');
    expect(warning).toContain('"level":"error"');
    expect(warning).not.toContain('"level":"info"');
    expect(debug).toContain('"level":"debug"');
    expect(emergency).toMatch(/^200\n.*content-type: application\/json.*\n\n\{"result"/is);
    expect(progress).toContain('"method":"notifications/progress","params":{"progressToken":"p-1","progress":2,"total":2');
    expect(noSteps).toContain('content-type: application/json');
    expect(both).toContain('"progressToken":7');
    expect(both).not.toContain('halfway');
    // A call that fails after its notifications: the error is the stream's last event.
    expect(fails).toMatch(/"about to fail".*notifications\/progress.*disk on fire/s);
    expect(refuses).toMatch(/"no stock".*No stock left/s);
    expect(invalid).toContain('content-type: application/json');
    expect(unknown).toContain('nope');
    // What a call sends after its answer is not sent.
    expect(late).toContain('content-type: application/json');
    expect(late).not.toContain('too late');
    expect(add).toContain('{"type":"text","text":"5"}');
    expect(quiet).toContain('content-type: application/json');
    expect(list).toContain('"tools":[');
    expect(jsonOnly).toContain('"data":"halfway"');
    expect(jsonAdd).toContain('{"type":"text","text":"2"}');
    expect(huge).toContain(`"progressToken":"${HUGE_TOKEN}"`);
    // The handler sees what stays `_meta` once the envelope is lifted out: the progress token only.
    expect(seen).toContain(String.raw`"text":"{\"progressToken\":\"m\"}"`);
    expect(unseen).toContain('"text":"{}"');
  }, 60_000);

  it('refuse or decline hostile `_meta` values exactly as the SDK does, and leave them to it', async () => {
    const viaSdk = await notifyingConversation(face, HOSTILE, false);
    const viaEngine = await notifyingConversation(face, HOSTILE, true);
    expect(viaEngine.answers).toEqual(viaSdk.answers);
    expect(viaEngine.served).toBe(0);
    // Wrong types and unknown level names are refused before any handler; other `_meta` is served (by the SDK).
    const statuses = viaSdk.answers.map((answer) => answer.slice(0, 3));
    expect(statuses).toEqual([...Array(HOSTILE.length - 2).fill('400'), '200', '200']);
  }, 60_000);

  it('is seen by that comparison: an engine that streams differently fails it', async () => {
    const viaSdk = await notifyingConversation(face, NOTIFYING.slice(0, 1), false);
    vi.spyOn(RequestEngine.prototype, 'run').mockImplementation(async function (this: RequestEngine, exchange) {
      // Sends nothing before the answer, as an engine that ignored the log level would.
      return { jsonrpc: '2.0', id: exchange.id, result: { content: [{ type: 'text', text: 'logged' }] } } as JSONRPCMessage;
    });
    const viaEngine = await notifyingConversation(face, NOTIFYING.slice(0, 1), true);
    expect(viaEngine.answers).not.toEqual(viaSdk.answers);
  });
});
