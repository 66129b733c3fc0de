import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ArmatureBuildError,
  createMcpApp,
  type ExecutionContext,
  type Guard,
  McpServer,
  mount,
  remoteServer,
  type ServerEvent,
  Tool,
} from '../src/index.js';
import { connectHttp, connectInMemory } from './support/clients.js';
import { modernRpc } from './support/modern-rpc.js';

// The remote servers are separate processes (test/fixtures/remote-server.mjs, over the built
// package), reached over stdio and over Streamable HTTP on 127.0.0.1, each revision.
const FIXTURE = fileURLToPath(new URL('./fixtures/remote-server.mjs', import.meta.url));
const ANSWERING = { elicitation: { form: {} }, sampling: {}, roots: {} };
/** How long a check waits for what another process does: long enough for a busy two-core machine. */
const PATIENCE = { timeout: 10_000, interval: 50 };

/** Starts the fixture over HTTP (on `port`, or a free one) and resolves with its process and URL. */
async function httpRemote(port = 0): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [FIXTURE, 'http', String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the remote exited with ${code}`)));
    child.stdout?.once('data', (chunk) => resolve(String(chunk).trim()));
  });
  return { child, url };
}

/** A client that answers every elicitation with `sure: true`, every sampling request with "short" and its roots with one folder, recording the logs it gets. */
function answering(client: Client, logs: unknown[] = []): Client {
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work/project', name: 'project' }] }));
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { sure: true } }));
  client.setRequestHandler('sampling/createMessage', async () => ({
    role: 'assistant',
    content: { type: 'text', text: 'short' },
    model: 'test-model',
  }));
  client.setNotificationHandler('notifications/message', (notification) => {
    logs.push(notification.params);
  });
  return client;
}

/** One raw 2026-07-28 tools/call (all client capabilities declared), with `extra` headers. */
async function rawModernCall(url: string, name: string, args: Record<string, unknown>, extra: Record<string, string> = {}) {
  const { status, body } = await modernRpc(url, 'tools/call', { name, arguments: args }, ANSWERING, undefined, extra);
  return { status, body: body as { result?: { inputRequests?: Record<string, unknown> }; error?: { code: number } } };
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content ?? []).map((block) => block.text).join('');
}

/** Not for every caller: the guard of the `guarded` part lets only callers with `_meta.role: 'admin'` through. */
class AdminsOnly implements Guard {
  canActivate({ context }: ExecutionContext) {
    return context.meta.role === 'admin';
  }
}

@McpServer({ name: 'gateway', version: '1.0.0' })
class GatewayServer {
  @Tool({ description: 'A tool of the app itself' })
  hello() {
    return 'hello from the gateway';
  }
}

describe('a remote server mounted under a prefix (proxy)', () => {
  const parts = ['stdio', 'stdio25', 'web', 'web25'] as const;
  let web: { child: ChildProcess; url: string };
  let web25: { child: ChildProcess; url: string };
  let app: ReturnType<typeof createMcpApp>;
  const events: ServerEvent[] = [];

  beforeAll(async () => {
    [web, web25] = await Promise.all([httpRemote(), httpRemote()]);
    app = createMcpApp(
      [
        GatewayServer,
        mount('stdio', remoteServer({ command: process.execPath, args: [FIXTURE, 'stdio'] })),
        mount('stdio25', remoteServer({ command: process.execPath, args: [FIXTURE, 'stdio'], protocolVersion: '2025-11-25' })),
        mount('web', remoteServer({ url: web.url })),
        mount('web25', remoteServer({ url: web25.url, protocolVersion: '2025-11-25' }), { guards: [AdminsOnly] }),
      ],
      { logger: false },
    );
    app.onEvent((event) => events.push(event));
    await app.ready();
  }, 30_000);

  afterAll(async () => {
    await app?.close();
    web?.child.kill();
    web25?.child.kill();
  });

  it("lists each remote catalogue under its prefix, beside the app's own tools", async () => {
    const { client, close } = await connectInMemory(app);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('hello');
    for (const part of ['stdio', 'stdio25', 'web'])
      expect(names).toEqual(expect.arrayContaining([`${part}_echo`, `${part}_count`, `${part}_confirm`, `${part}_wait`]));
    // The guarded part is hidden from a caller its guard refuses, in the list and in calls.
    expect(names.filter((name) => name.startsWith('web25_'))).toEqual([]);
    const echo = (await client.listTools()).tools.find((tool) => tool.name === 'web_echo');
    expect(echo?.description).toBe('Echo the text');
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(
      expect.arrayContaining(['stdio_greet', 'stdio25_greet', 'web_greet']),
    );
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining(['docs://stdio/readme', 'docs://web/readme']),
    );
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(
      expect.arrayContaining(['notes://stdio/{id}', 'notes://web/{id}']),
    );
    await close();
  });

  it.each(parts.filter((part) => part !== 'web25'))('forwards calls, prompts and reads to %s', async (part) => {
    const { client, close } = await connectInMemory(app);
    expect(textOf(await client.callTool({ name: `${part}_echo`, arguments: { text: 'hi' } }))).toMatch(/^echo: hi \(pid \d+\)$/);
    // The remote's own validation answers a bad argument, as it would its own client.
    const bad = await client.callTool({ name: `${part}_echo`, arguments: { text: 42 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('text');
    expect(await client.getPrompt({ name: `${part}_greet`, arguments: { name: 'Ann' } })).toEqual({
      description: 'Greet someone',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ann from the remote' } }],
    });
    expect((await client.readResource({ uri: `docs://${part}/readme` })).contents).toEqual([
      { uri: `docs://${part}/readme`, mimeType: 'text/plain', text: 'remote readme' },
    ]);
    expect((await client.readResource({ uri: `notes://${part}/7` })).contents).toEqual([
      { uri: `notes://${part}/7`, mimeType: 'text/plain', text: 'note 7' },
    ]);
    await close();
  });

  it.each(parts.filter((part) => part !== 'web25'))('relays progress, logs, elicitation and sampling of %s to the caller', async (part) => {
    const logs: unknown[] = [];
    const { client, close } = await connectInMemory(app, ANSWERING);
    answering(client, logs);
    await client.setLoggingLevel('info');
    const progress: string[] = [];
    const counted = await client.callTool(
      { name: `${part}_count`, arguments: {} },
      { onprogress: (p) => progress.push(`${p.progress}/${p.total} ${p.message}`) },
    );
    expect(textOf(counted)).toBe('counted');
    expect(progress).toEqual(['1/3 step 1', '2/3 step 2', '3/3 step 3']);
    await vi.waitFor(() => expect(logs).toEqual([{ level: 'info', data: 'counted to 3' }]), PATIENCE);
    expect(textOf(await client.callTool({ name: `${part}_confirm`, arguments: { item: 'db' } }))).toBe('deleted db: true');
    expect(textOf(await client.callTool({ name: `${part}_summarise`, arguments: { text: 'long' } }))).toBe('summary: short');
    await close();
  });

  it.each(parts.flatMap((part) => [[part, '2025-11-25'] as const, [part, '2026-07-28'] as const]))(
    'passes a cancellation on to %s from a %s caller, and keeps the link up',
    async (part, revision) => {
      const { client, close } = revision === '2025-11-25' ? await connectInMemory(app) : await connectHttp(app, { modern: true });
      const _meta = { role: 'admin' }; // web25's guard
      const stats = async () =>
        ((await client.callTool({ name: `${part}_stats`, arguments: {}, _meta })).structuredContent as { cancelled: number }).cancelled;
      const before = await stats();
      const since = events.length;
      const stop = new AbortController();
      const waiting = client.callTool(
        { name: `${part}_wait`, arguments: {}, _meta },
        { signal: stop.signal, onprogress: () => stop.abort('enough') },
      );
      await expect(waiting).rejects.toThrow();
      await vi.waitFor(async () => expect(await stats()).toBe(before + 1), PATIENCE);
      // The remote's request was cancelled; the app's connection to it was not dropped for it.
      expect(events.slice(since).filter((event) => event.event === 'remote-down' || event.event === 'remote-up')).toEqual([]);
      await close();
    },
  );

  // Not web25: the remote (the SDK's ctx.mcpReq.elicitInput) sends a URL elicitation over 2025-11-25
  // HTTP on the standalone stream, outside its call, so no call of the gateway's can be asked.
  it.each(parts.filter((part) => part !== 'web25'))(
    'refuses to pass on a URL elicitation of %s whose URL is not https: (or http: to this machine)',
    async (part) => {
      const { client, close } = await connectInMemory(app, { elicitation: { url: {} } });
      const opened: string[] = [];
      client.setRequestHandler('elicitation/create', async (request) => {
        opened.push(String((request.params as { url?: unknown }).url));
        return { action: 'accept' };
      });
      const visit = async (url: string) =>
        textOf(await client.callTool({ name: `${part}_visit`, arguments: { url }, _meta: { role: 'admin' } }));
      const refused = {
        'javascript:alert(1)': 'its scheme is javascript:',
        'data:text/html,<script>alert(1)</script>': 'its scheme is data:',
        'file:///etc/passwd': 'its scheme is file:',
        'http://example.com/login': 'it is http: to another machine than this one',
        'https://bank.example@evil.example/': 'it carries a user name or password',
      };
      // A 2025-11-25 remote's request is refused with the reason; a 2026-07-28 remote asked in its answer, and the call ends with it.
      for (const [url, problem] of Object.entries(refused))
        expect(await visit(url)).toMatch(
          new RegExp(
            `(refused: .*not passed on to the client|^mount\\('${part}'\\): the remote server asked the client to open a URL, which was not passed on): ${problem.replace(/[.:]/g, '\\$&')};`,
          ),
        );
      expect(opened).toEqual([]);
      expect(await visit('https://auth.example.com/sign-in')).toBe('visited: accept');
      expect(await visit('http://127.0.0.1:8080/callback')).toBe('visited: accept');
      expect(opened).toEqual(['https://auth.example.com/sign-in', 'http://127.0.0.1:8080/callback']);
      await close();
    },
  );

  it("puts the app's guard in front of a remote tool", async () => {
    const { client, close } = await connectInMemory(app);
    await expect(client.callTool({ name: 'web25_echo', arguments: { text: 'hi' } })).rejects.toThrow(
      /^Unknown tool: "web25_echo"\. Call tools\/list/,
    );
    const admin = await client.callTool({ name: 'web25_echo', arguments: { text: 'hi' }, _meta: { role: 'admin' } });
    expect(textOf(admin)).toMatch(/^echo: hi/);
    await close();
  });

  it('asks a 2026-07-28 client through input_required, whichever revision the remote speaks', async () => {
    const { client, close } = await connectHttp(app, { modern: true, capabilities: ANSWERING });
    answering(client);
    for (const part of ['stdio', 'stdio25', 'web']) {
      expect(textOf(await client.callTool({ name: `${part}_confirm`, arguments: { item: part } }))).toBe(`deleted ${part}: true`);
      expect(textOf(await client.callTool({ name: `${part}_folders`, arguments: {} }))).toBe('roots: file:///work/project');
    }
    await close();
  });

  it.each(['stdio', 'web'])("passes a 2026-07-28 remote's round on as it was: its keys, its questions together (%s)", async (part) => {
    const { client, url, close } = await connectHttp(app, { modern: true, capabilities: ANSWERING });
    answering(client);
    try {
      const first = await rawModernCall(url, `${part}_survey`, {});
      expect(Object.keys(first.body.result?.inputRequests ?? {})).toEqual(['sure_q', 'where']);
      expect(textOf(await client.callTool({ name: `${part}_survey`, arguments: {} }))).toBe('survey: true, 1 root(s)');
    } finally {
      await close();
    }
  });

  it("checks a remote tool's Mcp-Param headers as for the app's own", async () => {
    const { client, url, close } = await connectHttp(app, { modern: true });
    try {
      // The gateway sends the header on to the remote (Base64 for text that is not plain ASCII).
      expect(textOf(await client.callTool({ name: 'web_region', arguments: { region: 'eu' } }))).toBe('region eu');
      expect(textOf(await client.callTool({ name: 'web_region', arguments: { region: ' Zürich' } }))).toBe('region  Zürich');
      const refused = await rawModernCall(url, 'web_region', { region: 'eu' }, { 'mcp-param-region': 'us' });
      expect([refused.status, refused.body.error?.code]).toEqual([400, -32020]);
    } finally {
      await close();
    }
  });

  it.each(parts.filter((part) => part !== 'web25'))(
    "subscribes to a resource of %s for the app's client, and relays its updates",
    async (part) => {
      const { client, close } = await connectInMemory(app);
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (notification) => {
        updated.push(notification.params.uri);
      });
      await client.subscribeResource({ uri: `docs://${part}/readme` });
      // The remote is asked to tell of changes once the client subscribed: wait until it has been.
      await vi.waitFor(
        async () => {
          await client.callTool({ name: `${part}_touch`, arguments: {} });
          expect(updated).toContain(`docs://${part}/readme`);
        },
        { timeout: 10_000, interval: 200 },
      );
      await close();
    },
  );

  it("tells the app's clients when a remote's list changes", async () => {
    const { client, close } = await connectInMemory(app);
    let told = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      told++;
    });
    expect(textOf(await client.callTool({ name: 'web_toggle', arguments: {} }))).toBe('echo off');
    await vi.waitFor(() => expect(told).toBeGreaterThan(0), PATIENCE);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('web_echo');
    expect(textOf(await client.callTool({ name: 'web_toggle', arguments: {} }))).toBe('echo on');
    await vi.waitFor(async () => expect((await client.listTools()).tools.map((t) => t.name)).toContain('web_echo'), PATIENCE);
    await close();
  });

  it('reconnects a stdio remote that was killed', async () => {
    const { client, close } = await connectInMemory(app);
    const pidOf = async () =>
      Number(/pid (\d+)/.exec(textOf(await client.callTool({ name: 'stdio_echo', arguments: { text: 'x' } })))?.[1]);
    const first = await pidOf();
    const down = events.length;
    process.kill(first, 'SIGKILL');
    await vi.waitFor(
      () => expect(events.slice(down).some((e) => e.event === 'remote-down' && e.part === "mount('stdio')")).toBe(true),
      PATIENCE,
    );
    // The next call starts the remote again rather than waiting for the retry.
    const second = await pidOf();
    expect(second).not.toBe(first);
    expect(events.slice(down).filter((e) => e.event === 'remote-up' && e.part === "mount('stdio')")).toHaveLength(1);
    await close();
  });

  it.each(['web', 'web25'] as const)('gives a clear error while the HTTP remote %s is away, and works once it is back', async (part) => {
    const remote = part === 'web' ? web : web25;
    const meta = { role: 'admin' };
    const { client, close } = await connectInMemory(app);
    const port = new URL(remote.url).port;
    remote.child.kill('SIGKILL');
    await new Promise((resolve) => remote.child.once('exit', resolve));
    const away = await client.callTool({ name: `${part}_echo`, arguments: { text: 'hi' }, _meta: meta });
    expect(away.isError).toBe(true);
    expect(textOf(away)).toMatch(
      new RegExp(
        `^mount\\('${part}'\\): the remote server ${remote.url.replace(/[.]/g, '\\.')} is unavailable \\(.*ECONNREFUSED.*\\)\\. It is reconnected by itself: try again shortly$`,
      ),
    );
    const restarted = await httpRemote(Number(port));
    if (part === 'web') web = restarted;
    else web25 = restarted;
    // A 2025-11-25 remote lost its session with its process: the app opens a new one by itself.
    expect(textOf(await client.callTool({ name: `${part}_echo`, arguments: { text: 'back' }, _meta: meta }))).toBe(
      `echo: back (pid ${restarted.child.pid})`,
    );
    // Restarted between two calls, unnoticed: the next call still goes through (a request the
    // remote answered 404 for an unknown session never ran there, and is sent again once).
    restarted.child.kill('SIGKILL');
    await new Promise((resolve) => restarted.child.once('exit', resolve));
    const again = await httpRemote(Number(port));
    if (part === 'web') web = again;
    else web25 = again;
    expect(textOf(await client.callTool({ name: `${part}_echo`, arguments: { text: 'again' }, _meta: meta }))).toBe(
      `echo: again (pid ${again.child.pid})`,
    );
    await close();
  });
});

describe('a remote server given as is (a gateway in front of one server)', () => {
  @McpServer({ name: 'local', version: '1.0.0' })
  class LocalCount {
    @Tool({ description: "The app's own count" })
    count() {
      return 'the local count';
    }
  }

  it('serves its entries under their own names; one the app already serves is skipped, told once', async () => {
    const app = createMcpApp([LocalCount, remoteServer({ command: process.execPath, args: [FIXTURE, 'stdio'] })], { logger: false });
    const events: ServerEvent[] = [];
    app.onEvent((event) => events.push(event));
    await app.ready();
    const { client, close } = await connectInMemory(app);
    const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
    try {
      expect(await names()).toEqual(expect.arrayContaining(['count', 'echo', 'confirm', 'stats']));
      expect((await names()).filter((name) => name === 'count')).toHaveLength(1);
      expect(textOf(await client.callTool({ name: 'count', arguments: {} }))).toBe('the local count');
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } }))).toMatch(/^echo: hi/);
      expect((await client.readResource({ uri: 'docs://readme' })).contents).toEqual([
        { uri: 'docs://readme', mimeType: 'text/plain', text: 'remote readme' },
      ]);
      // The remote's list changes twice (echo hidden, then shown): each time it is listed again,
      // and finds the clash again; the log is told of it once.
      expect(textOf(await client.callTool({ name: 'toggle', arguments: {} }))).toBe('echo off');
      await vi.waitFor(async () => expect(await names()).not.toContain('echo'), PATIENCE);
      expect(textOf(await client.callTool({ name: 'toggle', arguments: {} }))).toBe('echo on');
      await vi.waitFor(async () => expect(await names()).toContain('echo'), PATIENCE);
      expect(events.filter((event) => event.event === 'remote-skipped')).toEqual([
        {
          event: 'remote-skipped',
          part: `remoteServer('${process.execPath} ${FIXTURE} stdio')`,
          name: 'count',
          reason: 'the app already serves that name',
        },
      ]);
    } finally {
      await close();
      await app.close();
    }
  });
});

describe('the time limit of a forwarded call (maxCallMs)', () => {
  it("ends a call whose remote keeps sending progress, cancels it there, and frees stdio for other calls' questions", async () => {
    const remote = remoteServer({
      command: process.execPath,
      args: [FIXTURE, 'stdio'],
      protocolVersion: '2025-11-25',
      timeoutMs: 20_000, // restarted by every progress notification (every 100 ms): never reached
      maxCallMs: 5_000,
    });
    // No limit of the app's own: only maxCallMs can end the call.
    const app = createMcpApp(mount('slow', remote), { logger: false, timeoutMs: 0 });
    await app.ready();
    const { client, close } = await connectInMemory(app, ANSWERING);
    answering(client);
    try {
      const started = Date.now();
      let steps = 0;
      const dripping = client.callTool(
        { name: 'slow_drip', arguments: {} },
        {
          onprogress: () => {
            steps++;
          },
          timeout: 25_000,
        },
      );
      // Over stdio a question during two calls cannot be told apart: refused while the drip runs.
      await vi.waitFor(() => expect(steps).toBeGreaterThan(0), PATIENCE);
      await expect(client.callTool({ name: 'slow_confirm', arguments: { item: 'db' } })).rejects.toThrow(
        '2 calls of this server are in progress over stdio',
      );
      const ended = await dripping;
      expect(ended.isError).toBe(true);
      expect(textOf(ended)).toBe(
        `mount('slow'): the remote server ${remote.label} did not finish the call within 5000 ms (its maxCallMs) and it was cancelled there`,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
      expect(steps).toBeGreaterThan(20);
      await vi.waitFor(async () => {
        const now = (await client.callTool({ name: 'slow_stats', arguments: {} })).structuredContent as { cancelled: number };
        expect(now.cancelled).toBe(1);
      }, PATIENCE);
      // The stuck call is over: the remote's questions for the next call reach its client again.
      expect(textOf(await client.callTool({ name: 'slow_confirm', arguments: { item: 'db' } }))).toBe('deleted db: true');
    } finally {
      await close();
      await app.close();
    }
  }, 60_000);
});

describe('mounting a remote server: start-up checks', () => {
  it("reports a remote server that cannot be used, and a prefix it shares, with the builder's other problems", () => {
    let error: unknown;
    try {
      createMcpApp([
        GatewayServer,
        mount('a', remoteServer({} as never)),
        mount('b', remoteServer({ url: 'ftp://host/mcp' })),
        mount('c', remoteServer({ command: 'node' })),
        mount('c', GatewayServer),
        // Longer than a timer can wait: it would fire at once.
        mount('d', remoteServer({ url: 'http://127.0.0.1:1/mcp', maxCallMs: 3_000_000_000 })),
      ]);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ArmatureBuildError);
    expect((error as Error).message).toContain('[ARM134]');
    expect((error as ArmatureBuildError).problems.map((p) => `${p.where}: ${p.message}`)).toEqual(
      expect.arrayContaining([
        "mount('a'): the remote server of mount('a') cannot be used: it names neither a url nor a command",
        "mount('b'): the remote server of mount('b') cannot be used: url ftp://host/mcp is not http(s)",
        "mount('c'): mount('c') serves a remote server, whose names are only known once it answers, and another part uses the same prefix",
        "mount('d'): the remote server of mount('d') cannot be used: maxCallMs must be a positive number of milliseconds, at most 2147483647",
      ]),
    );
  });

  it('starts with an empty catalogue when a remote server cannot be started', async () => {
    const app = createMcpApp(
      [mount('gone', remoteServer({ command: process.execPath, args: ['-e', 'process.exit(3)'], maxReconnectDelayMs: 60_000 }))],
      {
        logger: false,
      },
    );
    await app.ready();
    const { client, close } = await connectInMemory(app);
    expect((await client.listTools()).tools).toEqual([]);
    await close();
    await app.close();
  });
});
