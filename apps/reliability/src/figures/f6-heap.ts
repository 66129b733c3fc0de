// Figure 6: 100,000 requests leave the server's heap after GC within 10% of the 10,000-request
// mark. The server runs in a child process with --expose-gc and reports heapUsed after a full GC.
// Over stdio (one long-lived connection) and over HTTP (2025-11-25 sessions opened and deleted as
// it goes, plus stateless 2026-07-28 requests).
import { performance } from 'node:perf_hooks';
import { type ServerProcess, withServer } from '../child.js';
import { Checks, type Mode, mb, n, pct } from '../report.js';
import type { MemoryReport, StatsReport } from '../server/protocol.js';
import { HttpClient, JSON_HEADERS, modernHeaders } from '../wire/http-peer.js';
import { callRequest, modernCall, resultText } from '../wire/jsonrpc.js';
import { StdioPeer } from '../wire/stdio-peer.js';

interface Marks {
  at: number[];
  heap: number[];
  rss: number[];
  failures: number;
  seconds: number;
}

async function mark(server: ServerProcess, marks: Marks, count: number): Promise<void> {
  const m = await server.ask<MemoryReport>({ cmd: 'memory', gc: true });
  marks.at.push(count);
  marks.heap.push(m.heapUsed);
  marks.rss.push(m.rss);
}

function judge(checks: Checks, label: string, marks: Marks, first: number): string {
  const i = marks.at.indexOf(first);
  const base = marks.heap[i];
  const end = marks.heap[marks.heap.length - 1];
  const growth = (end - base) / base;
  const trend = marks.at.map((at, k) => `${at >= 1000 ? `${at / 1000}k` : at}: ${mb(marks.heap[k], 1).slice(1)}`).join(', ');
  checks.line(
    `${label}: ${n(marks.at[marks.at.length - 1])} requests in ${marks.seconds.toFixed(1)} s, ${marks.failures} failed; heap after GC at ${n(first)}: ${mb(base).slice(1)}, ` +
      `at ${n(marks.at[marks.at.length - 1])}: ${mb(end).slice(1)} (${pct(growth)}); RSS ${mb(marks.rss[i], 1).slice(1)} -> ${mb(marks.rss[marks.rss.length - 1], 1).slice(1)}`,
  );
  checks.line(`${label} heap trend (MB): ${trend}`);
  checks.expect(marks.failures === 0, `${label}: ${marks.failures} requests failed`);
  checks.target(growth <= 0.1, `${label}: heap after GC grew ${pct(growth)} from the ${n(first)}-request mark (target within 10%)`);
  return `${n(first)} -> ${n(marks.at[marks.at.length - 1])}: ${mb(base, 1).slice(1)} -> ${mb(end, 1).slice(1)} (${pct(growth)})`;
}

export async function figure6(mode: Mode): Promise<Checks & { measured?: string }> {
  const checks: Checks & { measured?: string } = new Checks();
  const measured: string[] = [];
  const stdioTotal = mode.quick ? 3_000 : 100_000;
  const httpTotal = mode.quick ? 600 : 10_000;

  await withServer({ transport: 'stdio' }, async (server) => {
    const peer = new StdioPeer(server);
    await peer.initialize();
    const marks: Marks = { at: [], heap: [], rss: [], failures: 0, seconds: 0 };
    const step = stdioTotal / 10;
    const started = performance.now();
    let id = 0;
    for (let k = 1; k <= 10; k++) {
      const ids: number[] = [];
      const lines: string[] = [];
      for (let j = 0; j < step; j++) {
        id++;
        ids.push(id);
        lines.push(JSON.stringify(callRequest(id, 'echo', { token: `t${id}` })));
      }
      marks.failures += await peer.pipeline(ids, lines, 500);
      for (const i of ids) {
        const answer = peer.answers.get(StdioPeer.key(i))?.[0];
        if (!answer || resultText(answer) !== `t${i}`) marks.failures++;
        peer.answers.delete(StdioPeer.key(i));
      }
      await mark(server, marks, id);
    }
    marks.seconds = (performance.now() - started) / 1000;
    measured.push(`stdio ${judge(checks, 'stdio', marks, step)}`);
    const stats = await server.ask<StatsReport>({ cmd: 'stats' });
    checks.expect(stats.liveScopes === 0, `stdio: ${stats.liveScopes} scopes open at the end`);
  });

  await withServer({ transport: 'http' }, async (server) => {
    const client = new HttpClient(server.url as string, 16);
    try {
      const marks: Marks = { at: [], heap: [], rss: [], failures: 0, seconds: 0 };
      const step = httpTotal / 10;
      const started = performance.now();
      let done = 0;
      for (let k = 1; k <= 10; k++) {
        let next = 0;
        await Promise.all(
          Array.from({ length: 16 }, async (_, worker) => {
            // Odd workers: a 2025-11-25 session of up to 50 calls, then DELETE; even: 2026-07-28 stateless.
            let session: string | undefined;
            let used = 0;
            while (next < step) {
              next++;
              try {
                if (worker % 2 === 1) {
                  if (!session) session = await client.openSession();
                  const reply = await client.call(session, used + 1, 'echo', { token: `w${worker}` });
                  if (reply.status !== 200 || resultText(reply.messages[0] ?? {}) !== `w${worker}`) marks.failures++;
                  if (++used === 50) {
                    await client.closeSession(session);
                    session = undefined;
                    used = 0;
                  }
                } else {
                  const reply = await client.send({
                    headers: { ...JSON_HEADERS, ...modernHeaders('tools/call', 'echo') },
                    body: JSON.stringify(modernCall(1, 'echo', { token: `w${worker}` })),
                  });
                  if (reply.status !== 200 || resultText(reply.messages[0] ?? {}) !== `w${worker}`) marks.failures++;
                }
              } catch {
                marks.failures++;
              }
            }
            if (session) await client.closeSession(session);
          }),
        );
        done += step;
        await mark(server, marks, done);
      }
      marks.seconds = (performance.now() - started) / 1000;
      measured.push(`HTTP ${judge(checks, 'http (2025-11-25 sessions of 50 calls + 2026-07-28 stateless, 16 in flight)', marks, step)}`);
    } finally {
      client.destroy();
    }
  });
  checks.measured = measured.join('; ');
  return checks;
}
