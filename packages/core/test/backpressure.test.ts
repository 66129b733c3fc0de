// Notification backpressure (issue 9): a handler flooding ctx.progress / ctx.log towards a client
// that stops reading must not queue without bound nor stall other requests, and a client that
// reads still gets every awaited notification, in order. Real processes, real pipes and sockets on
// 127.0.0.1; the server is test/fixtures/flood-server.mjs (built package). What is asserted here is
// what the valve does (progress merged, log lines beyond the cap dropped, an awaiting handler
// made to wait): counts, order and state, not time or memory. The memory a flood costs and how
// long /health takes meanwhile are reliability figure 10 (HTTP and stdio), printed with their
// targets (<= 16 MB, within 250 ms of the no-flood time).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsInt } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { type Context, createMcpApp, McpServer, Tool } from '../src/index.js';
import { LineTransport } from '../src/transports/stdio/line-transport.js';

const fixture = fileURLToPath(new URL('./fixtures/flood-server.mjs', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The fixture as a child process, its stderr lines parsed (its URL, floods finished). */
function startFixture(transport: 'stdio' | 'http') {
  const child = spawn(process.execPath, [fixture, transport], { stdio: ['pipe', 'pipe', 'pipe'] });
  const reports: Array<Record<string, unknown>> = [];
  let partial = '';
  child.stderr.on('data', (chunk: Buffer) => {
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('{')) reports.push(JSON.parse(line));
  });
  return { child, reports };
}

async function until(condition: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

let running: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  running?.kill('SIGKILL');
  running = undefined;
});

/** A raw stdio client that can stop reading the server's stdout (the pipe then fills up). */
async function stdioClient() {
  const { child, reports } = startFixture('stdio');
  running = child;
  const messages: Array<Record<string, unknown>> = [];
  let partial = '';
  const onData = (chunk: Buffer) => {
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) messages.push(JSON.parse(line));
  };
  child.stdout.on('data', onData);
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  await until(() => messages.some((m) => m.id === 1), 'initialize');
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return {
    reports,
    messages,
    send,
    stopReading: () => {
      child.stdout.off('data', onData);
      child.stdout.pause();
    },
    readAgain: () => {
      child.stdout.on('data', onData);
      child.stdout.resume();
    },
  };
}

const flood = (id: number, args: { count: number; kind: 'progress' | 'log'; wait: boolean }) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'flood', arguments: args, _meta: { progressToken: `p${id}` } },
});

/** `request` with more params. */
const withParams = (request: ReturnType<typeof flood>, extra: Record<string, unknown>) => ({
  ...request,
  params: { ...request.params, ...extra },
});

describe('stdio: notifications towards a client that stops reading', () => {
  it('merges 100,000 unawaited progress notifications: the latest goes out before the result', async () => {
    const client = await stdioClient();
    client.stopReading();
    client.send(flood(2, { count: 100_000, kind: 'progress', wait: false }));
    await until(() => client.reports.some((r) => r.flooded), 'the flood to end');
    client.readAgain();
    await until(() => client.messages.some((m) => m.id === 2), 'the result');
    const progress = client.messages
      .filter((m) => m.method === 'notifications/progress')
      .map((m) => (m.params as { progress: number }).progress);
    const resultAt = client.messages.findIndex((m) => m.id === 2);
    expect(client.messages[resultAt]).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'sent 100000' }] } });
    // What got out before the pipe filled, one by one, then the rest merged into the latest value,
    // which goes out before the answer.
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.length).toBeLessThan(2_000);
    expect(progress.at(-1)).toBe(100_000);
    const first = progress.slice(0, -1);
    expect(first).toEqual(first.map((_, i) => i + 1));
    expect(client.messages.slice(resultAt + 1).filter((m) => m.method === 'notifications/progress')).toEqual([]);
  }, 30_000);

  it('makes an awaiting handler wait for the client: every log line arrives once it reads again, in order', async () => {
    const client = await stdioClient();
    client.stopReading();
    client.send(flood(2, { count: 20_000, kind: 'log', wait: true }));
    // Absence after a wait: a slow machine only makes an early finish less likely, never more.
    await sleep(1_000);
    // Still waiting for the client: not finished, nothing piled up.
    expect(client.reports.some((r) => r.flooded)).toBe(false);
    client.readAgain();
    await until(() => client.messages.some((m) => m.id === 2), 'the result', 25_000);
    const lines = client.messages.filter((m) => m.method === 'notifications/message').map((m) => (m.params as { data: string }).data);
    expect(lines).toEqual(Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}`));
  }, 40_000);

  it('drops unawaited log lines beyond maxPendingNotifications while the client is not reading', async () => {
    const client = await stdioClient();
    client.stopReading();
    client.send(flood(2, { count: 100_000, kind: 'log', wait: false }));
    await until(() => client.reports.some((r) => r.flooded), 'the flood to end');
    client.readAgain();
    // Over stdio a log line may follow the result (logging belongs to the session, not the call).
    const logLines = () => client.messages.filter((m) => m.method === 'notifications/message');
    await until(() => client.messages.some((m) => m.id === 2) && logLines().length > 1_000, 'the result and the kept lines');
    await sleep(300);
    // Sent while the pipe had room, then the 1,000 kept (the default): the first lines, in order, none after.
    const lines = logLines().map((m) => (m.params as { data: string }).data);
    expect(lines.length).toBeGreaterThan(1_000);
    expect(lines.length).toBeLessThan(3_000);
    expect(lines).toEqual(lines.map((_, i) => `line ${i + 1}`));
  }, 30_000);
});

/** POSTs a JSON-RPC message on a raw socket that is never read (until `read()`). */
function unreadPost(url: URL, headers: Record<string, string>, body: string): { socket: Socket; read: () => () => string } {
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  socket.pause();
  const head = Object.entries({ ...headers, host: url.host, 'content-length': String(Buffer.byteLength(body)) })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  socket.write(`POST ${url.pathname} HTTP/1.1\r\n${head}\r\n\r\n${body}`);
  return {
    socket,
    read: () => {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.resume();
      return () => Buffer.concat(chunks).toString();
    },
  };
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function httpFixture() {
  const { child, reports } = startFixture('http');
  running = child;
  await until(() => reports.some((r) => r.url), 'the server to listen');
  const url = new URL(String(reports.find((r) => r.url)?.url));
  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });
    return { response, text: await response.text() };
  };
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const session = { 'mcp-session-id': String(init.response.headers.get('mcp-session-id')), 'mcp-protocol-version': '2025-11-25' };
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  /** The statuses of `times` /health answers, `gapMs` apart. */
  const health = async (times: number, gapMs: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < times; i++) {
      const response = await fetch(new URL('/health', url));
      await response.text();
      statuses.push(response.status);
      await sleep(gapMs);
    }
    return statuses;
  };
  return { url, session, reports, health };
}

describe('HTTP: an SSE response its client does not read', () => {
  it('keeps /health answering while a handler awaits 100,000 progress notifications, and makes it wait', async () => {
    const server = await httpFixture();
    const call = unreadPost(
      server.url,
      { ...JSON_HEADERS, ...server.session },
      JSON.stringify(flood(2, { count: 100_000, kind: 'progress', wait: true })),
    );
    expect(await server.health(20, 100)).toEqual(Array.from({ length: 20 }, () => 200));
    // Absence after 2 s of /health: the handler is waiting for the client (nothing piled up);
    // a slow machine only makes an early finish less likely.
    expect(server.reports.some((r) => r.flooded)).toBe(false);
    call.socket.destroy();
  }, 30_000);

  it.each([
    ['the request engine', {}],
    ["the SDK's request handling (a param the engine declines)", { note: 'declined' }],
  ])(
    'drops unawaited log lines beyond the cap, and the answer still arrives when the client reads (served by %s)',
    async (_, extra) => {
      const server = await httpFixture();
      const call = unreadPost(
        server.url,
        { ...JSON_HEADERS, ...server.session },
        JSON.stringify(withParams(flood(2, { count: 100_000, kind: 'log', wait: false }), extra)),
      );
      await until(() => server.reports.some((r) => r.flooded), 'the flood to end');
      const text = call.read();
      await until(() => text().includes('"id":2'), 'the answer');
      const events = text()
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice(6)));
      expect(events.at(-1)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'sent 100000' }] } });
      const lines = events.filter((m) => m.method === 'notifications/message').map((m) => m.params.data);
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length).toBeLessThan(100_000);
      expect(lines).toEqual(lines.map((_: unknown, i: number) => `line ${i + 1}`));
      call.socket.destroy();
    },
    30_000,
  );
});

class StepsInput {
  @IsInt()
  steps!: number;
}

@McpServer({ name: 'steps', version: '1.0.0' })
class StepsServer {
  @Tool({ description: 'Reports each step' })
  async steps(input: StepsInput, ctx: Context) {
    for (let i = 1; i <= input.steps; i++) await ctx.progress(i, input.steps, `step ${i}`);
    return 'done';
  }
}

@McpServer({ name: 'chatter', version: '1.0.0' })
class ChatterServer {
  @Tool({ description: 'Sends its log lines without awaiting them, then answers' })
  chatter(input: StepsInput, ctx: Context) {
    for (let i = 1; i <= input.steps; i++) void ctx.log.info(`line ${i}`);
    return 'said it all';
  }
}

describe('a client that reads', () => {
  it('gets every log line a handler did not await, before the answer (official client over HTTP and stdio)', async () => {
    const app = createMcpApp(ChatterServer);
    const { url, close } = await app.listenHttp({ port: 0 });
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stdio = app.listenStdio({ stdin, stdout });
    const transports = [new StreamableHTTPClientTransport(new URL(url)), new LineTransport(stdout, stdin)];
    try {
      for (const transport of transports) {
        const client = new Client({ name: 'reader', version: '1.0.0' });
        const seen: string[] = [];
        client.setNotificationHandler('notifications/message', (n) => {
          seen.push(String(n.params.data));
        });
        await client.connect(transport);
        await client.setLoggingLevel('info');
        const result = await client.callTool({ name: 'chatter', arguments: { steps: 200 } });
        expect(result.content).toEqual([{ type: 'text', text: 'said it all' }]);
        // Every line, in order, and all of them before the answer (seen when the call resolved).
        expect(seen).toEqual(Array.from({ length: 200 }, (_, i) => `line ${i + 1}`));
        await client.close();
      }
    } finally {
      await stdio.close();
      await close();
    }
  });

  it('gets every awaited progress notification, in order (official client over HTTP)', async () => {
    const { url, close } = await createMcpApp(StepsServer).listenHttp({ port: 0 });
    const client = new Client({ name: 'reader', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const seen: number[] = [];
      const result = await client.callTool({ name: 'steps', arguments: { steps: 500 } }, { onprogress: (p) => seen.push(p.progress) });
      expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
      expect(seen).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    } finally {
      await client.close();
      await close();
    }
  });
});
