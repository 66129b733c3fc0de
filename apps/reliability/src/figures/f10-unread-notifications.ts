// Figure 10 (issue 9, "unread notifications"): a tool sends 100,000 progress notifications or log
// lines to a client that never reads its SSE response, or (stdio) stops reading the server's
// stdout until the flood is over. The server must keep its memory bounded (progress merged, log
// lines beyond maxPendingNotifications dropped, awaiting handlers made to wait) and keep answering
// others: /health is polled all along. Before the valve: +276 MB RSS and /health 4.3 s late.
// (packages/core/test/backpressure.test.ts asserts what the valve does, by counts; the memory and
// time are this figure's.)
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type ServerProcess, withServer } from '../child.js';
import { Checks, type Mode, mb, ms, n, sleep, until } from '../report.js';
import type { MemoryReport, StatsReport } from '../server/protocol.js';
import { HttpClient, JSON_HEADERS, sessionHeaders } from '../wire/http-peer.js';
import { StdioPeer } from '../wire/stdio-peer.js';
import { checkStillServing } from './still-serving.js';

const MB = 1024 * 1024;
const COUNT = 100_000;
/** Server memory (heap + external after GC) a flood may add: the valve keeps at most 1,000 small notifications. */
const MEMORY_LIMIT = 16 * MB;
/**
 * How much slower /health may answer during a flood than with no flood (measured first, so a busy
 * machine does not count), on top of the handler's own synchronous loop when it does not await
 * (100,000 calls in one stretch block the event loop whatever they send).
 */
const HEALTH_LIMIT_MS = 250;

const held = (m: MemoryReport) => m.heapUsed + m.external;

/** POSTs a tools/call on a raw socket that never reads what comes back. */
function unreadCall(url: string, headers: Record<string, string>, id: string, args: unknown): Socket {
  const target = new URL(url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'flood', arguments: args, _meta: { progressToken: id } },
  });
  const socket = connect({ host: target.hostname, port: Number(target.port) });
  socket.pause();
  const head = Object.entries({ ...JSON_HEADERS, ...headers, host: target.host, 'content-length': String(Buffer.byteLength(body)) })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n');
  socket.write(`POST ${target.pathname} HTTP/1.1\r\n${head}\r\n\r\n${body}`);
  socket.on('error', () => undefined);
  return socket;
}

/** /health every `everyMs` for `forMs`: the slowest answer. */
async function worstHealth(url: string, forMs: number, everyMs: number): Promise<number> {
  const health = new URL('/health', url);
  let worst = 0;
  const end = performance.now() + forMs;
  while (performance.now() < end) {
    const started = performance.now();
    await (await fetch(health)).text();
    worst = Math.max(worst, performance.now() - started);
    await sleep(everyMs);
  }
  return worst;
}

interface Case {
  label: string;
  args: { count: number; kind: 'progress' | 'log'; wait: boolean };
  /** Whether the handler is expected to finish while nobody reads (it does not await). */
  finishes: boolean;
}

/** Starts a flood towards a client that does not read; resolves with how to end it (read again, or go away). */
type Unread = () => Promise<() => Promise<void>>;

async function measure(server: ServerProcess, flood: Case, unread: Unread, idleMs: number, mode: Mode, checks: Checks): Promise<string> {
  const url = server.url as string;
  await server.ask({ cmd: 'reset' });
  const before = await server.ask<MemoryReport>({ cmd: 'memory', gc: true });
  const end = await unread();
  try {
    const worst = await worstHealth(url, mode.quick ? 2_000 : 5_000, 50);
    // Generous: the unawaited progress loop takes seconds on a busy machine; this bounds the wait,
    // it is not a target (a handler still running after it fails the figure).
    if (flood.finishes) await until(async () => (await server.ask<StatsReport>({ cmd: 'stats' })).floodsDone > 0, 60_000);
    const after = await server.ask<MemoryReport>({ cmd: 'memory', gc: true });
    const stats = await server.ask<StatsReport>({ cmd: 'stats' });
    const growth = held(after) - held(before);
    const finished = stats.floodsDone > 0;
    const healthLimit = idleMs + HEALTH_LIMIT_MS + (finished ? stats.floodMs : 0);
    checks.line(
      `${flood.label}: server memory ${mb(growth)} (heap + external after GC), RSS ${mb(after.rss - before.rss)}; slowest /health ${ms(worst)}; ` +
        `handler ${finished ? `finished, its own loop ${ms(stats.floodMs)}` : 'waiting for the client'}`,
    );
    checks.target(growth <= MEMORY_LIMIT, `${flood.label}: the server holds ${mb(growth)} more (limit ${mb(MEMORY_LIMIT, 0)})`);
    checks.target(worst <= healthLimit, `${flood.label}: /health took ${ms(worst)} (limit ${ms(healthLimit)})`);
    checks.expect(
      finished === flood.finishes,
      flood.finishes
        ? `${flood.label}: the handler did not finish`
        : `${flood.label}: the handler finished though nobody read (it was not made to wait)`,
    );
    return `${flood.label} ${mb(growth, 1)}, /health ${ms(worst)}`;
  } finally {
    await end();
  }
}

/** Over HTTP: the flood answers on an SSE response whose socket is never read, then closed. */
function unreadHttp(server: ServerProcess, session: string, flood: Case): Unread {
  return async () => {
    const socket = unreadCall(server.url as string, sessionHeaders(session), `flood-${flood.args.kind}-${flood.args.wait}`, flood.args);
    return async () => {
      socket.destroy();
    };
  };
}

/** Over stdio: the client stops reading the server's stdout (the pipe fills), then reads again and must get the answer. */
function unreadStdio(server: ServerProcess, peer: StdioPeer, flood: Case, checks: Checks): Unread {
  return async () => {
    const out = server.child.stdout;
    if (!out) throw new Error('the server has no stdout pipe');
    out.pause();
    const seenBefore = peer.inbound.length;
    const id = peer.freshId();
    await peer.send({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'flood', arguments: flood.args, _meta: { progressToken: `stdio-${id}` } },
    });
    return async () => {
      out.resume();
      const answer = await peer.waitFor(id, 60_000);
      checks.expect(
        answer?.result !== undefined,
        `${flood.label}: no answer once the client read again (${JSON.stringify(answer)?.slice(0, 200)})`,
      );
      // Fewer than were sent: the pipe filled and the valve merged or dropped the rest.
      const got = peer.inbound.length - seenBefore;
      checks.line(`${flood.label}: the client got ${n(got)} notifications once it read again`);
      checks.expect(got < flood.args.count, `${flood.label}: all ${n(got)} notifications reached the client: the pipe never filled`);
    };
  };
}

export async function figure10(mode: Mode): Promise<Checks & { measured?: string }> {
  const checks: Checks & { measured?: string } = new Checks();
  const measured: string[] = [];
  const cases: Case[] = [
    { label: `${n(COUNT)} awaited progress`, args: { count: COUNT, kind: 'progress', wait: true }, finishes: false },
    { label: `${n(COUNT)} unawaited progress`, args: { count: COUNT, kind: 'progress', wait: false }, finishes: true },
    { label: `${n(COUNT)} unawaited log lines`, args: { count: COUNT, kind: 'log', wait: false }, finishes: true },
  ];
  await withServer({ transport: 'http' }, async (server) => {
    const client = new HttpClient(server.url as string, 2);
    try {
      const session = await client.openSession();
      // Warm-up: the flood tool's code paths, with a client that reads.
      await client.call(session, 'warm', 'flood', { count: 10, kind: 'progress', wait: true });
      const idleMs = await worstHealth(server.url as string, mode.quick ? 1_000 : 2_000, 50);
      checks.line(`no flood: slowest /health ${ms(idleMs)}`);
      // Each flood in a session of its own: an awaiting one is still waiting when the next starts.
      for (const flood of cases) {
        measured.push(await measure(server, flood, unreadHttp(server, await client.openSession(), flood), idleMs, mode, checks));
      }
      // The same floods over stdio (not the awaited one: it would wait for all 100,000 once read).
      const peer = new StdioPeer(server);
      await peer.initialize();
      for (const flood of cases.filter((c) => c.finishes)) {
        const overStdio = { ...flood, label: `stdio ${flood.label}` };
        measured.push(await measure(server, overStdio, unreadStdio(server, peer, overStdio, checks), idleMs, mode, checks));
      }
      await checkStillServing(checks, server, client, session, 'after', 'the floods');
    } finally {
      client.destroy();
    }
  });
  checks.measured = measured.join('; ');
  checks.note(
    'HTTP: the flood goes to a raw socket that is never read (2025-11-25 session, SSE response); stdio: the client stops reading stdout until the flood is over; /health is polled every 50 ms meanwhile',
  );
  return checks;
}
