#!/usr/bin/env node
// The reliability figures of issues 5 and 9, measured against the built @armature/core and printed with
// their targets and a PASS/FAIL verdict each.
//
//   node dist/main.js            full form (by hand, a few minutes)
//   node dist/main.js --quick    short form (CI, well under 60 s on 2 cores)
//   --only 3,7                   run some figures only
//   --seed N                     repeat a run's random choices
//   --markdown FILE              also write the summary table as Markdown
//
// Each figure's verdict is PASS, FAIL (a correctness check failed) or MISSED (only a timing or
// memory target was missed). Exit status 0 only when every figure passed; the last line is
// `reliability: N passed, M failed` (MISSED counted as failed; CI's test reads the verdicts).
import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { killAll, killAllNow, sharingServers } from './child.js';
import { figure1 } from './figures/f1-concurrency.js';
import { figure2 } from './figures/f2-faults.js';
import { figure3 } from './figures/f3-large-body.js';
import { figure4 } from './figures/f4-timeout.js';
import { figure5 } from './figures/f5-cancellation.js';
import { figure6 } from './figures/f6-heap.js';
import { figure7 } from './figures/f7-event-loop.js';
import { figure8 } from './figures/f8-malformed.js';
import { figure9 } from './figures/f9-exhaustion.js';
import { figure10 } from './figures/f10-unread-notifications.js';
import { type Checks, type FigureResult, type Mode, markdownTable, printFigure, printSummary, type Verdict } from './report.js';

interface Figure {
  n: number;
  title: string;
  target: (mode: Mode) => string;
  run: (mode: Mode, seed: number) => Promise<Checks & { measured?: string; pending?: string }>;
}

const FIGURES: Figure[] = [
  {
    n: 1,
    title: 'Concurrent tools/call over HTTP (many sessions) and pipelined over one stdio pipe',
    target: (m) =>
      `every id answered exactly once, to its own caller; 0 lost, 0 duplicated (HTTP ${m.quick ? '10 sessions x 30' : '50 sessions x 200'} + ${m.quick ? '100' : '2,000'} stateless 2026-07-28; stdio ${m.quick ? '1,000' : '10,000'} pipelined)`,
    run: figure1,
  },
  {
    n: 2,
    title: 'A handler that throws (sync, async, non-Error values incl. null and undefined) on 1% of calls',
    target: (m) =>
      `every call answered, the process never exits, no unhandled rejection (stdio ${m.quick ? '3,000' : '100,000'} calls + HTTP ${m.quick ? '300' : '5,000'}, 1% throwing)`,
    run: figure2,
  },
  {
    n: 3,
    title: 'A 100 MB body POSTed over HTTP',
    target: () =>
      '413 in under 50 ms with no more than 1 MB server memory growth (Content-Length); chunked without Content-Length: 413 in under 50 ms, peak within the 4 MiB limit + 1 MB, <= 1 MB retained; the 413 reaches a plain client every time',
    run: figure3,
  },
  {
    n: 4,
    title: 'Never-resolving handlers answered by the timeout (createMcpApp { timeoutMs })',
    target: (m) =>
      `${m.quick ? '200' : '1,000'} answered by the timeout with an error, signals aborted, scopes disposed, heap after GC within 5% of baseline (stdio and HTTP)`,
    run: figure4,
  },
  {
    n: 5,
    title: 'Cancellations at random points (notifications/cancelled, 2025-11-25 over stdio)',
    target: (m) =>
      `${m.quick ? '1,000' : '10,000'} cancellations: no response for a cancelled id still running, every signal fired once, every scope disposed (liveScopes back to 0)`,
    run: figure5,
  },
  {
    n: 6,
    title: 'Heap after GC over a long run of requests',
    target: (m) =>
      `heap after GC at the end within 10% of the 10% mark (stdio ${m.quick ? '300 -> 3,000' : '10,000 -> 100,000'} requests; HTTP ${m.quick ? '60 -> 600' : '1,000 -> 10,000'})`,
    run: figure6,
  },
  {
    n: 7,
    title: 'Event-loop delay while parsing and checking tool-argument payloads up to 4 MiB',
    target: () =>
      'no single payload blocks the server event loop for more than 50 ms (monitorEventLoopDelay max), per payload, stdio + HTTP 2025 + HTTP 2026',
    run: figure7,
  },
  {
    n: 8,
    title: 'Malformed inputs over HTTP and stdio, raw bytes on the wire',
    target: () =>
      "every answer carries the spec's HTTP status and JSON-RPC error code, none carries a stack trace or file path, and a valid call after each case succeeds",
    run: figure8,
  },
  {
    n: 9,
    title: 'Resource exhaustion: session floods, listen streams, event-store bytes (issue 9)',
    target: (m) =>
      `one client keeps at most 100 sessions (429 + Retry-After) while another is served; ${m.quick ? '120' : '500'} sessions in all at maxSessions (503 + Retry-After); ` +
      'half-open sessions closed; 16 listen streams per client (-32603) while another client listens; 1 MB results kept within 32 MiB and purged on DELETE',
    run: figure9,
  },
  {
    n: 10,
    title: 'Unread notifications: 100,000 progress notifications or log lines to a client that never reads (issue 9)',
    target: () =>
      "server memory (heap + external after GC) grows <= 16 MB; /health within 250 ms of its no-flood time all along (plus the handler's own loop when it does not await); a handler awaiting its notifications waits for the client, one that does not await finishes (progress merged, surplus log lines dropped)",
    run: figure10,
  },
];

/** Which core was measured: the repository commit, whether core had local changes, when dist was built. */
function coreIdentity(): string {
  try {
    const dist = fileURLToPath(import.meta.resolve('@armature/core'));
    const built = statSync(dist)
      .mtime.toISOString()
      .replace(/\.\d+Z$/, 'Z');
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const git = (args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8', timeout: 5_000 }).stdout?.trim() ?? '';
    const head = git(['rev-parse', '--short', 'HEAD']);
    const dirty = git(['status', '--porcelain', '--', 'packages/core/src']) !== '';
    return `core dist built ${built}, repository ${head || 'unknown'}${dirty ? ' (packages/core/src has uncommitted changes)' : ''}`;
  } catch {
    return 'core version unknown';
  }
}

/** Other work on the machine shows in timings (figures 3 and 7): printed with every run. */
function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

async function main(): Promise<number> {
  const mode: Mode = { quick: process.argv.includes('--quick') };
  const seed = Number(option('seed') ?? Date.now() % 1_000_000);
  const only = option('only')
    ?.split(',')
    .map((s) => Number(s.trim()));
  const markdown = option('markdown');
  const selected = FIGURES.filter((f) => !only || only.includes(f.n));
  process.stdout.write(
    `reliability figures of @armature/core, ${mode.quick ? 'quick' : 'full'} form, seed ${seed}, node ${process.version}, ` +
      `${cpus().length} cores, load average ${load()}\n${coreIdentity()}\n\n`,
  );
  const results: FigureResult[] = [];
  const started = performance.now();
  for (const figure of selected) {
    const t0 = performance.now();
    let checks: Checks & { measured?: string; pending?: string };
    let crashed: string | undefined;
    try {
      checks = await sharingServers(() => figure.run(mode, seed));
    } catch (error) {
      const { Checks: ChecksClass } = await import('./report.js');
      checks = new ChecksClass();
      crashed = error instanceof Error ? (error.stack ?? error.message) : String(error);
      checks.expect(false, `the measurement itself failed: ${crashed}`);
    } finally {
      await killAll();
    }
    const verdict: Verdict =
      checks.failures.length > 0 ? (checks.pending ? 'PENDING' : 'FAIL') : checks.missed.length > 0 ? 'MISSED' : 'PASS';
    const result: FigureResult = {
      n: figure.n,
      title: figure.title,
      target: figure.target(mode),
      lines: checks.lines,
      measured: checks.measured ?? checks.lines.join('; '),
      verdict,
      failures: checks.failures,
      missed: checks.missed,
      notes: checks.pending ? [checks.pending, ...checks.notes] : checks.notes,
      seconds: (performance.now() - t0) / 1000,
    };
    results.push(result);
    printFigure(result);
  }
  printSummary(results);
  if (markdown) writeFileSync(markdown, markdownTable(results, `node apps/reliability/dist/main.js${mode.quick ? ' --quick' : ''}`));
  const passed = results.filter((r) => r.verdict === 'PASS').length;
  const failed = results.length - passed;
  process.stdout.write(`total time ${((performance.now() - started) / 1000).toFixed(1)} s, load average ${load()}\n`);
  process.stdout.write(`reliability: ${passed} passed, ${failed} failed\n`);
  return failed === 0 && results.length > 0 ? 0 : 1;
}

process.on('exit', killAllNow);
// Output piped into `head` and closed early: stop quietly (the exit hook kills the servers).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(1);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllNow();
    process.exit(130);
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`reliability: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.stdout.write('reliability: 0 passed, 1 failed\n');
    process.exitCode = 1;
  },
);
