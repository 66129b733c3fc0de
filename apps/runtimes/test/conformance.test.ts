/**
 * The official MCP conformance suite against the conformance app (its tsc output, unchanged) under
 * Bun and under Deno:
 * - over Streamable HTTP on the runtime's own server (Bun.serve / Deno.serve, this package's
 *   dist/main.js) and on the runtime's node:http (`app.listenHttp()`, the app's own dist/main.js):
 *   the 2025-11-25 and 2026-07-28 requirement sets, held to what the conformance server's own run
 *   is held to (0 failures, its known warnings only, the tasks extension at its baseline);
 * - over stdio, through the conformance server's HTTP -> stdio bridge (one runtime process per
 *   session), the 2025-11-25 requirement set: 0 failures.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { killSuiteRuns, runSuite, summarize } from '../../conformance-server/test/support/conformance.js';
import { expectClean, REVISIONS, setOf } from '../../conformance-server/test/support/requirements.js';
import { type StdioBridge, startStdioBridge } from '../../conformance-server/test/support/stdio-bridge.js';
import { TASKS_EXPECTED_FAILURES } from '../../conformance-server/test/tasks-expected-failures.js';
import { CONFORMANCE_MAIN, type HttpServer, killStarted, NATIVE_MAIN, runtimes, startHttpServer } from './support/runtimes.js';

/** Over stdio these scenarios test the bridge's HTTP layer, not the server. */
const BRIDGE_ONLY = new Map([
  ['dns-rebinding-protection', 'Host/Origin checks of the HTTP bridge'],
  ['server-sse-multiple-streams', 'concurrent SSE streams of the HTTP bridge'],
  ['server-sse-polling', 'SSE resumability of the HTTP bridge (no event store there)'],
]);

afterAll(() => {
  killSuiteRuns();
  killStarted();
});

describe.each(runtimes())('$name', (runtime) => {
  describe.each([
    { server: `${runtime.name}'s own server`, entry: NATIVE_MAIN },
    { server: 'node:http (app.listenHttp)', entry: CONFORMANCE_MAIN },
  ])('over Streamable HTTP on $server', ({ entry }) => {
    let server: HttpServer;
    beforeAll(async () => {
      server = await startHttpServer(runtime.run(entry));
    });
    afterAll(async () => {
      await server?.stop();
    });

    it.each(REVISIONS)('requirements %s: 0 failures, known warnings only', { timeout: 120_000 }, async (revision) => {
      const run = await runSuite({ url: server.url, requirements: revision, timeoutMs: 110_000 });
      console.log(
        summarize(`${runtime.name}, HTTP, requirements ${revision}`, run, {
          notScored: setOf(revision).notScored,
          baseline: TASKS_EXPECTED_FAILURES,
        }),
      );
      expectClean(run, revision, { log: server.output().slice(-2000) });
    });
  });

  describe('over stdio, through the HTTP -> stdio bridge', () => {
    let bridge: StdioBridge;
    beforeAll(async () => {
      bridge = await startStdioBridge({ command: runtime.run(CONFORMANCE_MAIN, '--stdio') });
    });
    afterAll(async () => {
      await bridge?.close();
    });

    it('requirements 2025-11-25: 0 failures', { timeout: 420_000 }, async () => {
      const run = await runSuite({ url: bridge.url, requirements: '2025-11-25', timeoutMs: 400_000 });
      console.log(
        summarize(`${runtime.name}, stdio, requirements 2025-11-25`, run, {
          excluded: BRIDGE_ONLY,
          notScored: setOf('2025-11-25').notScored,
        }),
      );
      expectClean(run, '2025-11-25', { excluded: BRIDGE_ONLY, log: `server stderr (last lines):\n${bridge.log.slice(-30).join('\n')}` });
    });
  });
});
