// Figure 5: 10,000 cancellations at random points (notifications/cancelled on a 2025-11-25 stdio
// connection): no response for a cancelled id still running, every signal fired once, every scope
// disposed (app.stats.liveScopes back to 0).
//
// Each call sleeps a random 0-40 ms; its cancel is sent a random 0-40 ms after the request (some in
// the same write, before the server has even read the request), so cancels land before the handler
// starts, while it runs, and after it has answered. Half the handlers stop on the signal, half
// ignore it and return normally (the SDK must still send nothing for them). The server records,
// per request id, how often the method started and how often its signal fired; the script joins
// that with what came back on the wire.
import { performance } from 'node:perf_hooks';
import { withServer } from '../child.js';
import { Checks, type Mode, n, random, sleep, until } from '../report.js';
import type { CallsReport, StatsReport } from '../server/protocol.js';
import { callRequest } from '../wire/jsonrpc.js';
import { StdioPeer } from '../wire/stdio-peer.js';

export async function figure5(mode: Mode, seed: number): Promise<Checks & { measured?: string }> {
  const checks: Checks & { measured?: string } = new Checks();
  const rand = random(seed + 5);
  const cancelled = mode.quick ? 1_000 : 10_000;
  const controls = mode.quick ? 200 : 2_000;
  const total = cancelled + controls;
  const batch = 250;

  await withServer({ transport: 'stdio' }, async (server) => {
    const peer = new StdioPeer(server);
    await peer.initialize();
    await server.ask({ cmd: 'reset' });

    // Which ids are cancelled: a random `cancelled` of the `total`.
    const isCancelled = new Array<boolean>(total + 1).fill(false);
    const order = Array.from({ length: total }, (_, i) => i + 1);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const id of order.slice(0, cancelled)) isCancelled[id] = true;

    const obeys = new Array<boolean>(total + 1).fill(false);
    const started = performance.now();
    const timers: Promise<void>[] = [];
    for (let first = 1; first <= total; first += batch) {
      const last = Math.min(total, first + batch - 1);
      const immediate: string[] = [];
      const lines: string[] = [];
      for (let id = first; id <= last; id++) {
        obeys[id] = rand() < 0.5;
        lines.push(JSON.stringify(callRequest(id, 'slow', { ms: Math.floor(rand() * 40), obey: obeys[id] })));
        if (!isCancelled[id]) continue;
        const cancel = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'figure 5' } })}\n`;
        const after = rand() * 40;
        if (after < 2)
          immediate.push(cancel); // in the same write as the request
        else timers.push(sleep(after).then(() => peer.write(cancel)));
      }
      await peer.write(`${lines.join('\n')}\n${immediate.join('')}`);
      await sleep(30);
    }
    await Promise.all(timers);
    // Every call has finished when no scope is open any more and nothing arrives for a while.
    await until(async () => (await server.ask<StatsReport>({ cmd: 'stats' })).liveScopes === 0, 15_000, 50);
    await sleep(300);
    const seconds = (performance.now() - started) / 1000;
    const stats = await server.ask<StatsReport>({ cmd: 'stats' });
    const records = new Map(
      (await server.ask<CallsReport>({ cmd: 'calls' })).map(([id, starts, aborts, done]) => [id, { starts, aborts, done }]),
    );

    let cancelledInFlight = 0; // signal fired, no response: the cancellation took effect
    let cancelledIgnoring = 0; // ... of which the handler ignored the signal and returned normally
    let cancelledLate = 0; // no signal, one response: the call had answered before the cancel arrived
    let answeredAfterAbort = 0; // signal fired and a response came: a violation
    let lost = 0; // no signal and no response
    let doubleAbort = 0;
    let duplicated = 0;
    let controlWrong = 0;
    let startedTwice = 0;
    const examples: string[] = [];
    for (let id = 1; id <= total; id++) {
      const record = records.get(String(id)) ?? { starts: 0, aborts: 0, done: false };
      const answers = peer.count(id);
      if (record.starts > 1) startedTwice++;
      if (record.aborts > 1) doubleAbort++;
      if (answers > 1) duplicated++;
      if (!isCancelled[id]) {
        if (answers !== 1 || record.aborts !== 0 || record.starts !== 1) {
          controlWrong++;
          if (examples.length < 4) examples.push(`control ${id}: ${answers} answers, ${record.aborts} aborts, ${record.starts} starts`);
        }
        continue;
      }
      if (record.aborts >= 1 && answers === 0) {
        cancelledInFlight++;
        if (!obeys[id] && record.done) cancelledIgnoring++;
      } else if (record.aborts === 0 && answers === 1) cancelledLate++;
      else if (record.aborts >= 1 && answers >= 1) {
        answeredAfterAbort++;
        if (examples.length < 4) examples.push(`id ${id}: signal fired and ${answers} response(s) sent`);
      } else {
        lost++;
        if (examples.length < 4) examples.push(`id ${id}: no signal, no response (started ${record.starts}, done ${record.done})`);
      }
    }
    checks.line(
      `stdio 2025-11-25: ${n(total)} calls in ${seconds.toFixed(1)} s, ${n(cancelled)} cancelled at random points + ${n(controls)} not cancelled`,
    );
    checks.line(
      `cancelled while running: ${n(cancelledInFlight)} (signal fired once, no response; ${n(cancelledIgnoring)} of them ignored the signal and returned anyway); ` +
        `cancel arrived after the answer: ${n(cancelledLate)}; answered after the signal fired: ${answeredAfterAbort}; lost: ${lost}`,
    );
    checks.line(
      `signals fired more than once: ${doubleAbort}; duplicated answers: ${duplicated}; methods started twice: ${startedTwice}; wrong controls: ${controlWrong}; ` +
        `scopes built ${n(stats.constructed)} / disposed ${n(stats.disposed)}, open scopes ${stats.liveScopes}, unhandled rejections ${stats.unhandledRejections}`,
    );
    checks.measured =
      `${n(cancelled)} cancels: ${n(cancelledInFlight)} took effect (signal once, no response), ${n(cancelledLate)} after the answer; ` +
      `${answeredAfterAbort} responses after abort, ${lost} lost, ${doubleAbort} double signals; scopes ${n(stats.constructed)} built / ${n(stats.disposed)} disposed, liveScopes ${stats.liveScopes}`;
    checks.expect(answeredAfterAbort === 0, `${answeredAfterAbort} cancelled ids still running got a response: ${examples.join(' | ')}`);
    checks.expect(lost === 0, `${lost} cancelled ids got neither a fired signal nor a response: ${examples.join(' | ')}`);
    checks.expect(doubleAbort === 0, `${doubleAbort} signals fired more than once`);
    checks.expect(duplicated === 0 && startedTwice === 0, `${duplicated} duplicated answers, ${startedTwice} methods started twice`);
    checks.expect(controlWrong === 0, `${controlWrong} calls that were not cancelled went wrong: ${examples.join(' | ')}`);
    checks.expect(stats.liveScopes === 0, `app.stats.liveScopes is ${stats.liveScopes} after every call finished`);
    checks.expect(stats.disposed === stats.constructed, `${stats.constructed - stats.disposed} scopes were never disposed`);
    checks.expect(stats.unhandledRejections === 0, `${stats.unhandledRejections} unhandled rejections (first: ${stats.firstUnhandled})`);
    checks.expect(cancelledInFlight > 0 && cancelledLate > 0, 'the random cancel points did not cover both in-flight and late cancels');
    checks.expect(peer.garbage.length === 0, `${peer.garbage.length} non-JSON lines on stdout`);
  });
  return checks;
}
