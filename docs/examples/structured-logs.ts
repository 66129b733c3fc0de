import { Writable } from 'node:stream';
import { createMcpApp, type McpApp, McpServer, Tool } from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import pino from 'pino';
import { connectInMemory, expectEqual } from './support/check.js';

// #region server
@McpServer({ name: 'orders', version: '1.0.0' })
export class OrdersServer {
  @Tool({ description: 'Ship an order' })
  ship() {
    throw new Error('the warehouse did not answer');
  }
}
// #endregion

// #region json
export async function serveWithJsonLogs(port = 3000) {
  const app = createMcpApp(OrdersServer, { logger: 'json' });
  const { url } = await app.listenHttp({ port, maxSessions: 1 });
  return { app, url };
}
// #endregion

// #region pino
/** fd 2 is stderr: under stdio, stdout carries the protocol and nothing else. */
export function serveWithPino(destination: pino.DestinationStream = pino.destination(2)) {
  return createMcpApp(OrdersServer, { logger: pino({ level: 'info' }, destination) });
}
// #endregion

// #region on-event
/** Counts refusals by reason, e.g. for an alert when a cap is hit. */
export function countRefusals(mcpApp: McpApp) {
  const refusals = new Map<string, number>();
  mcpApp.onEvent((event) => {
    if (event.event === 'refused') refusals.set(event.reason, (refusals.get(event.reason) ?? 0) + 1);
  });
  return refusals;
}
// #endregion

const TIME = '2026-12-03T09:00:00.000Z';

export const outputs: Record<string, string> = {
  'json-lines': [
    `{"time":"${TIME}","level":"info","event":"started","message":"listening on http://127.0.0.1:3000/mcp","transport":"http","url":"http://127.0.0.1:3000/mcp"}`,
    `{"time":"${TIME}","level":"error","event":"call-failed","message":"tool \\"ship\\" (request 1, error 5f3a9c1e) failed: the warehouse did not answer","what":"ship","requestId":1,"errorId":"5f3a9c1e","err":{"type":"Error","message":"the warehouse did not answer","stack":"Error: the warehouse did not answer\\n    at ..."}}`,
    `{"time":"${TIME}","level":"warn","event":"refused","message":"refused (session-cap): Service Unavailable: the server holds its maximum of 1 sessions (maxSessions); retry later","reason":"session-cap","method":"initialize","requestId":0,"client":"ip:127.0.0.1","retryAfterMs":30000}`,
    `{"time":"${TIME}","level":"info","event":"stopping","message":"shutting down (close())","reason":"close()"}`,
    `{"time":"${TIME}","level":"info","event":"stopped","message":"stopped"}`,
  ].join('\n'),
  'text-line': '[armature] tool "ship" (request 1, error 5f3a9c1e) failed: Error: the warehouse did not answer\\n    at ...',
};

/** Runs `work` with what the process writes to stderr caught: the lines Armature logged. */
async function stderrOf(work: () => Promise<void>): Promise<string[]> {
  const written: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
  try {
    await work();
  } finally {
    process.stderr.write = write;
  }
  return written.join('').trimEnd().split('\n');
}

/** The error id of a failed call (random) as the guide shows it. */
const shownErrorId = (text: string) =>
  text.replace(/error [0-9a-f]{8}\)/, 'error 5f3a9c1e)').replace(/"errorId":"[0-9a-f]{8}"/, '"errorId":"5f3a9c1e"');

/** A logged line as the guide shows it: the time fixed, the port 3000, the error id fixed, the stack cut after its first line. */
function shown(line: string, port: string): string {
  const record = JSON.parse(shownErrorId(line.replaceAll(`:${port}/`, ':3000/'))) as Record<string, unknown> & { err?: { stack?: string } };
  record.time = TIME;
  if (record.err?.stack) record.err.stack = `${record.err.stack.split('\n')[0]}\n    at ...`;
  return JSON.stringify(record);
}

async function jsonLogs(): Promise<void> {
  let port = '';
  let refusals = new Map<string, number>();
  const lines = await stderrOf(async () => {
    const { app, url } = await serveWithJsonLogs(0);
    refusals = countRefusals(app);
    port = new URL(url).port;
    const client = new Client({ name: 'docs-check', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await client.callTool({ name: 'ship', arguments: {} });
    // The one session is the first client's: a second is refused, and the refusal logged.
    const second = new Client({ name: 'docs-check', version: '1.0.0' });
    await second.connect(new StreamableHTTPClientTransport(new URL(url))).catch(() => undefined);
    await client.close();
    await app.close();
  });
  expectEqual(lines.map((line) => shown(line, port)).join('\n'), outputs['json-lines'], 'the JSON lines of a run');
  expectEqual([...refusals], [['session-cap', 1]], 'the refusals app.onEvent counted');
}

async function defaultLog(): Promise<void> {
  const lines = await stderrOf(async () => {
    const app = createMcpApp(OrdersServer);
    const { client, close } = await connectInMemory(app);
    await client.callTool({ name: 'ship', arguments: {} });
    await close();
    await app.close();
  });
  // One line: the stack's line breaks are escaped, as every control character of a text line is.
  expectEqual(lines.length, 1, 'one line for the failed call');
  expectEqual(shownErrorId(lines[0] ?? '').replace(/\\n {4}at .*/, '\\n    at ...'), outputs['text-line'], 'the default text line');
}

async function pinoLogs(): Promise<void> {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const app = serveWithPino(destination);
  const { client, close } = await connectInMemory(app);
  await client.callTool({ name: 'ship', arguments: {} });
  await close();
  await app.close();
  const failed = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((record) => record.event === 'call-failed');
  expectEqual(
    { ...failed, time: 0, pid: 0, hostname: '', err: { ...(failed?.err as object), stack: '' } },
    {
      level: 50,
      time: 0,
      pid: 0,
      hostname: '',
      component: 'armature',
      event: 'call-failed',
      what: 'ship',
      requestId: 1,
      errorId: failed?.errorId,
      err: { type: 'Error', message: 'the warehouse did not answer', stack: '' },
      msg: `tool "ship" (request 1, error ${String(failed?.errorId)}) failed: the warehouse did not answer`,
    },
    "pino's line for a failed call",
  );
}

export async function main(): Promise<void> {
  await jsonLogs();
  await defaultLog();
  await pinoLogs();
}
