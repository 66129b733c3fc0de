import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createMcpApp, type HttpListener, McpServer, Tool } from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SUBSCRIPTION_ID_META } from '../src/event-streams.js';
import { type Events, events } from '../src/events-extension.js';
import type { EventsOptions } from '../src/events-runtime.js';
import { anyResult, Keys, type Result } from './support/client-side.js';
import { IncidentFilter, IncidentPayload } from './support/dtos.js';

// Push mode (events/stream) served by a real app over HTTP on 127.0.0.1 to the official client, on
// both revisions: one long-lived request per subscription, outliving the app's timeout, that ends
// when the client cancels it, goes away, or the app closes; bounded per caller.

/** How long a check waits for another side: generous for a busy two-core machine. */
const WAIT_MS = 15_000;
let incidents: Events;

@McpServer({ name: 'incidents', version: '1.0.0' })
class IncidentServer {
  @Tool({ description: 'Open an incident' })
  async open(input: IncidentPayload) {
    await incidents.emit('incident.created', { incidentId: input.incidentId, severity: input.severity });
    return 'opened';
  }
}

const open: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close().catch(() => undefined);
});

function eventsWith(extra: Partial<EventsOptions> = {}): Events {
  const made = events({
    experimental: true,
    events: [
      {
        name: 'incident.created',
        description: 'Fires when an incident is opened',
        payload: IncidentPayload,
        arguments: IncidentFilter,
        match: (payload: IncidentPayload, filter: IncidentFilter) => !filter.severity || filter.severity === payload.severity,
      },
    ],
    streamHeartbeatMs: 400,
    streamCheckMs: 100,
    maxStreamsPerCaller: 2,
    ...extra,
  });
  open.push(() => made.close());
  return made;
}

async function serve(withAuth = false) {
  const app = createMcpApp(IncidentServer, { extensions: [incidents.extension], timeoutMs: 300 });
  const listener: HttpListener = await app.listenHttp({
    port: 0,
    ...(withAuth
      ? { auth: { verifier: new Keys(), resource: 'http://127.0.0.1/mcp', authorizationServers: ['https://auth.example.com'] } }
      : {}),
  });
  open.push(() => app.close());
  return { app, listener };
}

interface Heard {
  method: string;
  params: Result & { _meta?: Result };
}

const STDIO_APP = fileURLToPath(new URL('./fixtures/stdio-app.mjs', import.meta.url));

async function connect(listener: HttpListener | 'stdio', revision: '2025-11-25' | '2026-07-28', key?: string) {
  const client = new Client(
    { name: 'events-client', version: '1.0.0' },
    revision === '2026-07-28' ? { versionNegotiation: { mode: 'auto' as const } } : {},
  );
  const heard: Heard[] = [];
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method.startsWith('notifications/events/')) heard.push(notification as Heard);
  };
  await client.connect(
    listener === 'stdio'
      ? new StdioClientTransport({ command: process.execPath, args: [STDIO_APP], stderr: 'inherit' })
      : new StreamableHTTPClientTransport(
          new URL(listener.url),
          key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {},
        ),
  );
  open.push(() => client.close());
  expect(client.getNegotiatedProtocolVersion()).toBe(revision);
  const stream = (params: Result) => {
    const cancel = new AbortController();
    const answer = client.request({ method: 'events/stream', params }, anyResult, { signal: cancel.signal, timeout: 120_000 });
    const settled = answer.then(
      (result) => ({ result }),
      (error: Error & { code?: number }) => ({ error }),
    );
    return { cancel: () => cancel.abort('done'), settled };
  };
  /** Opens a stream once the server has freed a slot (it learns of a cancel or a drop a moment after the client). */
  const streamWhenFree = async (params: Result) => {
    const end = Date.now() + WAIT_MS;
    for (;;) {
      const actives = of(heard, 'active').length;
      const opened = stream(params);
      let outcome: unknown;
      void opened.settled.then((settled) => {
        outcome = settled;
      });
      await until(() => outcome !== undefined || of(heard, 'active').length > actives, 'an answer to events/stream');
      if (outcome === undefined) return opened;
      if ((outcome as { error?: { code?: number } }).error?.code !== -32013 || Date.now() > end) throw new Error(JSON.stringify(outcome));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return {
    client,
    heard,
    stream,
    streamWhenFree,
    call: (method: string, params: Result = {}) => client.request({ method, params }, anyResult),
  };
}

async function until(check: () => boolean, what: string, ms = WAIT_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const of = (heard: Heard[], method: string, id?: unknown) =>
  heard.filter((n) => n.method === `notifications/events/${method}` && (id === undefined || n.params._meta?.[SUBSCRIPTION_ID_META] === id));

describe.each(['2025-11-25', '2026-07-28'] as const)('events/stream over HTTP on %s', (revision) => {
  beforeEach(() => {
    incidents = eventsWith();
  });

  it('confirms with active, pushes matching events with cursors past the app timeout, beats when quiet, and ends on cancel', async () => {
    const { listener } = await serve();
    const { client, heard, stream } = await connect(listener, revision);
    const p1 = stream({ name: 'incident.created', arguments: { severity: 'P1' }, cursor: null });
    await until(() => of(heard, 'active').length === 1, 'active');
    const active = of(heard, 'active')[0] as Heard;
    const id = active.params._meta?.[SUBSCRIPTION_ID_META];
    expect(id).toBeDefined();
    expect(active.params).toMatchObject({ cursor: expect.any(String), truncated: false });

    await client.callTool({ name: 'open', arguments: { incidentId: 'INC-2', severity: 'P2' } });
    await client.callTool({ name: 'open', arguments: { incidentId: 'INC-1', severity: 'P1' } });
    await until(() => of(heard, 'event', id).length === 1, 'the P1 event');
    const event = of(heard, 'event', id)[0] as Heard;
    expect(event.params).toMatchObject({
      eventId: expect.stringMatching(/^evt_/),
      name: 'incident.created',
      timestamp: expect.any(String),
      data: { incidentId: 'INC-1', severity: 'P1' },
      cursor: expect.any(String),
    });
    expect(event.params.cursor).not.toBe(active.params.cursor);

    // Quiet now, well past the app's 300 ms timeout: heartbeats carry the cursor of the last event.
    const after = heard.indexOf(event);
    const beats = () => of(heard.slice(after), 'heartbeat', id);
    await until(() => beats().length >= 2, 'two heartbeats');
    expect(new Set(beats().map((n) => n.params.cursor))).toEqual(new Set([event.params.cursor]));

    p1.cancel();
    expect(await p1.settled).toHaveProperty('error');
    // The server stopped: nothing more for this stream, neither the next event nor a heartbeat.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const mine = () => heard.filter((n) => n.params._meta?.[SUBSCRIPTION_ID_META] === id).length;
    const before = mine();
    await client.callTool({ name: 'open', arguments: { incidentId: 'INC-3', severity: 'P1' } });
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(mine()).toBe(before);
  });

  it('replays what is retained after a cursor, and routes two streams by their request ids', async () => {
    const { listener } = await serve();
    const { client, heard, stream, call } = await connect(listener, revision);
    const start = await call('events/poll', { name: 'incident.created', cursor: null });
    for (const n of [1, 2, 3])
      await client.callTool({ name: 'open', arguments: { incidentId: `INC-${n}`, severity: n === 2 ? 'P2' : 'P1' } });
    const all = stream({ name: 'incident.created', cursor: start.cursor });
    const p2 = stream({ name: 'incident.created', arguments: { severity: 'P2' }, cursor: start.cursor });
    await until(() => of(heard, 'event').length === 4, 'the replays');
    const ids = [...new Set(of(heard, 'active').map((n) => n.params._meta?.[SUBSCRIPTION_ID_META]))];
    expect(ids).toHaveLength(2);
    const byStream = ids.map((id) => of(heard, 'event', id).map((n) => (n.params.data as { incidentId: string }).incidentId));
    expect(byStream.sort((a, b) => b.length - a.length)).toEqual([['INC-1', 'INC-2', 'INC-3'], ['INC-2']]);
    all.cancel();
    p2.cancel();
    await Promise.all([all.settled, p2.settled]);
  });

  it('caps the streams of one caller, frees a slot on cancel and on disconnect, and keeps callers apart', async () => {
    const { listener } = await serve(true);
    const alice = await connect(listener, revision, 'key-alice');
    const bob = await connect(listener, revision, 'key-bob');
    const first = alice.stream({ name: 'incident.created' });
    const second = alice.stream({ name: 'incident.created' });
    await until(() => of(alice.heard, 'active').length === 2, 'two streams');
    const third = await alice.stream({ name: 'incident.created' }).settled;
    expect(third).toMatchObject({ error: { code: -32013, data: { limit: 'streams', max: 2 } } });
    // Bob's streams are his own.
    const bobs = bob.stream({ name: 'incident.created' });
    await until(() => of(bob.heard, 'active').length === 1, "bob's stream");

    first.cancel();
    await first.settled;
    const again = await alice.streamWhenFree({ name: 'incident.created' });
    await until(() => of(alice.heard, 'active').length === 3, 'a stream in the freed slot');

    // Alice goes away without cancelling (her HTTP streams close): both her slots are freed.
    await alice.client.close();
    await Promise.all([second.settled, again.settled]);
    const back = await connect(listener, revision, 'key-alice');
    const streams = [await back.streamWhenFree({ name: 'incident.created' }), await back.streamWhenFree({ name: 'incident.created' })];
    await until(() => of(back.heard, 'active').length === 2, 'two streams after the disconnect', WAIT_MS);
    for (const s of streams) s.cancel();
    bobs.cancel();
  });

  it('ends open streams with a final result when the events runtime closes, and ends them when the app closes', async () => {
    const { listener } = await serve();
    const { heard, stream } = await connect(listener, revision);
    const one = stream({ name: 'incident.created' });
    await until(() => of(heard, 'active').length === 1, 'active');
    await incidents.close();
    // Closed by the server: the request is answered (the draft's empty StreamEventsResult).
    const { result } = (await one.settled) as { result?: Result };
    expect(result).toBeDefined();
    expect(Object.keys(result ?? {}).filter((k) => k !== '_meta')).toEqual([]);

    // Two apps share one events runtime allowing one stream in all: the app holding it closes, and
    // the other may open one (the stream ended on the server, not only on the wire).
    incidents = eventsWith({ maxStreams: 1 });
    const first = await serve();
    const second = await serve();
    const a = await connect(first.listener, revision);
    const b = await connect(second.listener, revision);
    const held = a.stream({ name: 'incident.created' });
    await until(() => of(a.heard, 'active').length === 1, 'active');
    expect(await b.stream({ name: 'incident.created' }).settled).toMatchObject({
      error: { code: -32013, data: { limit: 'streams', max: 1 } },
    });
    await first.app.close();
    const taken = await b.streamWhenFree({ name: 'incident.created' });
    await until(() => of(b.heard, 'active').length === 1, 'a stream on the other app');
    taken.cancel();
    void held;
  });
});

describe.each(['2025-11-25', '2026-07-28'] as const)('events/stream over stdio (a real process) on %s', (revision) => {
  it('pushes what a tool emits past the timeout, ends on notifications/cancelled, and frees the slot', async () => {
    const { client, heard, stream, streamWhenFree } = await connect('stdio', revision);
    const first = stream({ name: 'incident.created', arguments: { severity: 'P1' } });
    await until(() => of(heard, 'active').length === 1, 'active');
    const id = of(heard, 'active')[0]?.params._meta?.[SUBSCRIPTION_ID_META];
    await client.callTool({ name: 'open', arguments: { incidentId: 'INC-2', severity: 'P2' } });
    await client.callTool({ name: 'open', arguments: { incidentId: 'INC-1', severity: 'P1' } });
    await until(() => of(heard, 'event', id).length === 1 && of(heard, 'heartbeat', id).length >= 2, 'the event, then heartbeats');
    expect(of(heard, 'event', id)[0]?.params.data).toEqual({ incidentId: 'INC-1', severity: 'P1' });
    // One stream per caller in this app: the second waits for the first to be cancelled.
    expect(await stream({ name: 'incident.created' }).settled).toMatchObject({ error: { code: -32013 } });
    first.cancel();
    await first.settled;
    const second = await streamWhenFree({ name: 'incident.created' });
    await until(() => of(heard, 'active').length === 2, 'the second stream');
    const count = heard.filter((n) => n.params._meta?.[SUBSCRIPTION_ID_META] === id).length;
    await client.callTool({ name: 'open', arguments: { incidentId: 'INC-3', severity: 'P1' } });
    await until(() => of(heard, 'event').length === 2, 'the event on the second stream');
    expect(heard.filter((n) => n.params._meta?.[SUBSCRIPTION_ID_META] === id).length).toBe(count);
    second.cancel();
  });
});

describe('events/stream over stdio when the client goes away', () => {
  it('lets the process exit at once when stdin closes with a stream open', async () => {
    const child = spawn(process.execPath, [STDIO_APP], { stdio: ['pipe', 'pipe', 'inherit'] });
    open.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const send = (message: Result) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'events/stream', params: { name: 'incident.created' } });
    await until(() => out.includes('notifications/events/active'), 'active');
    child.stdin.end();
    expect(await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running'), WAIT_MS))])).toBe(0);
  });
});

describe('events/stream and the other methods against hostile input', () => {
  beforeEach(() => {
    incidents = eventsWith({ maxStreamsPerCaller: 3 });
  });

  it('refuses malformed params with -32602 naming the field, before opening anything, and leaks no slot', async () => {
    const { listener } = await serve();
    const { heard, stream, streamWhenFree, call } = await connect(listener, '2026-07-28');
    const bad: [string, Result][] = [
      ['events/stream', { name: 42 }],
      ['events/stream', { name: 'x'.repeat(500) }],
      ['events/stream', { name: 'incident.created', cursor: 7 }],
      ['events/stream', { name: 'incident.created', cursor: 'x'.repeat(100) }],
      ['events/stream', { name: 'incident.created', cursor: 'forged' }],
      ['events/stream', { name: 'incident.created', arguments: [] }],
      ['events/stream', { name: 'incident.created', arguments: { severity: 'P9' } }],
      ['events/stream', { name: 'incident.created', arguments: { unknown: true } }],
      ['events/stream', { name: 'incident.created', maxAgeMs: -1 }],
      ['events/stream', { name: 'incident.created', maxAgeMs: 1.5 }],
      ['events/stream', { name: 'incident.created', extra: true }],
      ['events/poll', { name: 'incident.created', cursor: 42 }],
      ['events/poll', { name: 'incident.created', maxEvents: 0 }],
      ['events/subscribe', { name: 'incident.created', delivery: { url: 42, secret: 'whsec_x' } }],
      ['events/subscribe', { name: 'incident.created', delivery: 'https://example.com' }],
      ['events/subscribe', { name: 'incident.created' }],
      ['events/subscribe', { name: 'incident.created', delivery: { url: 'https://example.com/h', secret: 's', extra: 1 } }],
      ['events/subscribe', { name: 'incident.created', delivery: { url: 'https://example.com/h', secret: 's' }, ttlMs: -5 }],
      ['events/unsubscribe', { name: 'incident.created', delivery: { url: ['https://example.com'] } }],
    ];
    for (const [method, params] of bad) {
      const error = await call(method, params).then(
        () => undefined,
        (e: { code?: number; message?: string }) => e,
      );
      expect(error?.code, `${method} ${JSON.stringify(params).slice(0, 80)}`).toBe(-32602);
      expect(error?.message).toMatch(/Invalid arguments for method|invalid|not one this server gave out/i);
    }
    expect((await stream({ name: 'nope' }).settled) as Result).toMatchObject({ error: { code: -32011 } });
    expect(of(heard, 'active')).toHaveLength(0);
    // None of them held a slot: the caller's three streams still open.
    const streams = [];
    for (let i = 0; i < 3; i++) streams.push(await streamWhenFree({ name: 'incident.created' }));
    await until(() => of(heard, 'active').length === 3, 'three streams');
    for (const s of streams) s.cancel();
  });

  it('lets exactly the cap through when a caller opens many streams at once, and serves the others meanwhile', async () => {
    const { listener } = await serve();
    const { client, heard, stream, call } = await connect(listener, '2026-07-28');
    const opened = Array.from({ length: 12 }, () => stream({ name: 'incident.created' }));
    const settled: unknown[] = [];
    for (const s of opened) void s.settled.then((outcome) => settled.push(outcome));
    await until(() => of(heard, 'active').length === 3 && settled.length === 9, 'three streams and nine refusals');
    expect(settled.filter((r) => (r as { error?: { code?: number } }).error?.code === -32013)).toHaveLength(9);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toHaveLength(9);
    // The server still answers its other methods, and the three streams get a burst of events in order.
    expect(await call('events/list')).toHaveProperty('events');
    for (let n = 0; n < 40; n++) await client.callTool({ name: 'open', arguments: { incidentId: `INC-${n}`, severity: 'P1' } });
    await until(() => of(heard, 'event').length === 120, 'the burst on three streams');
    const ids = [...new Set(of(heard, 'active').map((n) => n.params._meta?.[SUBSCRIPTION_ID_META]))];
    for (const id of ids) {
      expect(of(heard, 'event', id).map((n) => (n.params.data as { incidentId: string }).incidentId)).toEqual(
        Array.from({ length: 40 }, (_, n) => `INC-${n}`),
      );
    }
    for (const s of opened) s.cancel();
  });
});
