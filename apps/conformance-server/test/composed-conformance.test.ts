/**
 * The official MCP conformance suite against the BUILT server in its composed variant
 * (CONFORMANCE_COMPOSED=1): the suite's inventory served beside a part mounted under `extra` with
 * its own guard and interceptor and a tool hidden by tag, over Streamable HTTP, every scenario of
 * every targeted spec version: 0 failures, 0 warnings. The suite calls its tools by their names,
 * so its inventory is not itself prefixed; the mounted part and the visibility rules are on the
 * path of every list and call it makes.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killSuiteRuns, runSuite, summarize } from './support/conformance.js';
import { assertBuilt, type HttpServer, killStarted, startHttpServer } from './support/processes.js';
import { expectClean, REVISIONS, setOf } from './support/requirements.js';
import { TASKS_EXPECTED_FAILURES } from './tasks-expected-failures.js';

describe('over Streamable HTTP, the composed variant', () => {
  let server: HttpServer;

  beforeAll(async () => {
    assertBuilt();
    server = await startHttpServer(15_000, { CONFORMANCE_COMPOSED: '1' });
  });
  afterAll(async () => {
    killSuiteRuns();
    await server?.stop();
    killStarted();
  });

  it('serves the mounted part under its prefix, behind its guard and interceptor, its internal tool hidden', async () => {
    const client = new Client({ name: 'composed-check', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toContain('test_simple_text');
      expect(tools.filter((name) => name.startsWith('extra_'))).toEqual(['extra_seen']);
      expect((await client.readResource({ uri: 'extra://extra/info' })).contents[0]).toMatchObject({ text: 'the extra part' });
      const seen = await client.callTool({ name: 'extra_seen', arguments: {} });
      // The list asked the part guard of extra_seen (and of the hidden tool, never: hidden first),
      // the read and the call asked it again; the interceptor ran around the read and this call.
      expect(seen.structuredContent ?? JSON.parse((seen.content as { text: string }[])[0]?.text ?? '{}')).toEqual({
        guarded: 3,
        intercepted: 2,
      });
      await expect(client.callTool({ name: 'extra_internal', arguments: {} })).rejects.toThrow(/Unknown tool: "extra_internal"/);
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
        summarize(`HTTP, composed app, requirements ${revision}`, run, {
          notScored: setOf(revision).notScored,
          baseline: TASKS_EXPECTED_FAILURES,
        }),
      );
      expectClean(run, revision, { log: server.output().slice(-2000) });
    },
  );
});
