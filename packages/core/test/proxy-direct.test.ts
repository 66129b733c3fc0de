// The direct path of a gateway's tool calls to a 2026-07-28 Streamable HTTP remote (one POST on a
// pooled keep-alive connection, not the official client): its answers are the official client's,
// byte for byte, and a remote answering garbage, huge or slow bodies, the wrong Content-Type,
// redirects or a broken stream gets its caller a clear error while the gateway stays up. The remote
// is the SDK's createMcpHandler on 127.0.0.1 whose tools/call answers can be scripted per test.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMcpApp, remoteServer } from '../src/index.js';
import { clientSdk } from '../src/remote/client-sdk.js';
import { DirectCall } from '../src/remote/direct-call.js';
import { type ClientCodec, clientCodecOf } from '../src/seams/client-codec.js';
import { connectHttp, readyInMemory } from './support/clients.js';

type Json = Record<string, unknown>;
type Script = (req: IncomingMessage, body: Json, res: ServerResponse) => void;

/** A remote: the SDK's 2026-07-28 handler, tools/call answered by `script` when one is set. */
class ScriptedRemote {
  script: Script | undefined;
  /** The tools/call requests it received: headers and body. */
  readonly received: { headers: IncomingMessage['headers']; body: Json }[] = [];
  /** The TCP connections it accepted. */
  connections = 0;
  url = '';
  private readonly http: HttpServer;

  constructor() {
    const server = () => {
      const s = new Server({ name: 'scripted', version: '1.0.0' }, { capabilities: { tools: {} } });
      s.setRequestHandler('tools/list', async () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
      s.setRequestHandler('tools/call', async () => ({ content: [{ type: 'text', text: 'from the SDK' }] }));
      return s;
    };
    const handler = toNodeHandler(createMcpHandler(server));
    this.http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = (text ? JSON.parse(text) : undefined) as Json | undefined;
        if (body?.method === 'tools/call') {
          this.received.push({ headers: req.headers, body });
          if (this.script) return this.script(req, body, res);
        }
        void handler(req, res, body);
      });
    });
    this.http.on('connection', () => this.connections++);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.http.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
    return this;
  }

  async stop(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise((resolve) => this.http.close(resolve));
  }
}

/** Answers tools/call with `result` (JSON-RPC `result`, `resultType` added unless given) as a JSON body. */
const jsonAnswer =
  (result: unknown): Script =>
  (_req, body, res) => {
    const payload = JSON.stringify({ jsonrpc: '2.0', id: body.id, result });
    res.writeHead(200, { 'content-type': 'application/json' }).end(payload);
  };

/** Answers tools/call as an event stream of `messages` (`id` filled in), then ends it. */
const streamAnswer =
  (messages: (id: unknown) => Json[]): Script =>
  (_req, body, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const message of messages(body.id)) res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...message })}\n\n`);
    res.end();
  };

/** Answers tools/call as an event stream of `messages`, written `size` bytes at a time, each piece on its own turn of the event loop. */
const piecewiseStreamAnswer =
  (messages: (id: unknown) => Json[], size: number): Script =>
  async (_req, body, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const bytes = Buffer.from(
      messages(body.id)
        .map((message) => `data: ${JSON.stringify({ jsonrpc: '2.0', ...message })}\n\n`)
        .join(''),
    );
    for (let at = 0; at < bytes.length; at += size) {
      res.write(bytes.subarray(at, at + size));
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  };

let remote: ScriptedRemote;

beforeAll(async () => {
  remote = await new ScriptedRemote().start();
});
afterAll(() => remote.stop());
afterEach(() => {
  remote.script = undefined;
  remote.received.length = 0;
  vi.restoreAllMocks();
});

describe('the direct path and the official client, on the same remote', () => {
  let client: Client;
  let direct: DirectCall;

  beforeAll(async () => {
    const sdk = await clientSdk();
    const capabilities = { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };
    const info = { name: 'gateway', version: '1.0.0' };
    client = new Client(info, { capabilities, versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(remote.url), { requestInit: { headers: { 'x-key': 'k' } } }));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    direct = await DirectCall.open(
      new URL(remote.url),
      { 'x-key': 'k' },
      {
        [sdk.PROTOCOL_VERSION_META_KEY]: '2026-07-28',
        [sdk.CLIENT_INFO_META_KEY]: info,
        [sdk.CLIENT_CAPABILITIES_META_KEY]: capabilities,
      },
      sdk,
      clientCodecOf(client) as ClientCodec,
    );
  });
  afterAll(async () => {
    direct.close();
    await client.close();
  });

  const params = { name: 'echo', arguments: { q: 'é' }, _meta: { traceparent: '00-1-2-01' } };
  const options = { signal: new AbortController().signal, timeoutMs: 10_000, headers: { 'Mcp-Param-Q': 'x' }, onlog: () => undefined };
  const outcome = (promise: Promise<unknown>) =>
    promise.then(
      (value) => ({ value }),
      (error: Error & { code?: unknown }) => ({ error: { type: error.constructor.name, code: error.code } }),
    );

  it('sends the request the official client sends: body, envelope and headers', async () => {
    await client.request({ method: 'tools/call', params } as never, { headers: { 'Mcp-Param-Q': 'x' }, allowInputRequired: true });
    await direct.call(params, options);
    const [official, ours] = remote.received;
    const { id: _a, ...officialBody } = official?.body ?? {};
    const { id: _b, ...ourBody } = ours?.body ?? {};
    expect(ourBody).toEqual(officialBody);
    const headers = (h: IncomingMessage['headers'] = {}) => {
      const {
        host: _h,
        connection: _c,
        'content-length': _l,
        'user-agent': _u,
        'accept-encoding': _e,
        'accept-language': _g,
        'sec-fetch-mode': _s,
        ...rest
      } = h;
      return rest;
    };
    expect(headers(ours?.headers)).toEqual(headers(official?.headers));
    expect(ours?.headers['mcp-name']).toBe('echo');
  });

  const block = fc.oneof(
    fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 20 }) }),
    fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 5 }), extra: fc.jsonValue() }),
    fc.record({ type: fc.constant('resource_link'), uri: fc.webUrl(), name: fc.string({ maxLength: 5 }) }),
    fc.record({ type: fc.constantFrom('image', 'audio'), data: fc.base64String({ maxLength: 8 }), mimeType: fc.constant('image/png') }),
    fc.record({ type: fc.string({ maxLength: 6 }) }),
    fc.object({ maxDepth: 2, maxKeys: 3 }),
  );
  const result = fc.record(
    {
      content: fc.oneof({ arbitrary: fc.array(block, { maxLength: 3 }), weight: 5 }, fc.jsonValue()),
      structuredContent: fc.oneof(fc.object({ maxDepth: 2 }), fc.jsonValue()),
      isError: fc.oneof(fc.boolean(), fc.string({ maxLength: 3 })),
      _meta: fc.oneof(fc.object({ maxDepth: 2, maxKeys: 3 }), fc.constant(JSON.parse('{"__proto__": {"x": 1}}'))),
      extra: fc.jsonValue(),
      resultType: fc.oneof({ arbitrary: fc.constant('complete'), weight: 8 }, fc.constantFrom('input_required', 'bogus', 7)),
      inputRequests: fc.object({ maxDepth: 2, maxKeys: 2 }),
      requestState: fc.string({ maxLength: 5 }),
    },
    { requiredKeys: [] },
  );

  it('hands over the same result, or fails the same way, for any result', async () => {
    await fc.assert(
      fc.asyncProperty(result, async (answer) => {
        remote.script = jsonAnswer(answer);
        const official = await outcome(client.request({ method: 'tools/call', params } as never, { allowInputRequired: true }));
        const ours = await outcome(direct.call(params, options));
        expect(JSON.stringify(ours)).toBe(JSON.stringify(official));
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it('hands over the same JSON-RPC error, in a 200 or a 400', async () => {
    for (const status of [200, 400]) {
      remote.script = (_req, body, res) =>
        res
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32602, message: 'no such tool', data: { why: 1 } } }));
      const official = await client.request({ method: 'tools/call', params } as never).catch((error: Error) => error);
      const ours = await direct.call(params, options).catch((error: Error) => error);
      expect(ours).toBeInstanceOf((await clientSdk()).ProtocolError);
      expect({ ...(ours as object), message: (ours as Error).message }).toEqual({
        ...(official as object),
        message: (official as Error).message,
      });
    }
  });

  it('reads a streamed answer as the official client does: progress and logs before the same result', async () => {
    remote.script = streamAnswer((id) => [
      { method: 'notifications/progress', params: { progressToken: id, progress: 1, total: 2 } },
      { method: 'notifications/message', params: { level: 'info', data: 'working' } },
      { method: 'notifications/progress', params: { progressToken: 'not-ours', progress: 9 } },
      { id, result: { content: [{ type: 'text', text: 'streamed' }], resultType: 'complete' } },
    ]);
    const steps: unknown[] = [];
    const logs: unknown[] = [];
    const ours = await direct.call(params, { ...options, onprogress: (p) => steps.push(p), onlog: (l) => logs.push(l) });
    const official = await client.request({ method: 'tools/call', params } as never, { onprogress: () => undefined });
    expect(ours).toEqual(official);
    expect(steps).toEqual([{ progress: 1, total: 2 }]);
    expect(logs).toEqual([{ level: 'info', data: 'working' }]);
  });
  it('reads a stream cut anywhere, even inside a character, as the official client does', async () => {
    const texts = fc.string({ unit: 'binary', maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(texts, texts, fc.integer({ min: 1, max: 7 }), async (said, answered, size) => {
        remote.script = piecewiseStreamAnswer(
          (id) => [
            { method: 'notifications/message', params: { level: 'info', data: said } },
            { id, result: { content: [{ type: 'text', text: answered }], resultType: 'complete' } },
          ],
          size,
        );
        const logs: unknown[] = [];
        const ours = await outcome(direct.call(params, { ...options, onlog: (log) => logs.push(log) }));
        const official = await outcome(client.request({ method: 'tools/call', params } as never, { allowInputRequired: true }));
        expect(JSON.stringify(ours)).toBe(JSON.stringify(official));
        expect(logs).toEqual([{ level: 'info', data: said }]);
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it('reuses its keep-alive connections for calls one after another, whatever they were answered', async () => {
    const answers: Script[] = [
      jsonAnswer({ content: [], resultType: 'complete' }),
      streamAnswer((id) => [{ id, result: { content: [], resultType: 'complete' } }]),
      (_req, body, res) =>
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32602, message: 'no' } })),
      (_req, _body, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('down'),
      (_req, _body, res) => res.writeHead(307, { location: remote.url }).end('moved'),
    ];
    remote.script = answers[0];
    await direct.call(params, options);
    const before = remote.connections;
    for (let round = 0; round < 3; round++) {
      for (const answer of answers) {
        remote.script = answer;
        await direct.call(params, options).catch(() => undefined);
      }
    }
    expect(remote.received).toHaveLength(1 + 3 * answers.length);
    // The pool may open a second connection while the first is being released; never one per call.
    expect(remote.connections - before).toBeLessThanOrEqual(1);
  });
});

describe('a gateway in front of a 2026-07-28 HTTP remote', () => {
  let client: Client;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const headers = { authorization: 'Bearer gateway-key' };
    ({ client, close } = await readyInMemory(
      createMcpApp(remoteServer({ url: remote.url, timeoutMs: 4_000, headers }), { logger: false }),
    ));
  }, 30_000);
  afterAll(() => close?.());

  /** The answer's text, `error: ` first when it is a tool error. */
  const text = (result: unknown) => {
    const { content, isError } = result as { content: { text: string }[]; isError?: boolean };
    return `${isError ? 'error: ' : ''}${content.map((b) => b.text).join('')}`;
  };
  const call = () => client.callTool({ name: 'echo', arguments: {} }).then(text);

  it('sends a tool call as one POST of its own, with its headers, and answers what the remote answered', async () => {
    const spy = vi.spyOn(DirectCall.prototype, 'call');
    expect(await call()).toBe('from the SDK');
    expect(spy).toHaveBeenCalledTimes(1);
    expect(remote.received[0]?.headers.authorization).toBe('Bearer gateway-key');
  });

  it("enters the relay's async context only for a request of the official client, never for the direct path", async () => {
    // Once an AsyncLocalStorage has run, Node 20 hooks every promise of the process: a gateway
    // whose calls all take the direct path must not pay that on all its work.
    const run = vi.spyOn(AsyncLocalStorage.prototype, 'run');
    const relayed = () => run.mock.calls.filter(([store]) => typeof store === 'object' && store !== null && 'stop' in store);
    expect(await call()).toBe('from the SDK');
    expect(relayed()).toEqual([]);
    // A redirect sends the call to the official client: its request runs in the call's context.
    remote.script = (_req, _body, res) => res.writeHead(307, { location: remote.url }).end();
    await call();
    expect(relayed()).toHaveLength(1);
  });

  it.each([
    [
      'garbage',
      (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc": "2.0", "id": '),
      /its body is not JSON/,
    ],
    [
      'a JSON value that is no response',
      (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('[1,2]'),
      /not the JSON-RPC response/,
    ],
    [
      'HTML',
      (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hi</h1>'),
      /Content-Type is "text\/html"/,
    ],
    ['no Content-Type', (res: ServerResponse) => res.writeHead(200).end('{}'), /Content-Type is missing/],
    [
      'a stream that ends without the response',
      (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"jsonrpc":"2.0","method":"x"}\n\n'),
      /ended before the response/,
    ],
    [
      'a stream of garbage',
      (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {{{\n\n'),
      /not JSON/,
    ],
  ])('answers the caller clearly when the remote answers %s, and stays up', async (_what, answer, expected) => {
    remote.script = (_req, _body, res) => answer(res);
    const answered = await call();
    expect(answered).toMatch(/^error: .*the remote server http:\/\/127\.0\.0\.1:\d+\/mcp gave an answer that is not one/);
    expect(answered).toMatch(expected);
    remote.script = undefined;
    expect(await call()).toBe('from the SDK');
  });

  it('reads no more than 16 MiB of an answer or of one event', async () => {
    const huge = 'x'.repeat(17 * 1024 * 1024);
    for (const type of ['application/json', 'text/event-stream']) {
      remote.script = (_req, _body, res) => {
        res.writeHead(200, { 'content-type': type });
        res.end(type === 'application/json' ? `"${huge}"` : `data: "${huge}`, () => undefined);
        res.on('error', () => undefined);
      };
      expect(await call()).toMatch(/larger than 16777216 bytes, the most the gateway reads/);
    }
    remote.script = undefined;
    expect(await call()).toBe('from the SDK');
  }, 30_000);

  it('gives up on a body that trickles in past timeoutMs, and stays up', async () => {
    let trickle: NodeJS.Timeout | undefined;
    remote.script = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      trickle = setInterval(() => res.write(' '), 100);
      res.on('close', () => clearInterval(trickle));
    };
    expect(await call()).toMatch(/did not answer within 4000 ms/);
    clearInterval(trickle);
    remote.script = undefined;
    expect(await call()).toBe('from the SDK');
  });

  it("follows no redirect itself: the official client's rules apply (another origin is not followed, nor given the gateway's credentials)", async () => {
    const elsewhere = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const seen: unknown[] = [];
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      const target = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/mcp`;
      remote.script = (_req, _body, res) => res.writeHead(307, { location: target }).end();
      expect(await call()).toMatch(/^error: .* refused the call with HTTP 307: .*redirect/);
      expect(seen).toEqual([]);
      // The call went to the official client after the direct path saw the redirect: two requests, neither followed.
      expect(remote.received).toHaveLength(2);
    } finally {
      elsewhere.closeAllConnections();
      await new Promise((resolve) => elsewhere.close(resolve));
    }
  });

  it('passes an HTTP error on as the official client does (a 404 is sent again after reconnecting)', async () => {
    let refusals = 1;
    remote.script = (_req, _body, res) => {
      if (refusals-- > 0) res.writeHead(404, { 'content-type': 'text/plain' }).end('gone');
      else jsonAnswer({ content: [{ type: 'text', text: 'after 404' }], resultType: 'complete' })(_req, _body, res);
    };
    expect(await call()).toBe('after 404');
  });

  it('closes the request when the caller cancels, and the gateway stays up', async () => {
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => {
      closed = resolve;
    });
    remote.script = (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': working\n\n');
      res.on('close', () => closed());
    };
    const stop = new AbortController();
    const pending = client.callTool({ name: 'echo', arguments: {} }, { signal: stop.signal }).catch((error: Error) => error);
    await vi.waitFor(() => expect(remote.received).toHaveLength(1), { timeout: 10_000 });
    stop.abort('changed my mind');
    await gone;
    expect(await pending).toBeInstanceOf(Error);
    remote.script = undefined;
    expect(await call()).toBe('from the SDK');
  });
});

describe('a 2026-07-28 caller over HTTP, through the direct path', () => {
  const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
  /** The `_meta` of the remote's `i`th tools/call. */
  const metaSent = (i: number) => (remote.received[i]?.body.params as Json | undefined)?._meta;

  it("asks the remote for the log lines the caller asked for, at the caller's level: none when it names none", async () => {
    const app = createMcpApp(remoteServer({ url: remote.url }), { logger: false });
    const { client, close } = await connectHttp(app, { modern: true });
    const logs: unknown[] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      logs.push(notification.params);
    });
    try {
      remote.script = streamAnswer((id) => [
        { method: 'notifications/message', params: { level: 'debug', data: 'detail' } },
        { method: 'notifications/message', params: { level: 'warning', data: 'careful' } },
        { id, result: { content: [{ type: 'text', text: 'done' }], resultType: 'complete' } },
      ]);
      // No level named: the remote is asked for no line (it may then answer plain JSON), and the caller gets none.
      expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'done' }]);
      expect(metaSent(0)).toBeDefined();
      expect(metaSent(0)).not.toHaveProperty(LOG_LEVEL);
      expect(logs).toEqual([]);
      // A level named: the remote is asked for that level, and the caller gets what it lets through.
      await client.callTool({ name: 'echo', arguments: {}, _meta: { [LOG_LEVEL]: 'warning' } });
      expect(metaSent(1)).toMatchObject({ [LOG_LEVEL]: 'warning' });
      expect(logs).toEqual([{ level: 'warning', data: 'careful' }]);
    } finally {
      await close();
      await app.close();
    }
  }, 30_000);

  it('asks the remote for every line for a 2025-11-25 caller, whose session level is applied by the gateway', async () => {
    const { client, close } = await readyInMemory(createMcpApp(remoteServer({ url: remote.url }), { logger: false }));
    try {
      await client.callTool({ name: 'echo', arguments: {} });
      expect(metaSent(0)).toMatchObject({ [LOG_LEVEL]: 'debug' });
    } finally {
      await close();
    }
  }, 30_000);

  it('gets the remote progress and its answer, and the limit of maxCallMs over a remote that never ends', async () => {
    const app = createMcpApp(remoteServer({ url: remote.url, maxCallMs: 1_000 }), { logger: false });
    const { client, close } = await connectHttp(app, { modern: true });
    try {
      remote.script = streamAnswer((id) => [
        { method: 'notifications/progress', params: { progressToken: id, progress: 1 } },
        { id, result: { content: [{ type: 'text', text: 'done' }], resultType: 'complete' } },
      ]);
      const steps: number[] = [];
      const done = await client.callTool({ name: 'echo', arguments: {} }, { onprogress: ({ progress }) => steps.push(progress) });
      expect(done.content).toEqual([{ type: 'text', text: 'done' }]);
      expect(steps).toEqual([1]);

      remote.script = (_req, body, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let step = 0;
        const beat = setInterval(() => {
          const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: body.id, progress: ++step } };
          res.write(`data: ${JSON.stringify(progress)}\n\n`);
        }, 100);
        res.on('close', () => clearInterval(beat));
      };
      const forever = await client.callTool({ name: 'echo', arguments: {} }, { onprogress: () => undefined });
      expect(forever.isError).toBe(true);
      expect(JSON.stringify(forever.content)).toMatch(/did not finish the call within 1000 ms \(its maxCallMs\)/);
    } finally {
      await close();
      await app.close();
    }
  }, 30_000);
});
