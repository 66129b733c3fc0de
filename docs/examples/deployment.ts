import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import { type AddressInfo, connect } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Context, createMcpApp, DEFAULT_MESSAGE_LIMITS, InMemoryEventStore, McpServer, sdkContextOf, Tool } from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import express from 'express';
import Fastify from 'fastify';
import { expectEqual } from './support/check.js';

@McpServer({ name: 'orders', version: '1.0.0' })
export class OrdersServer {
  @Tool({ description: 'Count open orders' })
  countOrders() {
    return 3;
  }

  @Tool({ description: 'Export every order (slow)' })
  async exportOrders(ctx: Context) {
    await sleep(400, undefined, { signal: ctx.signal });
    return 'exported';
  }

  // #region close-sse
  @Tool({ description: 'Rebuild the search index (long)' })
  async reindex(ctx: Context) {
    // Close this call's SSE stream: the client reconnects with Last-Event-ID after the retry interval.
    sdkContextOf(ctx)?.http?.closeSSE?.();
    await sleep(200, undefined, { signal: ctx.signal });
    return 'reindexed';
  }
  // #endregion
}

const app = createMcpApp(OrdersServer);

async function proxied() {
  // #region proxy
  // Behind a reverse proxy that terminates TLS for https://mcp.example.com and forwards to this process:
  const listener = await app.listenHttp({
    host: '0.0.0.0', // the proxy reaches the process from outside; the default is 127.0.0.1
    port: 8080,
    allowedHosts: ['mcp.example.com'], // the Host header the proxy forwards
    allowedOrigins: ['app.example.com'], // hostnames of the browser origins allowed to call
  });
  // #endregion
  return listener;
}

async function resumableListener() {
  // #region resumable
  const listener = await app.listenHttp({
    port: 3000,
    eventStore: true, // an InMemoryEventStore; or pass your own EventStore
    retryIntervalMs: 500, // the retry: hint clients wait before reconnecting
  });
  // #endregion
  return listener;
}

async function tuned() {
  // #region options
  const listener = await app.listenHttp({
    port: 3000,
    path: '/mcp', // the endpoint (default /mcp)
    maxRequestBodySize: 1024 * 1024, // 413 beyond 1 MiB (default 4 MiB)
    sessionIdleTimeoutMs: 10 * 60_000, // close 2025-11-25 sessions idle for 10 minutes (default 30)
    healthPath: '/healthz', // GET answers 200 {"status":"ok"} (default /health; false turns it off)
  });
  // #endregion
  return listener;
}

// #region mount-node
function nodeServer() {
  const handler = app.httpHandler(); // the MCP endpoint, with the same Host/Origin checks and options
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/mcp')) return void handler(req, res);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('the rest of your site');
  });
  return { server, handler };
}
// #endregion

// #region mount-express
function expressApp() {
  const handler = app.httpHandler();
  const web = express();
  web.use(express.json({ limit: '4mb' })); // optional: the handler uses the parsed body when you pass it
  web.all('/mcp', (req, res) => void handler(req, res, req.body));
  return { web, handler };
}
// #endregion

// #region mount-fastify
function fastifyApp() {
  const handler = app.httpHandler();
  const fastify = Fastify();
  fastify.all('/mcp', async (request, reply) => {
    reply.hijack(); // the handler writes the raw response itself
    await handler(request.raw, reply.raw, request.body);
  });
  return { fastify, handler };
}
// #endregion

export const outputs: Record<string, string> = {
  'bad-host':
    '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Invalid Host: evil.example.com: not in allowedHosts (DNS rebinding protection). If the server is reached under this name, add it: listenHttp({ allowedHosts: [\'evil.example.com\'] }) (or the same option of the handler); allowedHosts: false leaves the check to a proxy in front"},"id":null}',
  'too-large':
    '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Payload Too Large: Request body must not exceed 4194304 bytes"},"id":null}',
  'too-deep': '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: the message is nested deeper than 64 levels"},"id":9}',
  'batch-2025': 'Invalid Request: JSON-RPC batches are not supported on protocol revision 2025-11-25; send one message per request',
  'batch-2026': 'Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later',
};

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request with exactly these headers (fetch does not let you set Host). */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  const target = new URL(url);
  return new Promise<RawResponse>((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: options.method ?? 'POST',
        headers: options.headers ?? {},
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const initialize = (version = '2025-11-25') =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

async function openSession(url: string, version = '2025-11-25'): Promise<string> {
  const res = await raw(url, { headers: JSON_HEADERS, body: initialize(version) });
  const session = res.headers['mcp-session-id'] as string;
  await raw(url, {
    headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': version },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return session;
}

async function callBoth(url: string): Promise<string[]> {
  const texts: string[] = [];
  for (const modern of [false, true]) {
    const client = new Client({ name: 'check', version: '1.0.0' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const result = await client.callTool({ name: 'countOrders', arguments: {} });
    texts.push(`${client.getNegotiatedProtocolVersion()}: ${(result.content as Array<{ text: string }>)[0]?.text}`);
    await client.close();
  }
  return texts;
}

const BOTH = ['2025-11-25: 3', '2026-07-28: 3'];

async function defaults(): Promise<void> {
  const listener = await app.listenHttp({ port: 0 });
  try {
    expectEqual(new URL(listener.url).hostname, '127.0.0.1', 'loopback by default');
    const evil = await raw(listener.url, { headers: { ...JSON_HEADERS, host: 'evil.example.com' }, body: initialize() });
    expectEqual([evil.status, evil.body], [403, outputs['bad-host']], 'foreign Host');
    const foreignOrigin = await raw(listener.url, { headers: { ...JSON_HEADERS, origin: 'https://evil.example.com' }, body: initialize() });
    expectEqual(foreignOrigin.status, 403, 'foreign Origin');
    const localOrigin = await raw(listener.url, { headers: { ...JSON_HEADERS, origin: 'http://localhost:5173' }, body: initialize() });
    expectEqual(localOrigin.status, 200, 'a localhost Origin');
    const huge = await raw(listener.url, { headers: JSON_HEADERS, body: ' '.repeat(5 * 1024 * 1024) });
    expectEqual([huge.status, huge.body], [413, outputs['too-large']], '4 MiB');
    expectEqual(
      [huge.headers['content-length'], huge.headers.connection],
      [String(Buffer.byteLength(outputs['too-large'] as string)), 'close'],
      'the whole answer goes out at once, then the connection closes',
    );
    const deep = JSON.stringify({
      jsonrpc: '2.0',
      id: 9,
      method: 'tools/call',
      params: { name: 'countOrders', arguments: { nested: JSON.parse(`${'['.repeat(70)}${']'.repeat(70)}`) } },
    });
    const tooDeep = await raw(listener.url, { headers: JSON_HEADERS, body: deep });
    expectEqual([tooDeep.status, tooDeep.body], [400, outputs['too-deep']], 'nested too deep');
    expectEqual({ ...DEFAULT_MESSAGE_LIMITS }, { maxDepth: 64, maxValues: 25_000 }, 'message limits');
    const wide = JSON.stringify({
      jsonrpc: '2.0',
      id: 10,
      method: 'tools/list',
      params: { many: Array.from({ length: 25_001 }, () => 0) },
    });
    const tooWide = await raw(listener.url, { headers: JSON_HEADERS, body: wide });
    expectEqual(
      [tooWide.status, JSON.parse(tooWide.body).error.code, JSON.parse(tooWide.body).id],
      [400, -32600, 10],
      `too many values: ${tooWide.body}`,
    );
    const health = await raw(listener.url.replace('/mcp', '/health'), { method: 'GET' });
    expectEqual([health.status, health.headers['content-type'], health.body], [200, 'application/json', '{"status":"ok"}'], 'health');
    const elsewhere = await raw(listener.url.replace('/mcp', '/admin'), { headers: JSON_HEADERS, body: initialize() });
    expectEqual([elsewhere.status, elsewhere.body], [404, '{"error":"Not found: the MCP endpoint is /mcp"}'], 'other paths');

    // Batches per revision.
    const session = await openSession(listener.url);
    const batch = JSON.stringify([
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
    ]);
    const refused = await raw(listener.url, {
      headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: batch,
    });
    expectEqual([refused.status, JSON.parse(refused.body).error], [400, { code: -32600, message: outputs['batch-2025'] }], '2025-11-25');
    const batchedInit = await raw(listener.url, { headers: JSON_HEADERS, body: `[${initialize()}]` });
    expectEqual(
      JSON.parse(batchedInit.body).error,
      { code: -32600, message: 'Invalid Request: initialize must not be part of a JSON-RPC batch' },
      'a batched initialize',
    );
    const old = await openSession(listener.url, '2025-03-26');
    const accepted = await raw(listener.url, {
      headers: { ...JSON_HEADERS, 'mcp-session-id': old, 'mcp-protocol-version': '2025-03-26' },
      body: batch,
    });
    expectEqual([accepted.status, (accepted.body.match(/"tools":/g) ?? []).length], [200, 2], '2025-03-26 keeps batches');
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const modern = await raw(listener.url, {
      headers: { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify([{ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: meta } }]),
    });
    expectEqual([modern.status, JSON.parse(modern.body).error], [400, { code: -32600, message: outputs['batch-2026'] }], '2026-07-28');
  } finally {
    await listener.close();
  }
}

async function options(): Promise<void> {
  // The proxy setup, on a free port instead of 8080.
  const proxy = await app.listenHttp({
    host: '0.0.0.0',
    port: 0,
    allowedHosts: ['mcp.example.com'],
    allowedOrigins: ['app.example.com'],
  });
  try {
    expectEqual(new URL(proxy.url).hostname, '0.0.0.0', 'all interfaces');
    const url = proxy.url.replace('0.0.0.0', '127.0.0.1');
    const viaProxy = await raw(url, { headers: { ...JSON_HEADERS, host: 'mcp.example.com' }, body: initialize() });
    const open = await app.listenHttp({ port: 0, allowedHosts: false, allowedOrigins: false });
    try {
      const anyHost = await raw(open.url, {
        headers: { ...JSON_HEADERS, host: 'anything.example', origin: 'https://anywhere.example' },
        body: initialize(),
      });
      expectEqual(anyHost.status, 200, 'false turns the checks off');
    } finally {
      await open.close();
    }
    const browser = await raw(url, {
      headers: { ...JSON_HEADERS, host: 'mcp.example.com', origin: 'https://app.example.com' },
      body: initialize(),
    });
    const direct = await raw(url, { headers: JSON_HEADERS, body: initialize() });
    expectEqual([viaProxy.status, browser.status, direct.status], [200, 200, 403], 'only the proxied Host');
    const origin = (value: string) =>
      raw(url, { headers: { ...JSON_HEADERS, host: 'mcp.example.com', origin: value }, body: initialize() });
    expectEqual(
      [
        (await origin('https://app.example.com.evil.com')).status,
        (await origin('http://app.example.com:8443')).status,
        (await raw(url, { headers: { ...JSON_HEADERS, host: 'mcp.example.com', origin: 'https://evil.example.com' }, body: initialize() }))
          .status,
      ],
      [403, 200, 403],
      'origins are compared by hostname only',
    );
    const full = await app.listenHttp({ port: 0, allowedOrigins: ['https://app.example.com'] });
    try {
      const res = await raw(full.url, { headers: { ...JSON_HEADERS, origin: 'https://app.example.com' }, body: initialize() });
      expectEqual(res.status, 403, 'a full origin in allowedOrigins never matches');
    } finally {
      await full.close();
    }
  } finally {
    await proxy.close();
  }
  expectEqual(typeof proxied, 'function', 'the proxy region');

  const small = await app.listenHttp({ port: 0, maxRequestBodySize: 1024, sessionIdleTimeoutMs: 300, healthPath: '/healthz' });
  try {
    const tooBig = await raw(small.url, { headers: JSON_HEADERS, body: ' '.repeat(2048) });
    expectEqual(tooBig.status, 413, 'a smaller limit');
    const healthz = await raw(small.url.replace('/mcp', '/healthz'), { method: 'GET' });
    const health = await raw(small.url.replace('/mcp', '/health'), { method: 'GET' });
    expectEqual([healthz.status, health.status], [200, 404], 'healthPath');
    const session = await openSession(small.url);
    await sleep(1_500);
    const later = await raw(small.url, {
      headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expectEqual([later.status, JSON.parse(later.body).error], [404, { code: -32001, message: 'Session not found' }], 'idle session closed');
  } finally {
    await small.close();
  }
  const noHealth = await app.listenHttp({ port: 0, healthPath: false });
  try {
    expectEqual((await raw(noHealth.url.replace('/mcp', '/health'), { method: 'GET' })).status, 404, 'healthPath: false');
  } finally {
    await noHealth.close();
  }
  expectEqual(typeof tuned, 'function', 'the options region');
}

async function mounted(): Promise<void> {
  const { server, handler } = nodeServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    expectEqual(await callBoth(`${base}/mcp`), BOTH, 'node:http');
    expectEqual((await raw(`${base}/`, { method: 'GET' })).body, 'the rest of your site', 'the rest of the site');
  } finally {
    await handler.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  const { web, handler: expressHandler } = expressApp();
  const expressServer = web.listen(0, '127.0.0.1');
  await new Promise((resolve) => expressServer.once('listening', resolve));
  try {
    expectEqual(await callBoth(`http://127.0.0.1:${(expressServer.address() as AddressInfo).port}/mcp`), BOTH, 'Express');
  } finally {
    await expressHandler.close();
    expressServer.closeAllConnections();
    await new Promise((resolve) => expressServer.close(resolve));
  }

  const { fastify, handler: fastifyHandler } = fastifyApp();
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  try {
    expectEqual(await callBoth(`http://127.0.0.1:${(fastify.server.address() as AddressInfo).port}/mcp`), BOTH, 'Fastify');
  } finally {
    await fastifyHandler.close();
    await fastify.close();
  }

  // The web-standard face: a Request in, a Response out. A Request built in code has no Host header.
  const face = app.httpHandler();
  try {
    const missing = await face.fetch(new Request('http://127.0.0.1/mcp', { method: 'POST', headers: JSON_HEADERS, body: initialize() }));
    expectEqual([missing.status, (await missing.json()).error.message], [403, 'Missing Host header'], 'fetch without Host');
    const ok = await face.fetch(
      new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { ...JSON_HEADERS, host: '127.0.0.1' }, body: initialize() }),
    );
    expectEqual(ok.status, 200, 'fetch with Host');
    await ok.text();
  } finally {
    await face.close();
  }
}

async function gracefulShutdown(): Promise<void> {
  const app = createMcpApp(OrdersServer);
  const listener = await app.listenHttp({ port: 0 });
  // One raw connection, busy with a slow 2026-07-28 call when the shutdown starts.
  const socket = connect(Number(new URL(listener.url).port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  await new Promise((resolve) => socket.once('connect', resolve));
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const call = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'exportOrders', arguments: {}, _meta: meta },
  });
  const headers = 'Host: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream';
  socket.write(
    `POST /mcp HTTP/1.1\r\n${headers}\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: exportOrders\r\nContent-Length: ${Buffer.byteLength(call)}\r\n\r\n${call}`,
  );
  try {
    await sleep(100);
    // #region shutdown
    const done = app.shutdown(10_000); // stop accepting, wait up to 10 s for running calls, then close
    // #endregion
    // Requests arriving on the open connection meanwhile:
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    socket.write(`POST /mcp HTTP/1.1\r\n${headers}\r\nContent-Length: ${Buffer.byteLength(initialize())}\r\n\r\n${initialize()}`);
    const newConnection = await raw(listener.url.replace('/mcp', '/health'), { method: 'GET' }).then(
      () => 'answered',
      () => 'refused',
    );
    await done;
    for (let i = 0; i < 50 && (received.match(/HTTP\/1\.1/g) ?? []).length < 3; i++) await sleep(20);
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d+)/g)].map((m) => Number(m[1]));
    expectEqual(newConnection, 'refused', 'no new connections');
    expectEqual(statuses, [200, 503, 503], 'the running call finished; health and new requests got 503');
    expectEqual(received.includes('"text":"exported"'), true, 'the call completed');
    expectEqual(received.includes('{"status":"shutting down"}'), true, 'health body');
    expectEqual(received.includes('Service Unavailable: the server is shutting down'), true, 'MCP body');
  } finally {
    socket.destroy();
    await listener.close();
  }
}

/** The compiled examples/deployment/main.ts as a real process: stdio, then HTTP with SIGTERM. */
export async function checkProcesses(): Promise<void> {
  const project = fileURLToPath(new URL('./deployment/', import.meta.url));
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', join(project, 'tsconfig.json')], { encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`tsc failed: ${build.stdout}${build.stderr}`);
  const entry = join(project, 'dist', 'main.js');
  const children: ChildProcess[] = [];
  try {
    // stdio: stdout carries protocol messages only; the process exits when stdin closes.
    const stdio = spawn(process.execPath, [entry], { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(stdio);
    let out = '';
    let err = '';
    stdio.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    stdio.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => stdio.once('exit', (code) => resolve(code)));
    const send = (message: unknown) => stdio.stdin.write(`${JSON.stringify(message)}\n`);
    send(JSON.parse(initialize()));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    stdio.stdin.write(`${' '.repeat(5 * 1024 * 1024)}\n`); // one line over 4 MiB
    send([{ jsonrpc: '2.0', id: 7, method: 'tools/list' }]); // a batch
    stdio.stdin.write(`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"x":${'['.repeat(70)}${']'.repeat(70)}}}\n`);
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'runJob', arguments: {} } });
    // The job's answer first (generous bounds: a busy machine is slow, not wrong), so nothing runs when stdin closes.
    for (let i = 0; i < 1_500 && !out.includes('"id":2'); i++) await sleep(20);
    expectEqual(out.includes('"id":2'), true, `runJob answered: ${err}`);
    stdio.stdin.end();
    // With nothing running, the end of stdin ends the process: a handle left open would keep it up.
    const exit = await Promise.race([exited, sleep(15_000).then(() => 'still running 15 s after stdin closed')]);
    expectEqual(exit, 0, 'exits with 0 when stdin closes, with nothing running');
    const lines = out.trim().split('\n');
    expectEqual(
      lines.every((line) => JSON.parse(line).jsonrpc === '2.0'),
      true,
      `stdout holds protocol messages only: ${out}`,
    );
    expectEqual(
      lines.some((line) => line.includes('"text":"done"')),
      true,
      'the call answered',
    );
    const errors = lines
      .map((line) => JSON.parse(line))
      .filter((m) => m.error)
      .map((m) => [m.id, m.error.code, m.error.message]);
    expectEqual(
      errors,
      [
        [null, -32600, 'Invalid Request: a message must not exceed 4194304 bytes'],
        [null, -32600, 'Invalid Request: batches are not supported; send one JSON-RPC message per line'],
        [8, -32600, 'Invalid Request: the message is nested deeper than 64 levels'],
      ],
      'stdio limits',
    );
    expectEqual(err.includes('job started'), true, `console.log went to stderr: ${err}`);

    // A call still running when stdin closes gets the 300 ms grace period, not the rest of its 20 s.
    const busy = spawn(process.execPath, [entry], { env: { ...process.env, JOB_MS: '20000' }, stdio: ['pipe', 'ignore', 'pipe'] });
    children.push(busy);
    const busyExited = new Promise<number | null>((resolve) => busy.once('exit', (code) => resolve(code)));
    let busyErr = '';
    busy.stderr?.on('data', (chunk: Buffer) => {
      busyErr += chunk.toString();
    });
    busy.stdin.write(`${initialize()}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    busy.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'runJob', arguments: {} } })}\n`);
    for (let i = 0; i < 1_500 && !busyErr.includes('job started'); i++) await sleep(20);
    expectEqual(busyErr.includes('job started'), true, `the job started: ${busyErr}`);
    const busyClosedAt = Date.now();
    busy.stdin.end();
    expectEqual(await busyExited, 0, 'exit code');
    const waited = Date.now() - busyClosedAt;
    // At least the grace period; far less than the job's 20 s, however busy the machine.
    expectEqual(waited >= 290 && waited < 10_000, true, `a running call gets 300 ms (${waited} ms)`);

    // HTTP: SIGTERM while a call runs.
    const http = spawn(process.execPath, [entry, '--http'], {
      env: { ...process.env, PORT: '0', JOB_MS: '500' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(http);
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      http.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const match = /jobs: MCP endpoint at (\S+)/.exec(seen);
        if (match) resolve(match[1] as string);
      });
      http.once('exit', (code) => reject(new Error(`exited early (${code}): ${seen}`)));
    });
    const httpExited = new Promise<number | null>((resolve) => http.once('exit', (code) => resolve(code)));
    const client = new Client({ name: 'check', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const running = client.callTool({ name: 'runJob', arguments: {} });
    await sleep(100);
    http.kill('SIGTERM');
    const result = await running;
    expectEqual((result.content as Array<{ text: string }>)[0]?.text, 'done', 'the running call finished');
    expectEqual(await httpExited, 0, 'then the process exited with 0');
    await client.close().catch(() => undefined);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}

async function resumable(): Promise<void> {
  expectEqual(typeof resumableListener, 'function', 'the resumable region');
  const listener = await app.listenHttp({ port: 0, eventStore: new InMemoryEventStore(), retryIntervalMs: 500 });
  try {
    const session = await openSession(listener.url);
    const quick = await raw(listener.url, {
      headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'countOrders', arguments: {} } }),
    });
    expectEqual(
      [quick.status, quick.headers['content-type'], quick.body.includes('"text":"3"')],
      [200, 'application/json', true],
      `a call answered at once is one JSON body: ${JSON.stringify(quick.body)}`,
    );
    const res = await raw(listener.url, {
      headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'exportOrders', arguments: {} } }),
    });
    expectEqual(res.status, 200, 'a resumable call that runs');
    expectEqual(/^id: \S+\nretry: 500\ndata: \n/.test(res.body), true, `the priming event comes first: ${JSON.stringify(res.body)}`);
    expectEqual(res.body.includes('event: message\nid: '), true, 'then the result, under its event id');
    const closed = await raw(listener.url, {
      headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'reindex', arguments: {} } }),
    });
    expectEqual(
      [/^id: \S+\nretry: 500\ndata: \n/.test(closed.body), closed.body.includes('reindexed')],
      [true, false],
      `closeSSE ends the stream before the result: ${JSON.stringify(closed.body)}`,
    );
    // A tool that closes its stream: the client reconnects with Last-Event-ID and still gets the result.
    const client = new Client({ name: 'check', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      const result = await client.callTool({ name: 'reindex', arguments: {} });
      expectEqual((result.content as Array<{ text: string }>)[0]?.text, 'reindexed', 'resumed after closeSSE');
    } finally {
      await client.close();
    }
  } finally {
    await listener.close();
  }
  // Without an event store there is no priming event.
  const plain = await app.listenHttp({ port: 0 });
  try {
    const session = await openSession(plain.url);
    const res = await raw(plain.url, {
      headers: { ...JSON_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'countOrders', arguments: {} } }),
    });
    expectEqual(res.body.includes('retry:'), false, `no priming without an event store: ${JSON.stringify(res.body)}`);
  } finally {
    await plain.close();
  }
}

export async function main(): Promise<void> {
  await resumable();
  await defaults();
  await options();
  await mounted();
  await gracefulShutdown();
  // checkProcesses() compiles and spawns examples/deployment/: test/deployment-e2e.test.ts runs it.
}
