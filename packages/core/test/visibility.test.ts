import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallPlan } from '../src/builder/definitions.js';
import { Context, createMcpApp, type HttpListener, type McpApp, McpServer, mount, Prompt, Tool } from '../src/index.js';
import { CatalogVisibility } from '../src/runtime/visibility.js';
import { connectInMemory } from './support/clients.js';

/** The app under test, reachable from its own tools as a user's would be (a module variable). */
let app: McpApp;

@McpServer({ name: 'ops', version: '1.0.0' })
class OpsServer {
  @Tool({ description: 'Public status' })
  status() {
    return 'ok';
  }

  @Tool({ description: 'Resets everything', tags: ['admin'] })
  reset() {
    return 'reset done';
  }

  @Tool({ description: 'Shows the admin tools to this session' })
  unlock(ctx: Context) {
    app.tools.showFor(ctx, { tags: ['admin'] });
    return 'unlocked';
  }

  @Tool({ description: 'Shows the admin tools to every session of this caller' })
  unlockMine(ctx: Context) {
    app.tools.showFor({ principal: ctx.principal as AuthInfo }, { tags: ['admin'] });
    return 'unlocked for you';
  }

  @Prompt({ description: 'Admin briefing', tags: ['admin'] })
  adminBrief() {
    return 'brief';
  }
}

interface Session {
  client: Client;
  changes: string[];
}

const opened: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close().catch(() => undefined);
});

/** A 2025-11-25 session of the official client on `listener`, recording the tools list_changed it gets. */
async function session(listener: HttpListener, token?: string, modern = false): Promise<Session> {
  const transport = new StreamableHTTPClientTransport(new URL(listener.url), {
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  const client = new Client({ name: 'visibility-test', version: '1.0.0' }, modern ? { versionNegotiation: { mode: 'auto' as const } } : {});
  const changes: string[] = [];
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changes.push('tools');
  });
  await client.connect(transport);
  opened.push(client);
  return { client, changes };
}

const names = async (s: Session) => (await s.client.listTools()).tools.map((t) => t.name);

/**
 * Waits until every session heard of a change made to all (a sentinel, sent after the change under
 * test on the same stream): what a session got before it is all it will get of the earlier change.
 */
async function sentinel(sessions: Session[], counts: number[]): Promise<void> {
  app.tools.disable('status');
  app.tools.enable('status');
  await vi.waitFor(() => expect(sessions.map((s) => s.changes.length)).toEqual(counts.map((n) => n + 2)), { timeout: 10_000 });
}

describe('catalogue visibility per session and principal', () => {
  it('shows tagged tools to one session only: it alone gets list_changed and sees them', async () => {
    app = createMcpApp(OpsServer, { hiddenTags: ['admin'] });
    const listener = await app.listenHttp({ port: 0 });
    opened.push(listener);
    const a = await session(listener);
    const b = await session(listener);
    expect(await names(a)).toEqual(['status', 'unlock', 'unlockMine']);
    await expect(a.client.callTool({ name: 'reset', arguments: {} })).rejects.toThrow(/Unknown tool: "reset"/);

    expect(await a.client.callTool({ name: 'unlock', arguments: {} })).toMatchObject({ content: [{ text: 'unlocked' }] });
    await vi.waitFor(() => expect(a.changes).toEqual(['tools']), { timeout: 10_000 });
    expect(await names(a)).toEqual(['status', 'reset', 'unlock', 'unlockMine']);
    expect(await a.client.callTool({ name: 'reset', arguments: {} })).toMatchObject({ content: [{ text: 'reset done' }] });
    // Tags select per catalogue: the admin prompt stays hidden until app.prompts shows it.
    expect((await a.client.listPrompts()).prompts).toEqual([]);

    await sentinel([a, b], [1, 0]);
    expect(b.changes).toEqual(['tools', 'tools']);
    expect(await names(b)).toEqual(['status', 'unlock', 'unlockMine']);
    await expect(b.client.callTool({ name: 'reset', arguments: {} })).rejects.toThrow(/Unknown tool: "reset"/);

    // Back to what everyone sees, told to that session only.
    app.tools.resetFor({ session: a.client.transport?.sessionId as string });
    await vi.waitFor(() => expect(a.changes).toHaveLength(4), { timeout: 10_000 });
    expect(await names(a)).toEqual(['status', 'unlock', 'unlockMine']);
    await sentinel([a, b], [4, 2]);
  });

  it('shows them to every session of one principal, and to no other caller', async () => {
    app = createMcpApp(OpsServer, { hiddenTags: ['admin'] });
    const principal = (name: string): AuthInfo => ({ token: name, clientId: 'cli', scopes: [], extra: { sub: name } });
    const listener = await app.listenHttp({
      port: 0,
      auth: {
        verifier: { verify: async (token) => principal(token) },
        resource: 'http://127.0.0.1/mcp',
        authorizationServers: ['https://as.example'],
      },
    });
    opened.push(listener);
    const alice1 = await session(listener, 'alice');
    const alice2 = await session(listener, 'alice');
    const bob = await session(listener, 'bob');
    // A connection is matched by the caller of its requests: one that listed nothing has nothing to refresh.
    for (const s of [alice1, alice2, bob]) expect(await names(s)).not.toContain('reset');
    await alice1.client.callTool({ name: 'unlockMine', arguments: {} });
    await vi.waitFor(() => expect([alice1.changes, alice2.changes]).toEqual([['tools'], ['tools']]), { timeout: 10_000 });
    expect(await names(alice2)).toContain('reset');
    await sentinel([alice1, alice2, bob], [1, 1, 0]);
    expect(await names(bob)).not.toContain('reset');
  });

  it('filters 2026-07-28 requests (no session) by their principal', async () => {
    app = createMcpApp(OpsServer, { hiddenTags: ['admin'] });
    const principal = (name: string): AuthInfo => ({ token: name, clientId: 'cli', scopes: [], extra: { sub: name } });
    const listener = await app.listenHttp({
      port: 0,
      auth: {
        verifier: { verify: async (token) => principal(token) },
        resource: 'http://127.0.0.1/mcp',
        authorizationServers: ['https://as.example'],
      },
    });
    opened.push(listener);
    const alice = await session(listener, 'alice', true);
    const bob = await session(listener, 'bob', true);
    expect(alice.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    await expect(alice.client.callTool({ name: 'unlock', arguments: {} })).resolves.toMatchObject({ isError: true });
    await alice.client.callTool({ name: 'unlockMine', arguments: {} });
    expect(await names(alice)).toContain('reset');
    expect(await alice.client.callTool({ name: 'reset', arguments: {} })).toMatchObject({ content: [{ text: 'reset done' }] });
    expect(await names(bob)).not.toContain('reset');
    await expect(bob.client.callTool({ name: 'reset', arguments: {} })).rejects.toThrow(/Unknown tool: "reset"/);
  });

  it('says what to pass when a target, a selector or a name is wrong', async () => {
    app = createMcpApp(mount('ops', OpsServer), { exposeErrors: true });
    const c = await connectInMemory(app);
    opened.push(c);
    expect(() => app.tools.hideFor({ session: 's1' }, { names: ['status'] })).toThrow(
      'nothing named "status" is registered in app.tools (use the name it is served under, prefix included)',
    );
    expect(() => app.tools.hideFor({ session: 's1' }, {})).toThrow(/say what to show or hide with tags and\/or names/);
    expect(() => app.tools.hideFor({} as never, { tags: ['x'] })).toThrow(/a visibility target is a handler's ctx/);
    // In memory there is no session: a ctx target says so and what to use instead.
    await expect(c.client.callTool({ name: 'ops_unlock', arguments: {} })).resolves.toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining('this request belongs to no session') }],
    });
  });

  it('lets the latest matching rule win, a session over its principal', () => {
    const visibility = new CatalogVisibility(['admin']);
    const plan = { kind: 'tool', name: 'reset', tags: ['admin'] } as unknown as CallPlan;
    const alice: AuthInfo = { token: 't', clientId: 'cli', scopes: [], extra: { sub: 'alice' } };
    const caller = { sessionId: 's1', principal: alice };
    expect(visibility.allows(plan, caller)).toBe(false);
    visibility.add('tools', { principal: alice }, true, { tags: ['admin'] });
    expect(visibility.allows(plan, caller)).toBe(true);
    visibility.add('tools', { session: 's1' }, false, { names: ['reset'] });
    expect(visibility.allows(plan, caller)).toBe(false);
    expect(visibility.allows(plan, { sessionId: 's2', principal: alice })).toBe(true);
    // Rules are per catalogue: a prompt named like the tool is not touched.
    expect(visibility.allows({ ...plan, kind: 'prompt', tags: [] }, caller)).toBe(true);
    visibility.forgetSession('s1');
    expect(visibility.allows(plan, caller)).toBe(true);
  });

  it('refuses hiddenTags that are not tags at start-up', () => {
    expect(() => createMcpApp(OpsServer, { hiddenTags: [''] })).toThrow(/ARM132/);
  });
});
