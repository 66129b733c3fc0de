// Figure 1: 10,000 concurrent tools/call over HTTP across many sessions and 10,000 pipelined over
// one stdio pipe: every id answered exactly once, to its own caller; 0 lost, 0 duplicated.
import { performance } from 'node:perf_hooks';
import { withServer } from '../child.js';
import { Checks, type Mode, n, random } from '../report.js';
import type { StatsReport } from '../server/protocol.js';
import { HttpClient, modernHeaders, preconnect } from '../wire/http-peer.js';
import { callRequest, modernCall, resultText } from '../wire/jsonrpc.js';
import { StdioPeer } from '../wire/stdio-peer.js';

interface Tally {
  sent: number;
  answered: number;
  lost: number;
  duplicated: number;
  misrouted: number;
  errors: number;
  examples: string[];
}

const tally = (): Tally => ({ sent: 0, answered: 0, lost: 0, duplicated: 0, misrouted: 0, errors: 0, examples: [] });

function example(t: Tally, text: string): void {
  if (t.examples.length < 3) t.examples.push(text);
}

function describe(t: Tally): string {
  return `${n(t.sent)} sent, ${n(t.answered)} answered once, ${t.lost} lost, ${t.duplicated} duplicated, ${t.misrouted} misrouted, ${t.errors} errors`;
}

function judge(checks: Checks, label: string, t: Tally): void {
  const ok = t.answered === t.sent && t.lost === 0 && t.duplicated === 0 && t.misrouted === 0 && t.errors === 0;
  checks.expect(ok, `${label}: ${describe(t)}${t.examples.length ? `; e.g. ${t.examples.join(' | ')}` : ''}`);
}

export async function figure1(mode: Mode, seed: number): Promise<Checks & { measured?: string }> {
  const checks: Checks & { measured?: string } = new Checks();
  const measured: string[] = [];
  const sessions = mode.quick ? 10 : 50;
  const perSession = mode.quick ? 30 : 200;
  const modernCount = mode.quick ? 100 : 2_000;
  const stdioCount = mode.quick ? 1_000 : 10_000;
  const rand = random(seed);

  await withServer({ transport: 'http' }, async (server) => {
    const url = server.url as string;
    const client = new HttpClient(url, 16);
    const sockets: import('node:net').Socket[] = [];
    try {
      const ids = await Promise.all(Array.from({ length: sessions }, () => client.openSession()));
      // One connected socket per request: every request is in flight at the server at once.
      const connectStarted = performance.now();
      sockets.push(...(await preconnect(url, sessions * perSession + modernCount)));
      checks.line(
        `${n(sockets.length)} connections opened in ${((performance.now() - connectStarted) / 1000).toFixed(1)} s before the bursts`,
      );
      let socket = 0;
      const t = tally();
      const started = performance.now();
      const calls: Promise<void>[] = [];
      for (let s = 0; s < sessions; s++) {
        for (let j = 0; j < perSession; j++) {
          // The same ids in every session; the token names the caller, so a crossed answer shows.
          const id = j + 1;
          const token = `s${s}-r${j}-${Math.floor(rand() * 1e9)}`;
          const delayMs = Math.floor(rand() * 20);
          t.sent++;
          calls.push(
            client.call(ids[s], id, 'echo', { token, delayMs }, 120_000, sockets[socket++]).then(
              (answer) => {
                const responses = answer.messages.filter((m) => m.id !== undefined && m.method === undefined);
                if (answer.status !== 200) {
                  t.errors++;
                  example(t, `HTTP ${answer.status} ${answer.text.slice(0, 120)}`);
                  return;
                }
                if (responses.length === 0) {
                  t.lost++;
                  return;
                }
                if (responses.length > 1) t.duplicated++;
                const first = responses[0];
                if (first.error) {
                  t.errors++;
                  example(t, JSON.stringify(first.error).slice(0, 120));
                } else if (first.id !== id || resultText(first) !== token) {
                  t.misrouted++;
                  example(t, `sent id ${id} token ${token}, got id ${String(first.id)} text ${resultText(first)}`);
                } else if (responses.length === 1) t.answered++;
              },
              (error: Error) => {
                t.lost++;
                example(t, error.message);
              },
            ),
          );
        }
      }
      await Promise.all(calls);
      const seconds = (performance.now() - started) / 1000;
      checks.line(`http 2025-11-25, ${sessions} sessions x ${perSession} in flight: ${describe(t)} in ${seconds.toFixed(1)} s`);
      judge(checks, 'http 2025-11-25', t);
      measured.push(
        `HTTP ${n(t.sent)} over ${sessions} sessions: ${n(t.answered)} answered once, ${t.lost} lost, ${t.duplicated} dup, ${t.misrouted} misrouted`,
      );

      // The stateless 2026-07-28 leg of the same endpoint: no sessions, every id "1".
      const m = tally();
      const modernStarted = performance.now();
      await Promise.all(
        Array.from({ length: modernCount }, async (_, i) => {
          const token = `m${i}-${Math.floor(rand() * 1e9)}`;
          m.sent++;
          try {
            const answer = await client.send({
              headers: {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                ...modernHeaders('tools/call', 'echo'),
              },
              body: JSON.stringify(modernCall(1, 'echo', { token, delayMs: Math.floor(rand() * 20) })),
              timeoutMs: 120_000,
              socket: sockets[socket++],
            });
            const responses = answer.messages.filter((msg) => msg.id !== undefined && msg.method === undefined);
            if (answer.status !== 200 || responses.length === 0 || responses[0].error) {
              m.errors++;
              example(m, `HTTP ${answer.status} ${answer.text.slice(0, 120)}`);
            } else if (responses.length > 1) m.duplicated++;
            else if (resultText(responses[0]) !== token || responses[0].id !== 1) {
              m.misrouted++;
              example(m, `sent token ${token}, got ${resultText(responses[0])}`);
            } else m.answered++;
          } catch (error) {
            m.lost++;
            example(m, (error as Error).message);
          }
        }),
      );
      checks.line(
        `http 2026-07-28, ${n(modernCount)} stateless in flight: ${describe(m)} in ${((performance.now() - modernStarted) / 1000).toFixed(1)} s`,
      );
      judge(checks, 'http 2026-07-28', m);
      measured.push(`HTTP 2026 ${n(m.sent)}: ${n(m.answered)} answered once, ${m.lost} lost, ${m.duplicated} dup`);
      await Promise.all(ids.map((id) => client.closeSession(id)));
      const stats = await server.ask<StatsReport>({ cmd: 'stats' });
      checks.expect(stats.liveScopes === 0, `http: ${stats.liveScopes} DI scopes still open after every call was answered`);
      checks.expect(server.alive, 'http: the server process exited');
    } finally {
      for (const s of sockets) s.destroy();
      client.destroy();
    }
  });

  await withServer({ transport: 'stdio' }, async (server) => {
    const peer = new StdioPeer(server);
    await peer.initialize();
    const t = tally();
    const tokens = new Map<number, string>();
    const lines: string[] = [];
    for (let i = 1; i <= stdioCount; i++) {
      const token = `p${i}-${Math.floor(rand() * 1e9)}`;
      tokens.set(i, token);
      lines.push(JSON.stringify(callRequest(i, 'echo', { token, delayMs: Math.floor(rand() * 20) })));
    }
    t.sent = stdioCount;
    const started = performance.now();
    // Every request written before any answer is read: one pipelined burst.
    await peer.write(`${lines.join('\n')}\n`);
    const deadline = Date.now() + (mode.quick ? 20_000 : 60_000);
    while (Date.now() < deadline) {
      let have = 0;
      for (let i = 1; i <= stdioCount; i++) if (peer.count(i) > 0) have++;
      if (have === stdioCount) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    // Give a duplicate time to show up.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 1; i <= stdioCount; i++) {
      const answers = peer.answers.get(StdioPeer.key(i)) ?? [];
      if (answers.length === 0) {
        t.lost++;
        continue;
      }
      if (answers.length > 1) {
        t.duplicated++;
        continue;
      }
      const [answer] = answers;
      if (answer.error) {
        t.errors++;
        example(t, JSON.stringify(answer.error).slice(0, 120));
      } else if (resultText(answer) !== tokens.get(i)) {
        t.misrouted++;
        example(t, `id ${i}: expected ${tokens.get(i)}, got ${resultText(answer)}`);
      } else t.answered++;
    }
    const sentKeys = new Set(Array.from({ length: stdioCount }, (_, i) => StdioPeer.key(i + 1)));
    const stray = [...peer.answers.keys()].filter((key) => !sentKeys.has(key) && !peer.ownIds.has(key));
    checks.line(`stdio, ${n(stdioCount)} pipelined on one pipe: ${describe(t)}, ${stray.length} stray ids in ${seconds.toFixed(1)} s`);
    judge(checks, 'stdio', t);
    measured.push(
      `stdio ${n(t.sent)} pipelined: ${n(t.answered)} answered once, ${t.lost} lost, ${t.duplicated} dup, ${t.misrouted} misrouted`,
    );
    checks.expect(
      stray.length === 0 && peer.nullIdAnswers.length === 0,
      `stdio: answers to ids never sent: ${stray.slice(0, 5).join(', ')}`,
    );
    const stats = await server.ask<StatsReport>({ cmd: 'stats' });
    checks.expect(stats.liveScopes === 0, `stdio: ${stats.liveScopes} DI scopes still open after every call was answered`);
  });
  checks.measured = measured.join('; ');
  return checks;
}
