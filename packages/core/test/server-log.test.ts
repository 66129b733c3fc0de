import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { IsString } from 'class-validator';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ArmatureBuildError,
  Context,
  type CreateMcpAppOptions,
  createMcpApp,
  type LoggerOption,
  McpServer,
  type Middleware,
  RequireScopes,
  Resource,
  type ServerEvent,
  type ServerLogger,
  Tool,
} from '../src/index.js';
import { ServerEvents } from '../src/observability/server-events.js';
import { startServerLog } from '../src/observability/server-log.js';
import { connectInMemory } from './support/clients.js';

class Lookup {
  @IsString()
  name!: string;
}

/** The request ids the tools saw, to compare with what the log says. */
const seen: unknown[] = [];

@McpServer({ name: 'log-test', version: '1.0.0' })
class LogServer {
  @Tool({ description: 'always fails' })
  explode(ctx: Context) {
    seen.push(ctx.requestId);
    throw new Error('kaput');
  }

  @Tool({ description: 'fails naming what the caller asked for' })
  lookup(input: Lookup) {
    throw new Error(`no user named ${input.name}`);
  }

  @Tool({ description: 'works' })
  fine() {
    return 'ok';
  }

  @Tool({ description: 'needs a scope' })
  @RequireScopes('repo:write')
  push() {
    return 'pushed';
  }

  @Tool({ description: 'runs as a task until its signal aborts', task: 'optional' })
  async hold(ctx: Context) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
    return 'stopped';
  }
}

/** Everything the process writes to stderr while a test runs (the built-in loggers write there). */
let stderr: string[];
beforeEach(() => {
  stderr = [];
  seen.length = 0;
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr.push(String(chunk));
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

/** The JSON lines written to stderr, parsed. */
function jsonLines(): Record<string, unknown>[] {
  return stderr
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A control character (C0, DEL, C1) or a line/paragraph separator: what no log line may carry raw. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function callExplode(options: CreateMcpAppOptions) {
  const app = createMcpApp(LogServer, options);
  const connection = await connectInMemory(app);
  const result = await connection.client.callTool({ name: 'explode', arguments: {} });
  await connection.close();
  await app.close();
  expect(result.isError).toBe(true);
  return seen[0];
}

describe('a failed resource read', () => {
  it('is logged as a resource, not a tool,', async () => {
    @McpServer({ name: 'files', version: '1.0.0' })
    class Files {
      @Resource({ uri: 'ui://counter/view.html', name: 'view' })
      view() {
        throw new Error('ENOENT: no such file or directory');
      }
    }
    const app = createMcpApp(Files, { logger: 'text' });
    const connection = await connectInMemory(app);
    await expect(connection.client.readResource({ uri: 'ui://counter/view.html' })).rejects.toThrow();
    await connection.close();
    await app.close();
    expect(stderr.join('')).toMatch(
      /^\[armature\] resource "ui:\/\/counter\/view\.html" \(request \d+, error [0-9a-f]{8}\) failed: Error: ENOENT/m,
    );
    expect(stderr.join('')).not.toContain('tool "');
  });
});

describe("logger: 'json'", () => {
  it('writes a failed call as one JSON line on stderr with its request id and error', async () => {
    const requestId = await callExplode({ logger: 'json' });
    const failed = jsonLines().filter((line) => line.event === 'call-failed');
    expect(failed).toEqual([
      {
        time: expect.stringMatching(ISO_TIME),
        level: 'error',
        event: 'call-failed',
        message: expect.stringMatching(new RegExp(`^tool "explode" \\(request ${requestId}, error [0-9a-f]{8}\\) failed: kaput$`)),
        what: 'explode',
        requestId,
        errorId: expect.stringMatching(/^[0-9a-f]{8}$/),
        err: { type: 'Error', message: 'kaput', stack: expect.stringContaining('Error: kaput') },
      },
    ]);
    expect(typeof requestId).toBe('number');
  });

  it('logs start, refusals and stop of an HTTP server on 127.0.0.1 (session cap, too-large body, Host)', async () => {
    const app = createMcpApp(LogServer, { logger: 'json' });
    const listener = await app.listenHttp({ port: 0, maxSessions: 1, maxRequestBodySize: 1_000 });
    const first = new Client({ name: 'first', version: '1' });
    await first.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    // The one session is taken: the next initialize is refused (503), and logged.
    const second = new Client({ name: 'second', version: '1' });
    await expect(second.connect(new StreamableHTTPClientTransport(new URL(listener.url)))).rejects.toThrow();
    const tooLarge = await fetch(listener.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping', padding: 'x'.repeat(2_000) }),
    });
    expect(tooLarge.status).toBe(413);
    // fetch may not set Host: node:http may (what a DNS-rebinding page's request looks like).
    const badHost = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(listener.url, { method: 'POST', headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end();
    });
    await first.close();
    await listener.close();
    await app.close();

    const lines = jsonLines().map(({ time, ...rest }) => {
      expect(time).toMatch(ISO_TIME);
      return rest;
    });
    expect(lines[0]).toEqual({
      level: 'info',
      event: 'started',
      message: `listening on ${listener.url}`,
      transport: 'http',
      url: listener.url,
    });
    const refused = lines.filter((line) => line.event === 'refused');
    expect(refused[0]).toEqual({
      level: 'warn',
      event: 'refused',
      message: 'refused (session-cap): Service Unavailable: the server holds its maximum of 1 sessions (maxSessions); retry later',
      reason: 'session-cap',
      method: 'initialize',
      requestId: 0,
      client: 'ip:127.0.0.1',
      retryAfterMs: 30_000,
    });
    expect(refused[1]).toEqual({
      level: 'warn',
      event: 'refused',
      message: expect.stringMatching(/^refused \(too-large\): /),
      reason: 'too-large',
    });
    expect(badHost).toBe(403);
    expect(refused[2]).toEqual({
      level: 'warn',
      event: 'refused',
      message: 'refused (host): the Host header "evil.example" is not in allowedHosts',
      reason: 'host',
    });
    expect(refused).toHaveLength(3);
    expect(lines.slice(-2)).toEqual([
      { level: 'info', event: 'stopping', message: 'shutting down (close())', reason: 'close()' },
      { level: 'info', event: 'stopped', message: 'stopped' },
    ]);
    expect(lines.filter((line) => line.event === 'stopped')).toHaveLength(1);
  });

  it("carries the active span's trace and span ids when a context manager is registered", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const spanId = '00f067aa0ba902b7';
    // What an instrumented server does: the request runs inside its span.
    const traced: Middleware = (_request, next) =>
      context.with(trace.setSpan(context.active(), trace.wrapSpanContext({ traceId, spanId, traceFlags: 1 })), next);
    try {
      await callExplode({ logger: 'json', middleware: [traced] });
    } finally {
      context.disable();
    }
    const failed = jsonLines().find((line) => line.event === 'call-failed');
    expect(failed).toMatchObject({ event: 'call-failed', traceId, spanId });
    // Without a span there is no trace id to give.
    stderr.length = 0;
    await callExplode({ logger: 'json' });
    expect(jsonLines().find((line) => line.event === 'call-failed')).not.toHaveProperty('traceId');
  });

  it('writes nothing below its level', async () => {
    const app = createMcpApp(LogServer, { logger: { format: 'json', level: 'error' } });
    const listener = await app.listenHttp({ port: 0 });
    await listener.close();
    await app.close();
    expect(jsonLines()).toEqual([]);
  });
});

describe('the default log', () => {
  it('writes a failed call as the text line Armature always wrote (with the stack), and nothing for start, refusals and stop', async () => {
    const app = createMcpApp(LogServer);
    const events: string[] = [];
    app.onEvent((event) => events.push(event.event));
    const listener = await app.listenHttp({ port: 0, maxRequestBodySize: 100 });
    const refused = await fetch(listener.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(200) });
    expect(refused.status).toBe(413);
    await listener.close();
    await app.close();
    expect(events).toEqual(['started', 'refused', 'stopping', 'stopped']);
    expect(stderr).toEqual([]);
    const requestId = await callExplode({});
    expect(stderr).toHaveLength(1);
    // One line: the stack's line breaks are escaped.
    expect(stderr[0]).toMatch(
      new RegExp(
        `^\\[armature\\] tool "explode" \\(request ${requestId}, error [0-9a-f]{8}\\) failed: Error: kaput\\\\n    at [^\\n]*\\n$`,
      ),
    );
  });

  it('leaves failed calls to onError when one is given (as before), and logs them too once a logger is chosen', async () => {
    const reported: string[] = [];
    await callExplode({ onError: (_error, info) => reported.push(info.tool) });
    expect(stderr).toEqual([]);
    expect(reported).toEqual(['explode']);
    await callExplode({ onError: (_error, info) => reported.push(info.tool), logger: 'text' });
    expect(reported).toEqual(['explode', 'explode']);
    expect(stderr.filter((line) => line.startsWith('[armature] tool "explode"'))).toHaveLength(1);
  });

  it('quotes a string request id, so a client cannot forge a log line with it', async () => {
    const app = createMcpApp(LogServer);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await app.createServer().connect(serverTransport);
    await clientTransport.start();
    const answered = new Promise<void>((resolve) => {
      clientTransport.onmessage = (message) => {
        if ('id' in message && message.id === 'x\n[armature] forged') resolve();
      };
    });
    await clientTransport.send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await clientTransport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await clientTransport.send({
      jsonrpc: '2.0',
      id: 'x\n[armature] forged',
      method: 'tools/call',
      params: { name: 'explode', arguments: {} },
    });
    await answered;
    await clientTransport.close();
    await app.close();
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(
      /^\[armature\] tool "explode" \(request "x\\n\[armature\] forged", error [0-9a-f]{8}\) failed: Error: kaput\\n/,
    );
    expect(stderr[0]?.split('\n').filter((line) => line.startsWith('[armature]'))).toHaveLength(1);
  });

  it("escapes the caller's text in an error message: a newline forges no line, an ANSI escape never reaches stderr", async () => {
    const app = createMcpApp(LogServer, { exposeErrors: true });
    const connection = await connectInMemory(app);
    const name = 'eve\n{"level":"error","message":"forged"}\r\n[armature] forged\u001b[2J\u001b[31mred\u009b31m\u2028';
    await connection.client.callTool({ name: 'lookup', arguments: { name } });
    await connection.close();
    await app.close();
    expect(stderr).toHaveLength(1);
    const line = stderr[0] as string;
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(CONTROL);
    expect(line).toContain(
      'failed: Error: no user named eve\\n{"level":"error","message":"forged"}\\r\\n[armature] forged\\u001b[2J\\u001b[31mred\\u009b31m\\u2028\\n    at ',
    );
  });

  it('is off with logger: false', async () => {
    await callExplode({ logger: false });
    expect(stderr).toEqual([]);
  });
});

describe('caller input in a log record (property)', () => {
  /** Anything a caller could send: any code unit, controls and separators made frequent. */
  const callerText = fc.string({
    unit: fc.oneof(
      fc.constantFrom('\n', '\r', '\u001b', '\u009b', '\u0085', '\u2028', '\u2029', '\u007f', '\t', '\u0000', '"', '\\'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
    ),
    maxLength: 60,
  });
  const eventOf = fc.oneof(
    fc
      .record({ reason: fc.constantFrom('host', 'origin', 'unauthorized'), message: callerText, client: callerText })
      .map((e): ServerEvent => ({ event: 'refused', ...e }) as ServerEvent),
    fc.record({ what: callerText, requestId: fc.oneof(callerText, fc.integer()), message: callerText }).map(
      ({ what, requestId, message }): ServerEvent => ({
        event: 'call-failed',
        what,
        label: `tool ${JSON.stringify(what)}`,
        requestId,
        error: new Error(message),
      }),
    ),
    fc.record({ part: callerText, name: callerText, reason: callerText }).map((e): ServerEvent => ({ event: 'remote-skipped', ...e })),
  );

  /** Logs each generated event with `option`: every record must be one line without control characters, then `check` it. */
  function eachRecordOneLine(option: LoggerOption, check: (line: string, event: ServerEvent) => void = () => undefined): void {
    const events = new ServerEvents();
    const stop = startServerLog(events, option, false);
    try {
      fc.assert(
        fc.property(eventOf, (event) => {
          stderr.length = 0;
          events.emit(event);
          expect(stderr).toHaveLength(1);
          const [line] = stderr as [string];
          expect(line.endsWith('\n')).toBe(true);
          expect(line.slice(0, -1)).not.toMatch(CONTROL);
          check(line, event);
        }),
        { numRuns: 200 },
      );
    } finally {
      stop();
    }
  }

  it('text: one record is one line, without any control character', () => {
    eachRecordOneLine({ format: 'text', level: 'info' });
  });

  it('json: one record is one line of valid JSON, without any control character, keeping the text exactly', () => {
    eachRecordOneLine('json', (line, event) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      if (event.event === 'refused') expect(record.client).toBe(event.client);
      if (event.event === 'call-failed') expect(record.what).toBe(event.what);
    });
  });
});

describe('a pino-like logger', () => {
  it('gets each event at its level with the same fields, through a child bound to armature', async () => {
    const calls: Array<{ level: string; fields: Record<string, unknown>; message: string; bindings: unknown }> = [];
    const make = (bindings: unknown): ServerLogger => ({
      info: (fields, message) => calls.push({ level: 'info', fields, message, bindings }),
      warn: (fields, message) => calls.push({ level: 'warn', fields, message, bindings }),
      error: (fields, message) => calls.push({ level: 'error', fields, message, bindings }),
      child: (more) => make(more),
    });
    const app = createMcpApp(LogServer, { logger: make(undefined) });
    const listener = await app.listenHttp({ port: 0, maxRequestBodySize: 100 });
    const connection = await connectInMemory(app);
    await connection.client.callTool({ name: 'explode', arguments: {} });
    await connection.close();
    await fetch(listener.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(200) });
    await listener.close();
    await app.close();
    expect(stderr).toEqual([]);
    expect(calls.every((call) => JSON.stringify(call.bindings) === '{"component":"armature"}')).toBe(true);
    const failed = calls.find((call) => call.fields.event === 'call-failed');
    expect(failed).toEqual({
      level: 'error',
      fields: {
        event: 'call-failed',
        what: 'explode',
        requestId: seen[0],
        errorId: expect.any(String),
        err: expect.objectContaining({ message: 'kaput' }),
      },
      message: `tool "explode" (request ${seen[0]}, error ${String(failed?.fields.errorId)}) failed: kaput`,
      bindings: { component: 'armature' },
    });
    expect(failed?.fields.err).toBeInstanceOf(Error);
    expect(calls.map((call) => `${call.level} ${call.fields.event}`)).toEqual([
      'info started',
      'error call-failed',
      'warn refused',
      'info stopping',
      'info stopped',
    ]);
  });
});

describe('app.onEvent', () => {
  it('tells a listener each event until it stops listening', async () => {
    const app = createMcpApp(LogServer, { logger: false });
    const events: ServerEvent[] = [];
    const stop = app.onEvent((event) => events.push(event));
    const requestId = await (async () => {
      const connection = await connectInMemory(app);
      await connection.client.callTool({ name: 'explode', arguments: {} });
      await connection.close();
      return seen[0];
    })();
    stop();
    await app.close();
    expect(events).toEqual([
      { event: 'call-failed', what: 'explode', label: 'tool "explode"', requestId, errorId: expect.any(String), error: expect.any(Error) },
    ]);
  });
});

describe('each refusal site', () => {
  const refusalsOf = (app: ReturnType<typeof createMcpApp>) => {
    const refusals: ServerEvent[] = [];
    app.onEvent((event) => {
      if (event.event === 'refused') refusals.push(event);
    });
    return refusals;
  };

  it('tells the hub once: per-client session and listen caps over HTTP on 127.0.0.1', async () => {
    const app = createMcpApp(LogServer, { logger: false });
    const refusals = refusalsOf(app);
    const listener = await app.listenHttp({ port: 0, maxSessionsPerClient: 1, maxListenStreamsPerClient: 1 });
    const legacy = new Client({ name: 'legacy', version: '1' });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    const again = new Client({ name: 'legacy-again', version: '1' });
    await expect(again.connect(new StreamableHTTPClientTransport(new URL(listener.url)))).rejects.toThrow();
    const modern = new Client({ name: 'modern', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await modern.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    const stream = await modern.listen({ toolsListChanged: true });
    await expect(modern.listen({ toolsListChanged: true })).rejects.toThrow(/maxListenStreamsPerClient/);
    await stream.close();
    await modern.close();
    await legacy.close();
    await listener.close();
    await app.close();
    expect(refusals).toEqual([
      {
        event: 'refused',
        reason: 'client-cap',
        message:
          'Too Many Requests: this client already holds 1 sessions (maxSessionsPerClient); end unused ones with DELETE, or retry later',
        method: 'initialize',
        requestId: 0,
        client: 'ip:127.0.0.1',
        retryAfterMs: 5_000,
      },
      {
        event: 'refused',
        reason: 'listen-cap',
        message:
          'Subscription limit reached: this client already holds 1 subscriptions/listen streams (maxListenStreamsPerClient); close one before opening another',
        method: 'subscriptions/listen',
        // The client's id for its second listen request.
        requestId: 'listen:1',
        client: 'ip:127.0.0.1',
      },
    ]);
  });

  it('tells the hub once: Origin, bearer token, scopes and shutting down (the web-standard handler)', async () => {
    const app = createMcpApp(LogServer, { logger: false });
    const refusals = refusalsOf(app);
    const handler = app.httpHandler({
      auth: {
        verifier: {
          async verify(token: string) {
            if (token !== 'reader') throw new Error('unknown token');
            return { token, clientId: 'app', scopes: ['repo:read'], extra: { sub: 'ann' } };
          },
        },
        resource: 'http://127.0.0.1/mcp',
        authorizationServers: ['http://127.0.0.1/issuer'],
      },
    });
    const post = (headers: Record<string, string>, body = '{}') =>
      handler.fetch(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
          body,
        }),
      );
    expect((await post({ origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({})).status).toBe(401);
    const call = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'push', arguments: {} } });
    expect((await post({ authorization: 'Bearer reader' }, call)).status).toBe(403);
    await handler.close();
    expect((await post({ authorization: 'Bearer reader' })).status).toBe(503);
    await app.close();
    expect(refusals).toEqual([
      { event: 'refused', reason: 'origin', message: 'the Origin header "http://evil.example" is not in allowedOrigins' },
      {
        event: 'refused',
        reason: 'unauthorized',
        message: 'HTTP 401, WWW-Authenticate: Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"',
      },
      {
        event: 'refused',
        reason: 'forbidden',
        message: expect.stringMatching(/^HTTP 403, WWW-Authenticate: Bearer error="insufficient_scope", scope="repo:write"/),
        requestId: 7,
        client: 'sub:app\u0000ann',
      },
      { event: 'refused', reason: 'not-ready', message: 'Service Unavailable: the server is shutting down' },
    ]);
  });
});

describe('a task refused at its limit', () => {
  it('is logged as a refusal naming the limit, with the request id', async () => {
    const app = createMcpApp(LogServer, { logger: 'json', tasks: { limits: { maxRunningTasksPerOwner: 1 } } });
    const connection = await connectInMemory(app);
    await connection.client.callTool({ name: 'hold', arguments: {}, task: { ttl: 10_000 } } as never);
    await expect(connection.client.callTool({ name: 'hold', arguments: {}, task: { ttl: 10_000 } } as never)).rejects.toThrow(
      /maxRunningTasksPerOwner/,
    );
    await connection.close();
    await app.close();
    const refused = jsonLines().filter((line) => line.event === 'refused');
    expect(refused).toEqual([
      {
        time: expect.stringMatching(ISO_TIME),
        level: 'warn',
        event: 'refused',
        message:
          'refused (task-limit): Task refused: 1 tasks of this caller are already running (tasks.limits.maxRunningTasksPerOwner). Wait for one to finish (poll tasks/get) or cancel one (tasks/cancel), then call again',
        reason: 'task-limit',
        method: 'tools/call',
        // initialize was 0, the first task 1.
        requestId: 2,
      },
    ]);
  });
});

describe('a logger option Armature does not know', () => {
  it('is a start-up error naming the option and the fix', () => {
    const build = () => createMcpApp(LogServer, { logger: 'yaml' as never });
    expect(build).toThrow(ArmatureBuildError);
    expect(build).toThrow(/createMcpApp options: logger is "yaml"; it must be 'json', 'text'.*\[ARM126\]/);
  });
});

describe('a spawned stdio server logging JSON', () => {
  const fixture = fileURLToPath(new URL('./fixtures/logging-stdio-server.mjs', import.meta.url));

  it('keeps stdout for JSON-RPC and writes its log lines to stderr: started, the failed call, a message too large, stopping and stopped', async () => {
    const child = spawn(process.execPath, [fixture], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: string[] = [];
    const err: string[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c.toString()));
    child.stderr.on('data', (c: Buffer) => err.push(c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'explode', arguments: {} } });
      await vi.waitFor(() => expect(out.join('')).toContain('"id":2'), { timeout: 10_000 });
      // Over the fixture's maxMessageBytes (1,000).
      send({ jsonrpc: '2.0', id: 3, method: 'ping', params: { padding: 'x'.repeat(2_000) } });
      await vi.waitFor(() => expect(out.join('')).toContain('"id":3'), { timeout: 10_000 });
      child.stdin.end();
      expect(await exited).toBe(0);
      const stdoutLines = out.join('').trim().split('\n');
      for (const line of stdoutLines) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
      expect(stdoutLines.map((line) => JSON.parse(line).id)).toEqual([1, 2, 3]);
      const logged = err
        .join('')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(logged.map((line) => line.event)).toEqual(['started', 'call-failed', 'refused', 'stopping', 'stopped']);
      expect(logged[0]).toMatchObject({ level: 'info', transport: 'stdio', message: 'serving on stdio' });
      expect(logged[1]).toMatchObject({ level: 'error', what: 'explode', requestId: 2, err: { type: 'Error', message: 'kaput' } });
      expect(logged[2]).toMatchObject({ level: 'warn', reason: 'too-large', requestId: 3 });
      expect(logged[3]).toMatchObject({ reason: 'stdin closed' });
    } finally {
      child.kill('SIGKILL');
    }
  });
});
