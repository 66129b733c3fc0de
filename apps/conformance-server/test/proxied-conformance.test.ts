/**
 * The official MCP conformance suite against the BUILT server in its gateway variant
 * (CONFORMANCE_PROXIED=1): an app whose only part is the conformance server itself, run as a child
 * process over stdio and served as a remote server under its own names (`remoteServer`). Every
 * list, call, read, completion, progress notification, log line, elicitation and sampling request
 * of the suite crosses the proxy both ways, over Streamable HTTP, every scenario of every targeted
 * spec version.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killSuiteRuns, runSuite, summarize } from './support/conformance.js';
import { assertBuilt, type HttpServer, killStarted, startHttpServer } from './support/processes.js';
import { expectClean, REVISIONS, setOf, TASKS_SCENARIOS } from './support/requirements.js';

/**
 * A gateway serves a remote's tools as plain calls (docs/proxy.md: MCP tasks of the remote are not
 * relayed), so the tasks extension scenarios fail through it, but for two: tasks-status-notifications
 * (skipped by the suite itself) and tasks-required-task-error (a client without the extension is
 * refused the same way).
 */
const THROUGH_A_GATEWAY: ReadonlyMap<string, string> = new Map(
  TASKS_SCENARIOS.filter((name) => name !== 'tasks-status-notifications' && name !== 'tasks-required-task-error').map((name) => [
    name,
    "a gateway does not relay the remote's tasks: its task tools are served as plain calls",
  ]),
);

describe('over Streamable HTTP, the gateway variant (the server behind a proxy of itself)', () => {
  let server: HttpServer;

  beforeAll(async () => {
    assertBuilt();
    server = await startHttpServer(15_000, { CONFORMANCE_PROXIED: '1' });
  });
  afterAll(async () => {
    killSuiteRuns();
    await server?.stop();
    killStarted();
  });

  it('serves the remote inventory under its own names, answered by another process', async () => {
    const client = new Client({ name: 'proxied-check', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('test_simple_text');
      expect(await client.callTool({ name: 'test_simple_text', arguments: {} })).toMatchObject({
        content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
      });
    } finally {
      await client.close();
    }
  });

  it.each(REVISIONS)(
    'requirements %s: 0 failures, known warnings only, tasks extension at its baseline',
    { timeout: 200_000 },
    async (revision) => {
      const run = await runSuite({ url: server.url, requirements: revision, timeoutMs: 180_000 });
      console.log(
        summarize(`HTTP, proxied app, requirements ${revision}`, run, {
          notScored: setOf(revision).notScored,
          baseline: THROUGH_A_GATEWAY,
        }),
      );
      expectClean(run, revision, { log: server.output().slice(-2000), baseline: THROUGH_A_GATEWAY });
    },
  );
});
