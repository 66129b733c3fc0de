import { McpError } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import { SUBSCRIPTION_ID_META } from '../src/event-streams.js';
import { type EventsOptions, EventsRuntime, type StreamChannel } from '../src/events-runtime.js';
import { RedisEventsStore } from '../src/redis-events-store.js';
import { IncidentFilter, IncidentPayload } from './support/dtos.js';

// The push machinery under conditions a real client cannot easily make: a reader that cannot keep
// up, a client whose writes fail, and events emitted by another instance on a shared Redis.

const options = (extra: Partial<EventsOptions> = {}): EventsOptions => ({
  experimental: true,
  events: [
    { name: 'incident.created', description: 'Fires when an incident is opened', payload: IncidentPayload, arguments: IncidentFilter },
  ],
  streamCheckMs: 50,
  streamHeartbeatMs: 200,
  ...extra,
});

type Sent = { method: string; params: Record<string, unknown> };

/** A channel whose writes are recorded; `gate` (when set) holds each write until opened. */
function channel(id: number) {
  const sent: Sent[] = [];
  const cancel = new AbortController();
  let gate: Promise<void> | undefined;
  let open = () => {};
  let failing = false;
  const made: StreamChannel = {
    requestId: id,
    signal: cancel.signal,
    notify: async (method, params) => {
      if (failing) throw new Error('the client went away');
      if (gate) await gate;
      sent.push({ method, params });
    },
  };
  return {
    made,
    sent,
    cancel: () => cancel.abort(),
    hold: () => {
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    release: () => {
      gate = undefined;
      open();
    },
    fail: () => {
      failing = true;
    },
  };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25));
  if (!check()) throw new Error(`${what} did not happen`);
}

const runtimes: EventsRuntime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.stop();
});

function started(extra: Partial<EventsOptions> = {}) {
  const runtime = new EventsRuntime(options(extra));
  runtime.start();
  runtimes.push(runtime);
  return runtime;
}

const emit = (runtime: EventsRuntime, incidentId: string) => runtime.emit('incident.created', { incidentId, severity: 'P1' });
const ids = (sent: Sent[]) =>
  sent.filter((s) => s.method === 'notifications/events/event').map((s) => (s.params.data as { incidentId: string }).incidentId);

describe('event streams', () => {
  it('tell a reader that fell behind what the log keeps that it lost events, then go on from what is left', async () => {
    const runtime = started({ pollMaxEvents: 5 });
    const c = channel(1);
    const running = runtime.stream('alice', { name: 'incident.created' }, c.made);
    await until(() => c.sent.length === 1, 'active');
    c.hold(); // the client stops reading
    await emit(runtime, 'e0');
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (let n = 1; n < 20; n++) await emit(runtime, `e${n}`);
    c.release();
    await until(() => ids(c.sent).includes('e19'), 'the newest event');
    const gap = c.sent.filter((s) => s.method === 'notifications/events/active' && s.params.truncated === true);
    expect(gap).toHaveLength(1);
    expect(ids(c.sent).slice(-5)).toEqual(['e15', 'e16', 'e17', 'e18', 'e19']);
    expect(ids(c.sent).length).toBeLessThan(20);
    c.cancel();
    expect(await running).toEqual({ _meta: {} });
  });

  it('end, and free the slot, when a write to the client fails; beat with the cursor while quiet', async () => {
    const runtime = started({ maxStreamsPerCaller: 1 });
    const c = channel(7);
    const running = runtime.stream('alice', { name: 'incident.created' }, c.made);
    await until(() => c.sent.some((s) => s.method === 'notifications/events/heartbeat'), 'a heartbeat');
    const active = c.sent[0] as Sent;
    expect(active.params._meta).toEqual({ [SUBSCRIPTION_ID_META]: 7 });
    expect(c.sent.find((s) => s.method === 'notifications/events/heartbeat')?.params.cursor).toBe(active.params.cursor);
    const refused = await runtime.stream('alice', { name: 'incident.created' }, channel(8).made).catch((e: McpError) => e);
    expect(refused).toMatchObject({ code: -32013, data: { limit: 'streams', max: 1 } });
    c.fail();
    await emit(runtime, 'lost');
    await running;
    // Bob was never at the limit; Alice's slot is free again.
    const next = channel(9);
    const again = runtime.stream('alice', { name: 'incident.created' }, next.made);
    await until(() => next.sent.length === 1, 'a new stream');
    next.cancel();
    await again;
  });

  it("skip, and report, an event the app's match function throws on, and go on", async () => {
    const runtime = started({
      events: [
        {
          name: 'incident.created',
          description: 'Fires when an incident is opened',
          payload: IncidentPayload,
          match: (payload: IncidentPayload) => {
            if (payload.incidentId === 'bad') throw new Error('match broke');
            return true;
          },
        },
      ],
    });
    const c = channel(4);
    const running = runtime.stream('alice', { name: 'incident.created' }, c.made);
    await until(() => c.sent.length === 1, 'active');
    for (const id of ['a', 'bad', 'b']) await emit(runtime, id);
    await until(() => ids(c.sent).includes('b'), 'the event after the bad one');
    expect(ids(c.sent)).toEqual(['a', 'b']);
    const error = c.sent.find((s) => s.method === 'notifications/events/error');
    expect(error?.params).toMatchObject({
      error: { code: -32603, message: expect.stringMatching(/1 event\(s\)/) },
      _meta: { [SUBSCRIPTION_ID_META]: 4 },
    });
    c.cancel();
    await running;
  });

  it('replay no older than maxAgeMs, saying so', async () => {
    const runtime = started();
    const start = await runtime.poll({ name: 'incident.created', cursor: null });
    await emit(runtime, 'old');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await emit(runtime, 'new');
    const c = channel(3);
    const running = runtime.stream('alice', { name: 'incident.created', cursor: start.cursor as string, maxAgeMs: 150 }, c.made);
    await until(() => ids(c.sent).length === 1, 'the replay');
    expect(c.sent[0]).toMatchObject({ method: 'notifications/events/active', params: { cursor: start.cursor, truncated: true } });
    expect(ids(c.sent)).toEqual(['new']);
    c.cancel();
    await running;
  });
});

describe('event streams on a shared Redis', () => {
  it('receive what another instance emits, within the check interval', async () => {
    const redis = await RedisServer.start();
    try {
      const prefix = `streams${Date.now()}:`;
      const a = started({ store: new RedisEventsStore({ url: redis.url, keyPrefix: prefix }) });
      const b = started({ store: new RedisEventsStore({ url: redis.url, keyPrefix: prefix }) });
      const c = channel(1);
      const running = a.stream('alice', { name: 'incident.created' }, c.made);
      await until(() => c.sent.length === 1, 'active');
      await emit(b, 'from-b');
      await emit(a, 'from-a');
      await until(() => ids(c.sent).length === 2, 'both events');
      expect(ids(c.sent)).toEqual(['from-b', 'from-a']);
      const cursors = c.sent.filter((s) => s.method === 'notifications/events/event').map((s) => s.params.cursor);
      expect(new Set(cursors).size).toBe(2);
      c.cancel();
      await running;
    } finally {
      for (const runtime of runtimes.splice(0)) await runtime.stop();
      await redis.dispose();
    }
  });
});
