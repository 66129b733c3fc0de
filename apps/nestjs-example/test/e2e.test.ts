/**
 * End to end: the BUILT app (`dist/main.js`) in its own process, REST with fetch and MCP with the
 * official client over Streamable HTTP (both revisions, same port) and over stdio.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

type ToolResult = { content: Array<{ type: string; text: string }>; structuredContent?: unknown; isError?: boolean };

let server: ChildProcess;
let base: string;

beforeAll(async () => {
  if (!existsSync(MAIN))
    throw new Error('apps/nestjs-example is not built: run `pnpm turbo run build --filter=@armature/nestjs-example...`');
  server = spawn(process.execPath, [MAIN], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  base = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1] as string);
    });
    server.once('exit', (code) => reject(new Error(`the app exited with ${code}`)));
  });
});

afterAll(() => {
  if (server.exitCode === null) server.kill('SIGKILL');
});

async function rest(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function withClient<T>(modern: boolean, use: (client: Client) => Promise<T>, headers: Record<string, string> = {}): Promise<T> {
  const client = new Client({ name: 'nestjs-example-e2e', version: '1' }, modern ? { versionNegotiation: { mode: 'auto' } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } }));
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

describe('REST and MCP on one port', () => {
  for (const modern of [false, true]) {
    it(`lists the tools the global guard lets through and adds a note over MCP (${modern ? '2026-07-28' : '2025-11-25'})`, async () => {
      await withClient(modern, async (client) => {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'list_notes', 'note_stats']);
        const added = (await client.callTool({ name: 'add_note', arguments: { title: 'from mcp', priority: 'high' } })) as ToolResult;
        expect(added.structuredContent).toEqual({ id: expect.any(Number), title: 'from mcp', priority: 'high', via: 'mcp' });
      });
    });
  }

  it('shares the data between REST and MCP', async () => {
    const created = await rest('POST', '/notes', { title: 'from rest', priority: 'low' });
    expect(created).toEqual({ status: 201, body: { id: expect.any(Number), title: 'from rest', priority: 'low', via: 'http' } });
    const stats = await withClient(true, (client) => client.callTool({ name: 'note_stats', arguments: {} }));
    expect((stats as ToolResult).structuredContent).toEqual({ low: 1, normal: 0, high: 2 });
  });

  it('answers the same problems for the same bad input through both doors', async () => {
    const bad = { title: 'no', priority: 'urgent', colour: 'red' };
    const viaRest = await rest('POST', '/notes', bad);
    expect(viaRest.status).toBe(400);
    const viaMcp = (await withClient(false, (client) => client.callTool({ name: 'add_note', arguments: bad }))) as ToolResult;
    expect(viaMcp.isError).toBe(true);
    expect(viaMcp.content[0]?.text).toBe(['Invalid arguments for tool "add_note":', ...(viaRest.body.message as string[])].join('\n'));
  });

  it('refuses admin-only handlers on both doors unless the caller is an admin', async () => {
    expect((await rest('DELETE', '/admin/notes')).status).toBe(403);
    await expect(withClient(true, (client) => client.callTool({ name: 'purge_notes', arguments: {} }))).rejects.toThrow(
      'Unknown tool: "purge_notes"',
    );
    // The same guard, unchanged, reads the same header on the MCP POST.
    const admin = { 'x-role': 'admin' };
    const tools = await withClient(true, async (client) => (await client.listTools()).tools.map((tool) => tool.name), admin);
    expect(tools).toContain('purge_notes');
    expect(await rest('DELETE', '/admin/notes', undefined, admin)).toEqual({ status: 200, body: { deleted: 3 } });
  });
});

describe('over stdio', () => {
  it('serves the same tools from a standalone application context', async () => {
    const client = new Client({ name: 'nestjs-example-stdio', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [MAIN, '--stdio'], stderr: 'pipe' }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['add_note', 'list_notes', 'note_stats']);
      const added = (await client.callTool({ name: 'add_note', arguments: { title: 'over stdio', priority: 'normal' } })) as ToolResult;
      expect(added.structuredContent).toEqual({ id: 1, title: 'over stdio', priority: 'normal', via: 'mcp' });
    } finally {
      await client.close();
    }
  });
});

describe('shutdown', () => {
  it('closes on SIGTERM with a 2025-11-25 session open (Nest shutdown hooks close the MCP app)', async () => {
    const client = new Client({ name: 'nestjs-example-shutdown', version: '1' });
    const closed = new Promise<void>((resolve) => {
      client.onclose = () => resolve();
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      server.once('exit', (code, signal) => resolve({ code, signal })),
    );
    server.kill('SIGTERM');
    // Nest closes the app, then re-raises the signal it caught, as Node's default handler would.
    expect(await exited).toEqual({ code: null, signal: 'SIGTERM' });
    await client.close();
    await closed;
  });
});
