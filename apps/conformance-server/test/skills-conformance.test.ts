/**
 * The suite's three skills scenarios (SEP-2640: enumeration, the SKILL.md manifest, directory reads)
 * against the BUILT server, which serves the skills of ../skills. They are extension scenarios, in
 * no requirement set, so each is run by name: at the suite's latest revision (2026-07-28), and forced
 * at 2025-11-25; over Streamable HTTP and over stdio (through the HTTP -> stdio bridge). Every check
 * must pass: none failed, no warning, none skipped (at 2025-11-25 but the two the suite gates on
 * 2026-07-28).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killSuiteRuns, runSuite } from './support/conformance.js';
import { assertBuilt, type HttpServer, killStarted, MAIN, startHttpServer } from './support/processes.js';
import { type StdioBridge, startStdioBridge } from './support/stdio-bridge.js';

const SCENARIOS = ['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'];
const RUNS = SCENARIOS.flatMap((scenario) => [
  { scenario, specVersion: undefined },
  { scenario, specVersion: '2025-11-25' },
]);

/**
 * The checks the suite itself skips below 2026-07-28, whatever the server does: ttlMs and cacheScope
 * are defined from 2026-07-28 (the server sends them on both revisions).
 */
const SKIPPED_BEFORE_2026 = ['sep-2640-skills-list-cache-attributes', 'sep-2640-skills-get-cache-attributes'];

async function expectAllPassed(url: string, scenario: string, specVersion: string | undefined) {
  const run = await runSuite({ url, scenario, ...(specVersion ? { specVersion, force: true } : {}), timeoutMs: 120_000 });
  expect(run.planned, run.log.slice(-2000)).toEqual([scenario]);
  const [result] = run.results;
  const revisionGated = (check: { id: string; status: string }) =>
    specVersion === '2025-11-25' && check.status === 'SKIPPED' && SKIPPED_BEFORE_2026.includes(check.id);
  const notPassed = result?.checks.filter((check) => check.status !== 'SUCCESS' && check.status !== 'INFO' && !revisionGated(check)) ?? [];
  expect(
    notPassed.map((check) => `${check.status} ${check.id}: ${check.errorMessage ?? ''}`),
    run.log.slice(-2000),
  ).toEqual([]);
  // The enumeration's entry-level checks ran (a listing without skills would skip them).
  expect(result?.passed ?? 0).toBeGreaterThanOrEqual(scenario === 'sep-2640-skills-enumeration' ? 25 : 5);
}

beforeAll(() => {
  assertBuilt();
});
afterAll(() => {
  killSuiteRuns();
  killStarted();
});

describe('skills scenarios over Streamable HTTP', () => {
  let server: HttpServer;
  beforeAll(async () => {
    server = await startHttpServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each(RUNS)('$scenario at $specVersion: every check passes', { timeout: 150_000 }, async ({ scenario, specVersion }) => {
    await expectAllPassed(server.url, scenario, specVersion);
  });
});

describe('skills scenarios over stdio, through the HTTP -> stdio bridge', () => {
  let bridge: StdioBridge;
  beforeAll(async () => {
    bridge = await startStdioBridge({ command: [process.execPath, MAIN, '--stdio'] });
  });
  afterAll(async () => {
    await bridge?.close();
  });

  it.each(RUNS.filter((run) => run.specVersion === '2025-11-25'))(
    '$scenario at $specVersion: every check passes',
    { timeout: 150_000 },
    async ({ scenario, specVersion }) => {
      await expectAllPassed(bridge.url, scenario, specVersion);
    },
  );
});
