import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IsString } from 'class-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppEngine } from '../src/engine/app-engine.js';
import type { DirectModern } from '../src/engine/exchange.js';
import type { ModernFront } from '../src/engine/modern-front.js';
import {
  Context,
  createMcpApp,
  InvalidTokenError,
  McpServer,
  RequireScopes,
  sdkContextOf,
  type TokenVerifier,
  Tool,
} from '../src/index.js';
import type { AppRuntime } from '../src/runtime/app-runtime.js';
import { HttpEndpoint } from '../src/transports/http/http-endpoint.js';
import { toAdmittingNodeHandler } from '../src/transports/http/node-http-adapter.js';
import { EngineTools } from './support/engine-tools.js';

// The 2026-07-28 request engine (tools/call, tools/list, ping straight from node:http) must answer
// exactly what the SDK's createMcpHandler path answers: status, content type and body, byte for byte.

class Answer {
  @IsString()
  name!: string;
}

let aborted: unknown;
let started: (() => void) | undefined;

@McpServer({ name: 'modern-direct', version: '1.0.0' })
class ModernServer extends EngineTools {
  @Tool({ description: 'logs and reports progress' })
  async chatty(ctx: Context) {
    await ctx.log.info('starting', { step: 1 });
    await ctx.progress(1, 2, 'half');
    await ctx.log.debug('filtered out by the level');
    return 'done';
  }

  @Tool({ description: 'sends a notification through the SDK context itself' })
  async raw(ctx: Context) {
    await sdkContextOf(ctx)?.mcpReq.notify({ method: 'notifications/message', params: { level: 'info', data: 'raw line' } });
    return `header ${sdkContextOf(ctx)?.http?.req?.headers.get('mcp-name')}`;
  }

  @Tool({ description: 'asks the user' })
  async ask(ctx: Context) {
    const answer = await ctx.elicit('Your name?', Answer);
    return answer.action;
  }

  @Tool({ description: 'who is calling' })
  whoami(ctx: Context) {
    return { client: ctx.principal?.clientId ?? null, scopes: ctx.principal?.scopes ?? [], token: ctx.principal?.token ?? null };
  }

  @RequireScopes('repo:write')
  @Tool({ description: 'needs a scope' })
  write() {
    return 'written';
  }

  @Tool({ description: 'waits until the client goes away' })
  wait(ctx: Context) {
    started?.();
    return new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        aborted = ctx.signal.reason;
        resolve('too late');
      });
    });
  }
}

const VERSION = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Exchange {
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string | undefined>;
}

/** A 2026-07-28 request as the v2 client sends it: envelope in `_meta`, the standard headers. */
function call(
  id: unknown,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | undefined> = {},
): Exchange {
  const name = typeof params.name === 'string' ? { 'mcp-name': params.name } : {};
  return {
    body: { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as object) } } },
    headers: { 'mcp-method': method, 'mcp-protocol-version': VERSION, ...name, ...headers },
  };
}

const requests: Exchange[] = [
  call(1, 'ping'),
  call('list', 'tools/list'),
  call(3, 'tools/list', { cursor: 'bogus' }),
  call(4, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }),
  call(5, 'tools/call', { name: 'add', arguments: { a: 'two', b: 3, c: 1 } }),
  call(6, 'tools/call', { name: 'add' }),
  call(7, 'tools/call', { name: 'search', arguments: { query: 'lamp' } }),
  call(8, 'tools/call', { name: 'annotated', arguments: {} }),
  call(9, 'tools/call', { name: 'whole', arguments: {} }),
  call(10, 'tools/call', { name: 'invalid', arguments: {} }),
  call(11, 'tools/call', { name: 'refuse', arguments: {} }),
  call(12, 'tools/call', { name: 'crash', arguments: {} }),
  call(13, 'tools/call', { name: 'nope', arguments: {} }),
  call(14, 'tools/call', { name: 'chatty', arguments: {} }),
  call(15, 'tools/call', { name: 'chatty', arguments: {}, _meta: { progressToken: 'tok', 'io.modelcontextprotocol/logLevel': 'info' } }),
  call(16, 'tools/call', { name: 'chatty', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'debug' } }),
  call(17, 'tools/call', { name: 'raw', arguments: {} }),
  call(18, 'tools/call', { name: 'ask', arguments: {} }),
  // Shapes and envelopes the request engine leaves to the SDK: it decides, on both servers alike.
  call(19, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 }, extra: true }),
  call(20, 'tools/call', { name: 42 }),
  call(21, 'tools/call', { name: 'add', arguments: [1, 2] }),
  call(22, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } }, { 'mcp-protocol-version': undefined }),
  call(23, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } }, { 'mcp-name': undefined }),
  call(24, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } }, { 'mcp-name': 'search' }),
  call(25, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } }, { 'mcp-method': undefined }),
  call(26, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 }, _meta: { 'io.modelcontextprotocol/clientCapabilities': 'none' } }),
  call(27, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } }),
  call(28, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 }, requestState: 'forged' }),
  call(29, 'tools/list', { cursor: 7 }),
  call(30, 'prompts/list'),
  {
    body: { jsonrpc: '2.0', id: 31, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 1 } } },
    headers: { 'mcp-protocol-version': VERSION },
  },
];

/** Tokens are their own scopes: `reader` has none, `writer` has repo:write; anything else is refused. */
const verifier: TokenVerifier = {
  async verify(token) {
    if (token !== 'reader' && token !== 'writer') throw new InvalidTokenError('unknown token');
    return { token, clientId: `${token}-app`, scopes: token === 'writer' ? ['repo:write'] : [], extra: { sub: token } };
  },
};
const AUTH = { verifier, resource: 'http://127.0.0.1/mcp', authorizationServers: ['http://127.0.0.1/issuer'] };

const authRequests: Exchange[] = [
  call(50, 'tools/call', { name: 'whoami', arguments: {} }),
  call(51, 'tools/call', { name: 'whoami', arguments: {} }, { authorization: 'Bearer reader' }),
  call(52, 'tools/call', { name: 'write', arguments: {} }, { authorization: 'Bearer reader' }),
  call(53, 'tools/call', { name: 'write', arguments: {} }, { authorization: 'Bearer writer' }),
  call(54, 'tools/list', {}, { authorization: 'Bearer writer' }),
  call(55, 'tools/call', { name: 'whoami', arguments: {} }, { authorization: 'Bearer forged' }),
];

interface Answered {
  readonly status: number | undefined;
  readonly type: string | undefined;
  readonly body: string;
  readonly challenge?: string;
}

function post(url: string, exchange: Exchange): Promise<Answered> {
  const text = JSON.stringify(exchange.body);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  for (const [name, value] of Object.entries(exchange.headers ?? {})) if (value !== undefined) headers[name] = value;
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => {
        const challenge = res.headers['www-authenticate'];
        resolve({ status: res.statusCode, type: res.headers['content-type'], body, ...(challenge ? { challenge } : {}) });
      });
    });
    req.setTimeout(5_000, () => req.destroy(new Error(`no answer to ${text}`)));
    req.on('error', reject);
    req.end(text);
  });
}

/** A node:http server on 127.0.0.1 (port 0) serving `endpoint` through the node adapter. */
async function serve(endpoint: HttpEndpoint): Promise<{ url: string; server: Server }> {
  const handler = toAdmittingNodeHandler(endpoint, {});
  const server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

const app = createMcpApp(ModernServer, { onError: () => undefined, exposeErrors: true, pageSize: 3 });
const runtime = (app as unknown as { runtime: AppRuntime }).runtime;
const engine = new AppEngine(runtime);
let dispatcher: ModernFront;
/** The ids the request engine answered itself. */
const servedDirectly: unknown[] = [];
/** When set, the request engine's answers go through it (to show the comparison can fail). */
let tamper: ((answer: unknown) => unknown) | undefined;
const servers: { url: string; server: Server; endpoint: HttpEndpoint }[] = [];

beforeAll(async () => {
  const made = await engine.createModernDirect();
  if (!made) throw new Error('the 2026-07-28 request engine is off');
  dispatcher = made;
  const direct: DirectModern = (offered) => {
    const answer = dispatcher.serve(offered as never);
    if (!answer) return undefined;
    servedDirectly.push(offered.message.id);
    return answer.then((message) => (tamper ? tamper(message) : message));
  };
  const requirements = {
    scopes: (method: string, params: Record<string, unknown> | undefined) => runtime.requiredScopes(method, params),
    headerParams: (tool: string) => runtime.tools.get(tool)?.headerParams,
  };
  // Without auth, then with it: each time one server without the request engine and one with it.
  for (const options of [{}, { auth: AUTH }]) {
    for (const withDirect of [false, true]) {
      const endpoint = new HttpEndpoint(
        (purpose) => engine.createServer(purpose),
        options,
        requirements,
        undefined,
        undefined,
        withDirect ? direct : undefined,
      );
      servers.push({ ...(await serve(endpoint)), endpoint });
    }
  }
});

afterAll(async () => {
  for (const { server, endpoint } of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await endpoint.close();
  }
  await app.close();
});

/** Every request sent to the SDK-only server and to the one with the request engine, answers side by side. */
async function both(): Promise<{ viaSdk: Answered[]; direct: Answered[] }> {
  const [sdkServer, directServer] = servers as [(typeof servers)[0], (typeof servers)[0]];
  const first = await post(sdkServer.url, call(0, 'tools/list'));
  const cursor = (JSON.parse(first.body) as { result: { nextCursor: string } }).result.nextCursor;
  const all = [...requests, call(32, 'tools/list', { cursor })];
  const viaSdk: Answered[] = [];
  const direct: Answered[] = [];
  for (const exchange of all) {
    viaSdk.push(await post(sdkServer.url, exchange));
    direct.push(await post(directServer.url, exchange));
  }
  return { viaSdk, direct };
}

describe('the 2026-07-28 request engine over HTTP', () => {
  it('answers every request exactly as the SDK path does: status, content type and body', async () => {
    servedDirectly.length = 0;
    const { viaSdk, direct } = await both();
    expect(direct).toEqual(viaSdk);
    // The request engine served the frequent, plain requests (a log level and a progress token too); the SDK the rest.
    expect(servedDirectly).toEqual(['list', 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 32]);
    // The conversation covers what it claims.
    const text = viaSdk.map((a) => `${a.status} ${a.type} ${a.body}`).join('\n');
    expect(text).toContain(
      '200 application/json {"result":{"content":[{"type":"text","text":"5"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"modern-direct","version":"1.0.0"}}},"jsonrpc":"2.0","id":4}',
    );
    expect(text).toContain('"nextCursor"');
    expect(text).toContain('"id":10,"error":{"code":-32602,"message":"Invalid tools/call result:');
    expect(text).toContain('"isError":true');
    expect(text).toContain(
      '200 text/event-stream event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"raw line"',
    );
    expect(text).toContain('"text":"header raw"');
    expect(text).toContain('"method":"notifications/progress","params":{"progressToken":"tok","progress":1,"total":2,"message":"half"}');
    expect(text).toContain('"code":-32021');
    expect(text).toMatch(/^400 application\/json .*"id":22/m);
    expect(text).toMatch(/^400 application\/json .*"id":26/m);
  });

  it('answers as the SDK path does with auth on: principal, scopes step-up, refused tokens', async () => {
    const [, , sdkServer, directServer] = servers as [(typeof servers)[0], (typeof servers)[0], (typeof servers)[0], (typeof servers)[0]];
    servedDirectly.length = 0;
    const viaSdk: Answered[] = [];
    const direct: Answered[] = [];
    for (const exchange of authRequests) {
      viaSdk.push(await post(sdkServer.url, exchange));
      direct.push(await post(directServer.url, exchange));
    }
    expect(direct).toEqual(viaSdk);
    expect(servedDirectly).toEqual([51, 53, 54]);
    expect(viaSdk.map((a) => a.status)).toEqual([401, 200, 403, 200, 200, 401]);
    expect(viaSdk[1]?.body).toContain('{\\"client\\":\\"reader-app\\",\\"scopes\\":[],\\"token\\":\\"redacted\\"}');
    expect(viaSdk[3]?.body).toContain('"text":"written"');
  });

  it('is checked by that comparison: a different answer from the request engine fails it', async () => {
    tamper = (answer) => ({ ...(answer as object), jsonrpc: '2.0 ' });
    try {
      const { viaSdk, direct } = await both();
      expect(direct).not.toEqual(viaSdk);
    } finally {
      tamper = undefined;
    }
  });

  it('builds no web Request for a call that logs (the log filter reads only the envelope)', async () => {
    const directServer = servers[1] as (typeof servers)[0];
    const Original = globalThis.Request;
    let made = 0;
    globalThis.Request = new Proxy(Original, {
      construct(target, args, newTarget) {
        made++;
        return Reflect.construct(target, args, newTarget);
      },
    });
    servedDirectly.length = 0;
    try {
      const answer = await post(directServer.url, call(41, 'tools/call', { name: 'chatty', arguments: {} }));
      expect(JSON.parse(answer.body)).toMatchObject({ result: { content: [{ type: 'text', text: 'done' }] }, id: 41 });
    } finally {
      globalThis.Request = Original;
    }
    expect(servedDirectly).toEqual([41]);
    expect(made).toBe(0);
  });

  it('aborts ctx.signal when the client goes away, and sends nothing', async () => {
    const directServer = servers[1] as (typeof servers)[0];
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    aborted = undefined;
    servedDirectly.length = 0;
    const exchange = call(40, 'tools/call', { name: 'wait', arguments: {} });
    const req = httpRequest(directServer.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(exchange.headers as object) },
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify(exchange.body));
    await running;
    req.destroy();
    for (let i = 0; i < 100 && aborted === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    expect(servedDirectly).toEqual([40]);
    expect((aborted as Error).message).toBe('Connection closed');
  });
});

describe('app.listenHttp', () => {
  it('serves a 2026-07-28 tools/call through the request engine', async () => {
    const listening = createMcpApp(ModernServer, { onError: () => undefined });
    const listener = await listening.listenHttp({ port: 0 });
    try {
      const modern = (listening as unknown as { engine: AppEngine }).engine.modern as ModernFront;
      let offered = 0;
      const serve = modern.serve.bind(modern);
      modern.serve = (c) => {
        offered++;
        return serve(c);
      };
      const answer = await post(listener.url, call(1, 'tools/call', { name: 'add', arguments: { a: 20, b: 22 } }));
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ result: { content: [{ type: 'text', text: '42' }] }, id: 1 });
      expect(offered).toBe(1);
    } finally {
      await listener.close();
      await listening.close();
    }
  });
});
