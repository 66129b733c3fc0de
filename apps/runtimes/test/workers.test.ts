/**
 * The Workers build (`armature build dist/worker.js --target workers`, run by this package's build)
 * served by miniflare, Cloudflare's local simulator running workerd, the Workers runtime itself
 * (`nodejs_compat`; no code generation from strings), and checked with the official v2 client on
 * 2026-07-28. What a Worker cannot serve is refused with the reason.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The settings of the package's wrangler.toml (the one docs/runtimes.md shows), which miniflare takes as options. */
const wrangler = readFileSync(new URL('../wrangler.toml', import.meta.url), 'utf8');
const setting = (key: string): string => {
  const value = new RegExp(`^${key} = (.+)$`, 'm').exec(wrangler)?.[1];
  if (value === undefined) throw new Error(`wrangler.toml has no ${key}`);
  return JSON.parse(value) as string;
};
const WORKER = fileURLToPath(new URL(`../${setting('main')}`, import.meta.url));

let worker: Miniflare;
let endpoint: URL;

beforeAll(async () => {
  worker = new Miniflare({
    // Listed rather than scanned: miniflare's scan refuses the bundle's computed import() of an
    // optional package (rate-limiter-flexible's drizzle store), which stays a runtime import.
    modules: [{ type: 'ESModule', path: WORKER }],
    compatibilityDate: setting('compatibility_date'),
    compatibilityFlags: setting('compatibility_flags') as unknown as string[],
    host: '127.0.0.1',
    port: 0,
  });
  endpoint = new URL('/mcp', await worker.ready);
});

afterAll(async () => {
  await worker?.dispose();
});

const post = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

describe('a Workers build under workerd (miniflare)', () => {
  it('serves the official client on 2026-07-28: tools/list, tools/call and a validation refusal', async () => {
    const client = new Client({ name: 'workers-e2e', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(endpoint));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['addNote']);
      expect(tools[0]?.inputSchema.required).toEqual(['text', 'priority']);

      const added = await client.callTool({ name: 'addNote', arguments: { text: 'ship it', priority: 3 } });
      expect(added.isError).toBeFalsy();
      expect(added.content).toEqual([{ type: 'text', text: '!!! ship it' }]);

      // The shape check (closures: workerd refuses new Function) and class-validator, as on Node.
      const refused = await client.callTool({ name: 'addNote', arguments: { text: 'x', priority: 9, colour: 'red' } });
      expect(refused.isError).toBe(true);
      expect(refused.content).toEqual([
        {
          type: 'text',
          text: 'Invalid arguments for tool "addNote":\ncolour: unknown property; remove it\npriority: must not be greater than 5',
        },
      ]);
    } finally {
      await client.close();
    }
  });

  it('refuses a 2025-11-25 session with the reason', async () => {
    const response = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBe(1);
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain('serves the stateless 2026-07-28 revision only: 2025-11-25 sessions need one process');
  });

  it('refuses subscriptions/listen, a long-lived stream, with the reason', async () => {
    const response = await post(
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'subscriptions/listen',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'listener', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
          notifications: { toolsListChanged: true },
        },
      },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'subscriptions/listen' },
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: unknown; error: { message: string } };
    expect(body.id).toBe(7);
    expect(body.error.message).toContain('subscriptions/listen is not served on Cloudflare Workers');
  });
});
