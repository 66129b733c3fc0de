import {
  type Context,
  type CreateMcpAppOptions,
  createMcpApp,
  InMemoryEventStore,
  type ListenHttpOptions,
  McpServer,
  type TokenVerifier,
  Tool,
} from '@armature/core';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { IsInt } from 'class-validator';
import { expectEqual } from './support/check.js';

export class WaitInput {
  @IsInt()
  ms!: number;
}

@McpServer({ name: 'notes', version: '1.0.0' })
export class NotesServer {
  @Tool({ description: 'Answer after a while' })
  async wait(input: WaitInput) {
    await new Promise((resolve) => setTimeout(resolve, input.ms));
    return `waited ${input.ms} ms`;
  }

  // #region notifications
  @Tool({ description: 'Index the notes, reporting progress' })
  async reindex(input: WaitInput, ctx: Context) {
    for (let done = 1; done <= input.ms; done++) {
      // Awaited: while the client is not reading, this waits instead of piling notifications up.
      await ctx.progress(done, input.ms);
    }
    await ctx.log.info('reindexed'); // awaited too: every line arrives, in order
    return `reindexed ${input.ms}`;
  }
  // #endregion
}

// #region limits
// Every cap of the HTTP endpoint, at its default value.
const limits: ListenHttpOptions = {
  maxSessions: 5_000, // 2025-11-25 sessions in all: initialize beyond gets 503 + Retry-After
  maxSessionsPerClient: 100, // per subject (with auth) or peer IP: 429 + Retry-After
  sessionInitializeTimeoutMs: 30_000, // closed unless notifications/initialized comes in time
  sessionIdleTimeoutMs: 30 * 60_000, // closed after this long unused
  maxListenStreams: 1_024, // 2026-07-28 subscriptions/listen streams in all
  maxListenStreamsPerClient: 16, // per subject or peer IP: -32603 "Subscription limit reached: …"
  maxRequestBodySize: 4 * 1024 * 1024, // 413, complete at once; chunked bodies are counted as they arrive
  maxPendingNotifications: 1_000, // per SSE response whose client is not reading; log lines beyond are dropped
  // listenHttp's own node:http server
  maxConnections: 1_024, // further TCP connections are dropped
  headersTimeoutMs: 10_000, // slow-loris: headers must arrive within this
  requestTimeoutMs: 30_000, // the whole request, body included
};
// #endregion

// #region app-limits
// Caps the runtime applies on both transports (createMcpApp options), at their defaults.
const appLimits: CreateMcpAppOptions = {
  maxSubscriptionsPerSession: 1_000, // resources/subscribe per connection, and URIs per listen filter
  maxUriLength: 8_192, // checked before any URI template is matched: -32602
};
// #endregion

// #region event-store
// Resumable streams: each session replays only its own events, purged when it ends.
const eventStore = new InMemoryEventStore({ maxEvents: 10_000, maxBytes: 32 * 1024 * 1024 });
// #endregion

// #region verifier
const USERS: Record<string, string> = { 'alice-token': 'alice', 'bob-token': 'bob' }; // your own user service

/** Your own token check: the principal names its user in `extra.sub`. */
export const verifier: TokenVerifier = {
  async verify(token) {
    const user = USERS[token]; // look the token up in your own service
    if (!user) throw new Error('unknown token');
    return {
      token,
      clientId: 'notes-web',
      scopes: [],
      expiresAt: Math.floor(Date.now() / 1000) + 3600, // checked by the endpoint: refused once past
      extra: { sub: user }, // required: sessions, streams and per-client caps belong to clientId + sub
    };
  },
};
// #endregion

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function openSession(url: string, headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const init = await post(url, INITIALIZE, headers);
  expectEqual(init.status, 200, 'initialize');
  const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id') ?? '', 'mcp-protocol-version': '2025-11-25' };
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  return session;
}

/** A GET resuming an SSE stream, read for a moment: it stays open when accepted. */
async function resume(url: string, session: Record<string, string>, lastEventId: string) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 500);
  try {
    const res = await fetch(url, {
      headers: { ...session, accept: 'text/event-stream', 'last-event-id': lastEventId },
      signal: abort.signal,
    });
    return { status: res.status, text: await res.text().catch(() => '') };
  } finally {
    clearTimeout(timer);
  }
}

export async function main(): Promise<void> {
  const app = createMcpApp(NotesServer, appLimits);
  // The defaults above, with two sessions per client so the cap shows quickly.
  const listener = await app.listenHttp({ ...limits, port: 0, maxSessionsPerClient: 2, eventStore, auth: undefined });
  try {
    // Session A's result, with its event id (a call that runs past its first turn is a stored
    // stream; one answered at once would be one JSON body, stored nowhere).
    const a = await openSession(listener.url);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait', arguments: { ms: 20 } } };
    const answer = await post(listener.url, call, a);
    const eventId = /^id: (.+)$/m.exec(answer.text)?.[1] ?? '';
    expectEqual([answer.text.includes('waited 20 ms'), eventId !== ''], [true, true], 'A gets its result, under an event id');
    // Session B presenting A's event id gets 404 and nothing of A's.
    const b = await openSession(listener.url);
    const stolen = await resume(listener.url, b, eventId);
    expectEqual([stolen.status, stolen.text.includes('waited')], [404, false], 'a replay of another session is refused');
    // A third session from the same client is over maxSessionsPerClient.
    const third = await post(listener.url, INITIALIZE);
    expectEqual([third.status, third.headers.get('retry-after')], [429, '5'], 'per-client session cap');
    // An id reused while its request runs is refused; the first call still gets its answer.
    const slow = post(listener.url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait', arguments: { ms: 300 } } }, a);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const duplicate = await post(listener.url, { jsonrpc: '2.0', id: 7, method: 'ping' }, a);
    expectEqual([duplicate.status, JSON.parse(duplicate.text).error.code], [400, -32600], 'a second request with an id still in flight');
    expectEqual((await slow).text.includes('waited 300 ms'), true, 'the first request completes');
    // DELETE ends the session and purges its events.
    const before = eventStore.size.events;
    await fetch(listener.url, { method: 'DELETE', headers: a });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expectEqual(eventStore.size.events < before, true, 'events purged with their session');
    // A client that reads gets every awaited progress notification, in order.
    const c = await openSession(listener.url);
    const reindex = { name: 'reindex', arguments: { ms: 3 }, _meta: { progressToken: 'r' } };
    const stream = await post(listener.url, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: reindex }, c);
    const progress = [...stream.text.matchAll(/"progress":(\d+)/g)].map((m) => Number(m[1]));
    expectEqual(progress, [1, 2, 3], 'every awaited progress notification');
  } finally {
    await listener.close();
  }

  // With auth, a principal without a subject is refused instead of sharing one owner between users.
  const noSubject: TokenVerifier = { verify: async (token): Promise<AuthInfo> => ({ token, clientId: 'notes-web', scopes: [] }) };
  const auth = { resource: 'http://127.0.0.1/mcp', authorizationServers: ['http://127.0.0.1/issuer'] };
  const strict = await createMcpApp(NotesServer).listenHttp({ port: 0, auth: { ...auth, verifier: noSubject } });
  try {
    const refused = await post(strict.url, INITIALIZE, { authorization: 'Bearer alice-token' });
    expectEqual(refused.status, 500, 'a verifier without extra.sub');
  } finally {
    await strict.close();
  }
  const users = await createMcpApp(NotesServer).listenHttp({ port: 0, auth: { ...auth, verifier } });
  try {
    const alice = await openSession(users.url, { authorization: 'Bearer alice-token' });
    const hijack = await post(users.url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { ...alice, authorization: 'Bearer bob-token' });
    expectEqual(hijack.status, 404, "Bob presenting Alice's session id");
  } finally {
    await users.close();
  }
}
