/**
 * The official MCP conformance suite against the conformance app (its tsc output, unchanged) under
 * Bun and under Deno:
 * - over Streamable HTTP on the runtime's own server (Bun.serve / Deno.serve, this package's
 *   dist/main.js) and on the runtime's node:http (`app.listenHttp()`, the app's own dist/main.js):
 *   every targeted spec version, all scenarios (active and pending), 0 failures and 0 warnings;
 * - over stdio, through the conformance server's HTTP -> stdio bridge (one runtime process per
 *   session), the newest targeted spec version, all scenarios: 0 failures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  failures,
  killSuiteRuns,
  runSuite,
  specVersions,
  summarize,
  unexpectedWarnings,
} from '../../conformance-server/test/support/conformance.js';
import { type StdioBridge, startStdioBridge } from '../../conformance-server/test/support/stdio-bridge.js';
import { CONFORMANCE_MAIN, type HttpServer, killStarted, NATIVE_MAIN, runtimes, startHttpServer } from './support/runtimes.js';

/** Over stdio these scenarios test the bridge's HTTP layer, not the server. */
const BRIDGE_ONLY = new Map([
  ['dns-rebinding-protection', 'Host/Origin checks of the HTTP bridge'],
  ['server-sse-multiple-streams', 'concurrent SSE streams of the HTTP bridge'],
  ['server-sse-polling', 'SSE resumability of the HTTP bridge (no event store there)'],
]);

const TARGETED = specVersions().filter((v) => v.scenarios.length > 0);
const NEWEST = TARGETED.at(-1);

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

    it.each(TARGETED)('spec $version, all scenarios: 0 failures, 0 warnings', { timeout: 120_000 }, async ({ version, scenarios }) => {
      const run = await runSuite({ url: server.url, suite: 'all', specVersion: version, timeoutMs: 110_000 });
      console.log(summarize(`${runtime.name}, HTTP, spec ${version}, suite all`, run));
      expect(failures(run), server.output().slice(-2000)).toEqual([]);
      expect(unexpectedWarnings(run, [])).toEqual([]);
      expect([...run.planned].sort()).toEqual([...scenarios].sort());
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

    it(`spec ${NEWEST?.version}, all scenarios: 0 failures`, { timeout: 200_000 }, async () => {
      if (!NEWEST) throw new Error('the suite targets no spec version');
      const run = await runSuite({ url: bridge.url, suite: 'all', specVersion: NEWEST.version, timeoutMs: 190_000 });
      console.log(summarize(`${runtime.name}, stdio, spec ${NEWEST.version}, suite all`, run, { excluded: BRIDGE_ONLY }));
      expect(failures(run, BRIDGE_ONLY), `server stderr (last lines):\n${bridge.log.slice(-30).join('\n')}`).toEqual([]);
      expect([...run.planned].sort()).toEqual([...NEWEST.scenarios].sort());
    });
  });
});
