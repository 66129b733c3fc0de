// The check: a gateway in front of servers it did not write. The official reference server
// (@modelcontextprotocol/server-everything, 2025-11-25 over stdio, pinned as a devDependency) and a
// server written with the official TypeScript SDK alone over Streamable HTTP, on each revision.
// Every template is listed and readable under the prefix, and a cancellation from a caller of
// either revision reaches the remote without the gateway dropping its connection.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, type Client as ClientType } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMcpApp, mount, remoteServer, type ServerEvent } from '../src/index.js';
import { connectHttp, connectInMemory } from './support/clients.js';

const EVERYTHING = fileURLToPath(new URL('../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));
const TAP = fileURLToPath(new URL('./fixtures/stdio-tap.mjs', import.meta.url));
const SDK_REMOTE = fileURLToPath(new URL('./fixtures/sdk-http-remote.mjs', import.meta.url));
/** How long a check waits for another process: long enough for a busy two-core machine. */
const PATIENCE = { timeout: 15_000, interval: 100 };
const CALLERS = ['2025-11-25', '2026-07-28'] as const;

type Events = ServerEvent[];
const linkEvents = (events: Events, since: number) =>
  events.slice(since).filter((event) => event.event === 'remote-down' || event.event === 'remote-up');

async function caller(app: ReturnType<typeof createMcpApp>, revision: (typeof CALLERS)[number]) {
  return revision === '2025-11-25' ? connectInMemory(app) : connectHttp(app, { modern: true });
}

/** Calls `tool` and cancels it at its first progress notification; the call must end rejected. */
async function cancelAtFirstProgress(client: ClientType, tool: string, args: Record<string, unknown>): Promise<void> {
  const stop = new AbortController();
  const call = client.callTool({ name: tool, arguments: args }, { signal: stop.signal, onprogress: () => stop.abort('enough') });
  await expect(call).rejects.toThrow();
}

describe('a gateway in front of @modelcontextprotocol/server-everything (stdio)', () => {
  let dir: string;
  let tapFile: string;
  let app: ReturnType<typeof createMcpApp>;
  const events: Events = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'armature-everything-'));
    tapFile = join(dir, 'cancelled.jsonl');
    writeFileSync(tapFile, '');
    const command = { command: process.execPath, args: [TAP, tapFile, process.execPath, EVERYTHING, 'stdio'], stderr: 'ignore' as const };
    app = createMcpApp(mount('ev', remoteServer({ ...command, timeoutMs: 30_000 })), { logger: false });
    app.onEvent((event) => events.push(event));
    await app.ready();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists every template of the remote under the prefix, each readable there, and the links it hands out', async () => {
    // What the remote itself lists, asked directly.
    const direct = new Client({ name: 'direct', version: '1.0.0' });
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }));
    const own = (await direct.listResourceTemplates()).resourceTemplates;
    await direct.close();
    expect(own.map((template) => template.name)).toEqual(expect.arrayContaining(['Dynamic Text Resource', 'Dynamic Blob Resource']));

    const { client, close } = await connectInMemory(app);
    try {
      const served = (await client.listResourceTemplates()).resourceTemplates;
      expect(served.map((template) => [template.name, template.uriTemplate])).toEqual(
        own.map((template) => [`ev_${template.name}`, template.uriTemplate.replace('demo://', 'demo://ev/')]),
      );
      for (const template of served) {
        const uri = template.uriTemplate.replace(/\{[^}]+\}/g, '2');
        const { contents } = await client.readResource({ uri });
        expect(contents).toHaveLength(1);
        expect(contents[0]?.uri).toBe(uri);
      }
      expect((await client.readResource({ uri: 'demo://ev/resource/dynamic/text/2' })).contents[0]).toMatchObject({
        uri: 'demo://ev/resource/dynamic/text/2',
        text: expect.stringMatching(/^Resource 2: /),
      });
      // Its links, moved under the prefix, are read through the gateway.
      const links = await client.callTool({ name: 'ev_get-resource-links', arguments: { count: 4 } });
      const uris = (links.content as { type: string; uri?: string }[]).filter((b) => b.type === 'resource_link').map((b) => String(b.uri));
      expect(uris.length).toBeGreaterThan(0);
      for (const uri of uris) {
        expect(uri.startsWith('demo://ev/')).toBe(true);
        expect((await client.readResource({ uri })).contents[0]?.uri).toBe(uri);
      }
      // The names had been refused before: nothing is skipped now.
      expect(events.filter((event) => event.event === 'remote-skipped')).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  it.each(CALLERS)(
    'passes a cancellation from a %s caller on to it (notifications/cancelled), and keeps the link up',
    async (revision) => {
      const { client, close } = await caller(app, revision);
      try {
        const before = readFileSync(tapFile, 'utf8').split('\n').filter(Boolean).length;
        const since = events.length;
        await cancelAtFirstProgress(client, 'ev_trigger-long-running-operation', { duration: 30, steps: 60 });
        await vi.waitFor(() => {
          const cancelled = readFileSync(tapFile, 'utf8').split('\n').filter(Boolean);
          expect(cancelled).toHaveLength(before + 1);
          expect(JSON.parse(cancelled.at(-1) ?? '{}')).toMatchObject({
            method: 'notifications/cancelled',
            params: { requestId: expect.anything() },
          });
        }, PATIENCE);
        expect(linkEvents(events, since)).toEqual([]);
      } finally {
        await close();
      }
    },
    60_000,
  );
});

describe.each(['2025', '2026'] as const)('a gateway in front of a server written with the official TypeScript SDK (HTTP, %s)', (era) => {
  let remote: ChildProcess;
  let app: ReturnType<typeof createMcpApp>;
  const events: Events = [];

  beforeAll(async () => {
    remote = spawn(process.execPath, [SDK_REMOTE, era], { stdio: ['ignore', 'pipe', 'inherit'] });
    const url = await new Promise<string>((resolve, reject) => {
      remote.once('exit', (code) => reject(new Error(`the remote exited with ${code}`)));
      remote.stdout?.once('data', (chunk) => resolve(String(chunk).trim()));
    });
    app = createMcpApp(mount('sdk', remoteServer({ url, timeoutMs: 30_000 })), { logger: false });
    app.onEvent((event) => events.push(event));
    await app.ready();
    // The revision the gateway speaks to it is the remote's.
    expect(events.find((event) => event.event === 'remote-up')).toMatchObject({ revision: era === '2025' ? '2025-11-25' : '2026-07-28' });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    remote?.kill();
  });

  it('lists its template (a name with spaces) under the prefix and reads it there', async () => {
    const { client, close } = await connectInMemory(app);
    try {
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([
        expect.objectContaining({ name: 'sdk_Dynamic Note', uriTemplate: 'note://sdk/item/{id}' }),
      ]);
      expect((await client.readResource({ uri: 'note://sdk/item/7' })).contents).toEqual([
        { uri: 'note://sdk/item/7', mimeType: 'text/plain', text: 'note 7' },
      ]);
    } finally {
      await close();
    }
  });

  it.each(CALLERS)(
    'passes a cancellation from a %s caller on to it, and keeps the link up',
    async (revision) => {
      const { client, close } = await caller(app, revision);
      const cancelled = async () =>
        (
          JSON.parse(((await client.callTool({ name: 'sdk_stats', arguments: {} })).content as { text: string }[])[0]?.text ?? '{}') as {
            cancelled: number;
          }
        ).cancelled;
      try {
        const before = await cancelled();
        const since = events.length;
        await cancelAtFirstProgress(client, 'sdk_wait', {});
        await vi.waitFor(async () => expect(await cancelled()).toBe(before + 1), PATIENCE);
        expect(linkEvents(events, since)).toEqual([]);
      } finally {
        await close();
      }
    },
    60_000,
  );
});
