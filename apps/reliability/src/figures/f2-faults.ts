// Figure 2: a handler that throws (sync, async, non-Error values including null and undefined) on
// 1% of 100,000 calls: every call answered, the process never exits, no unhandled rejection.
import { performance } from 'node:perf_hooks';
import { withServer } from '../child.js';
import { Checks, type Mode, n, random } from '../report.js';
import { FAILURE_KINDS } from '../server/fixture.js';
import type { StatsReport } from '../server/protocol.js';
import { HttpClient } from '../wire/http-peer.js';
import { callRequest, type JsonRpcMessage, leak, resultText } from '../wire/jsonrpc.js';
import { StdioPeer } from '../wire/stdio-peer.js';

interface Plan {
  /** For call i: the failure kind, or undefined for a call that succeeds. */
  failures: Array<string | undefined>;
  failing: number;
}

/** Exactly 1% fail: one random call in every block of 100, the kinds taken in turn. */
function plan(total: number, rand: () => number): Plan {
  const failures: Array<string | undefined> = new Array(total).fill(undefined);
  let failing = 0;
  for (let block = 0; block < total; block += 100) {
    const size = Math.min(100, total - block);
    if (size < 100) break;
    failures[block + Math.floor(rand() * size)] = FAILURE_KINDS[failing % FAILURE_KINDS.length];
    failing++;
  }
  return { failures, failing };
}

interface Outcome {
  answered: number;
  unanswered: number;
  wrong: number;
  failedAsIsError: number;
  leaks: number;
  examples: string[];
  kindsSeen: Map<string, string>;
}

function classify(outcome: Outcome, i: number, kind: string | undefined, answer: JsonRpcMessage | undefined): void {
  if (!answer) {
    outcome.unanswered++;
    return;
  }
  outcome.answered++;
  const text = resultText(answer) ?? '';
  const problem = leak(JSON.stringify(answer));
  if (problem) {
    outcome.leaks++;
    if (outcome.examples.length < 3) outcome.examples.push(`call ${i} (${kind ?? 'ok'}): ${problem}`);
  }
  if (kind === undefined) {
    if (answer.error || answer.result?.isError || text !== String(i)) {
      outcome.wrong++;
      if (outcome.examples.length < 3) outcome.examples.push(`call ${i}: expected "${i}", got ${JSON.stringify(answer).slice(0, 160)}`);
    }
    return;
  }
  if (answer.result?.isError === true && text.length > 0) {
    outcome.failedAsIsError++;
    if (!outcome.kindsSeen.has(kind)) outcome.kindsSeen.set(kind, text);
  } else {
    outcome.wrong++;
    if (outcome.examples.length < 3)
      outcome.examples.push(`call ${i} (${kind}): expected an isError result, got ${JSON.stringify(answer).slice(0, 160)}`);
  }
}

const empty = (): Outcome => ({ answered: 0, unanswered: 0, wrong: 0, failedAsIsError: 0, leaks: 0, examples: [], kindsSeen: new Map() });

async function serverChecks(checks: Checks, label: string, stats: StatsReport, alive: boolean, pid: number | undefined, failing: number) {
  checks.line(
    `${label} server: alive ${alive}, pid ${stats.pid} unchanged ${stats.pid === pid}, unhandled rejections ${stats.unhandledRejections}, ` +
      `threw ${n(stats.thrown)} (planned ${n(failing)}), reported through onError ${n(stats.reported)}, open scopes ${stats.liveScopes}`,
  );
  checks.expect(alive && stats.pid === pid, `${label}: the server process exited or was replaced`);
  checks.expect(
    stats.unhandledRejections === 0,
    `${label}: ${stats.unhandledRejections} unhandled rejections in the server (first: ${stats.firstUnhandled})`,
  );
  checks.expect(stats.thrown === failing, `${label}: the handler threw ${stats.thrown} times, planned ${failing}`);
  checks.expect(stats.liveScopes === 0, `${label}: ${stats.liveScopes} DI scopes still open`);
}

function judge(checks: Checks, label: string, total: number, plan: Plan, outcome: Outcome, seconds: number): void {
  checks.line(
    `${label}: ${n(total)} calls, ${n(plan.failing)} throwing: ${n(outcome.answered)} answered, ${outcome.unanswered} unanswered, ` +
      `${n(outcome.failedAsIsError)} failures answered as isError results, ${outcome.wrong} wrong answers, ${outcome.leaks} leaking internals, ${seconds.toFixed(1)} s`,
  );
  checks.expect(outcome.unanswered === 0, `${label}: ${outcome.unanswered} calls got no answer`);
  checks.expect(outcome.wrong === 0, `${label}: ${outcome.wrong} wrong answers: ${outcome.examples.join(' | ')}`);
  checks.expect(
    outcome.leaks === 0,
    `${label}: ${outcome.leaks} answers carry a stack trace or file path: ${outcome.examples.join(' | ')}`,
  );
  checks.expect(
    outcome.failedAsIsError === plan.failing,
    `${label}: ${outcome.failedAsIsError} of ${plan.failing} failures answered as isError`,
  );
}

export async function figure2(mode: Mode, seed: number): Promise<Checks & { measured?: string }> {
  const checks: Checks & { measured?: string } = new Checks();
  const rand = random(seed + 2);
  const stdioTotal = mode.quick ? 3_000 : 100_000;
  const httpTotal = mode.quick ? 300 : 5_000;
  const measured: string[] = [];

  await withServer({ transport: 'stdio' }, async (server) => {
    const peer = new StdioPeer(server);
    await peer.initialize();
    await server.ask({ cmd: 'reset' });
    const p = plan(stdioTotal, rand);
    const ids = Array.from({ length: stdioTotal }, (_, i) => i + 1);
    const lines = ids.map((id, i) => JSON.stringify(callRequest(id, 'flaky', p.failures[i] ? { i, fail: p.failures[i] } : { i })));
    const started = performance.now();
    await peer.pipeline(ids, lines, 1_000);
    const seconds = (performance.now() - started) / 1000;
    const outcome = empty();
    let duplicated = 0;
    for (let i = 0; i < stdioTotal; i++) {
      const answers = peer.answers.get(StdioPeer.key(i + 1)) ?? [];
      if (answers.length > 1) duplicated++;
      classify(outcome, i, p.failures[i], answers[0]);
    }
    judge(checks, 'stdio', stdioTotal, p, outcome, seconds);
    checks.expect(duplicated === 0, `stdio: ${duplicated} ids answered more than once`);
    checks.line(`failure kinds and the text their caller got: ${[...outcome.kindsSeen].map(([k, t]) => `${k} -> "${t}"`).join('; ')}`);
    const stats = await server.ask<StatsReport>({ cmd: 'stats' });
    await serverChecks(checks, 'stdio', stats, server.alive, server.pid, p.failing);
    measured.push(
      `stdio ${n(stdioTotal)} calls (${n(p.failing)} throwing, ${FAILURE_KINDS.length} kinds): ${n(outcome.answered)} answered, process alive, ${stats.unhandledRejections} unhandled rejections`,
    );
  });

  await withServer({ transport: 'http' }, async (server) => {
    const client = new HttpClient(server.url as string, 64);
    try {
      const sessions = await Promise.all(Array.from({ length: 8 }, () => client.openSession()));
      await server.ask({ cmd: 'reset' });
      const p = plan(httpTotal, rand);
      const outcome = empty();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 64 }, async (_, worker) => {
          while (next < httpTotal) {
            const i = next++;
            const args = p.failures[i] ? { i, fail: p.failures[i] } : { i };
            let answer: JsonRpcMessage | undefined;
            try {
              const reply = await client.call(sessions[worker % sessions.length], i + 1, 'flaky', args, 30_000);
              const responses = reply.messages.filter((m) => m.method === undefined);
              if (responses.length > 1) outcome.wrong++;
              answer = responses.find((m) => m.id === i + 1);
              if (reply.status !== 200 && outcome.examples.length < 3) outcome.examples.push(`HTTP ${reply.status}`);
            } catch (error) {
              if (outcome.examples.length < 3) outcome.examples.push((error as Error).message);
            }
            classify(outcome, i, p.failures[i], answer);
          }
        }),
      );
      judge(checks, 'http 2025-11-25 (8 sessions, 64 in flight)', httpTotal, p, outcome, (performance.now() - started) / 1000);
      const stats = await server.ask<StatsReport>({ cmd: 'stats' });
      await serverChecks(checks, 'http', stats, server.alive, server.pid, p.failing);
      measured.push(
        `HTTP ${n(httpTotal)} calls: ${n(outcome.answered)} answered, process alive, ${stats.unhandledRejections} unhandled rejections`,
      );
    } finally {
      client.destroy();
    }
  });
  checks.measured = measured.join('; ');
  return checks;
}
