/**
 * The official v2 client (`@modelcontextprotocol/client`, running on Node) against the conformance
 * app under Bun and under Deno, on both protocol revisions: 2025-11-25 (initialize, sessions over
 * HTTP) and 2026-07-28 (stateless; negotiated by the client's `versionNegotiation: auto`), over stdio
 * (the client spawns the runtime) and over Streamable HTTP on the runtime's own server.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_MAIN, type HttpServer, killStarted, NATIVE_MAIN, runtimes, startHttpServer } from './support/runtimes.js';

const REVISIONS = [
  { revision: '2025-11-25', options: {} },
  { revision: '2026-07-28', options: { versionNegotiation: { mode: 'auto' as const } } },
];

afterAll(() => {
  killStarted();
});

type Connect = (client: Client) => Promise<void>;

/** What every connection must do the same on every runtime, transport and revision. */
function behavesLikeTheApp(connect: () => Connect) {
  it.each(REVISIONS)('$revision: lists, calls with progress, reads and gets prompts', async ({ revision, options }) => {
    const client = new Client({ name: 'runtimes-e2e', version: '1.0.0' }, { capabilities: {}, ...options });
    await connect()(client);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(revision);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['test_simple_text', 'test_tool_with_progress']));

      const simple = await client.callTool({ name: 'test_simple_text', arguments: {} });
      expect(simple.content).toEqual([{ type: 'text', text: 'This is a simple text response for testing.' }]);

      const progress: number[] = [];
      const withProgress = await client.callTool(
        { name: 'test_tool_with_progress', arguments: {} },
        { onprogress: (p: { progress: number }) => progress.push(p.progress) },
      );
      expect(withProgress.isError).toBeFalsy();
      expect(progress).toEqual([0, 50, 100]);

      const read = await client.readResource({ uri: 'test://template/123/data' });
      expect(JSON.parse(String((read.contents[0] as { text?: string }).text))).toMatchObject({ id: '123' });

      const prompt = await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'a1', arg2: 'b2' } });
      expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: "Prompt with arguments: arg1='a1', arg2='b2'" });

      const failed = await client.callTool({ name: 'test_error_handling', arguments: {} });
      expect(failed.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
}

describe.each(runtimes())('$name', (runtime) => {
  describe('over stdio (the client spawns the runtime)', () => {
    behavesLikeTheApp(() => async (client) => {
      const [command, ...args] = runtime.run(CONFORMANCE_MAIN, '--stdio');
      await client.connect(new StdioClientTransport({ command, args, stderr: 'pipe' }));
    });
  });

  describe(`over Streamable HTTP on ${runtime.name}'s own server`, () => {
    let server: HttpServer;
    beforeAll(async () => {
      server = await startHttpServer(runtime.run(NATIVE_MAIN));
    });
    afterAll(async () => {
      await server?.stop();
    });
    behavesLikeTheApp(() => (client) => client.connect(new StreamableHTTPClientTransport(new URL(server.url))));
  });
});
