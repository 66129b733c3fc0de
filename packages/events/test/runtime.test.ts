import { ArmatureBuildError, McpError } from '@armature/core';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventsErrorCodes } from '../src/error-codes.js';
import { type EventsOptions, EventsRuntime } from '../src/events-runtime.js';
import { MemoryEventsStore } from '../src/memory-events-store.js';
import { IncidentFilter, IncidentPayload } from './support/dtos.js';
import { newSecret, Receiver } from './support/receiver.js';

const declarations: EventsOptions['events'] = [
  {
    name: 'incident.created',
    description: 'Fires when an incident is opened',
    payload: IncidentPayload,
    arguments: IncidentFilter,
    match: (payload: IncidentPayload, args: { severity?: string }) => args.severity === undefined || args.severity === payload.severity,
  },
];

const local = (extra: Partial<EventsOptions> = {}): EventsOptions => ({
  experimental: true,
  events: declarations,
  egress: { allow: ['127.0.0.1'] },
  retryDelaysMs: [200, 200, 200],
  timeoutMs: 2_000,
  sweepMs: 200,
  ...extra,
});

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('events({...}) options', () => {
  it('refuses to start without experimental: true, with ARM170 and the fix', () => {
    const make = () => new EventsRuntime({ events: declarations } as unknown as EventsOptions);
    expect(make).toThrow(ArmatureBuildError);
    try {
      make();
    } catch (error) {
      expect((error as ArmatureBuildError).problems).toEqual([
        expect.objectContaining({ code: 'ARM170', where: 'events', fix: expect.stringContaining('experimental: true') }),
      ]);
    }
  });

  it('closes its store on stop even when it was never started (a Redis connection would keep the process alive)', async () => {
    const store = new MemoryEventsStore();
    let closed = 0;
    store.close = async () => {
      closed++;
    };
    const never = new EventsRuntime({ ...local(), store });
    await never.stop();
    await never.stop();
    expect(closed).toBe(1);
    await expect(never.emit('incident.created', { incidentId: 'a', severity: 'P1' })).rejects.toThrow(/not running/);
  });

  it('lists its codes, all in ARM170-ARM179, each once', () => {
    const codes = eventsErrorCodes().map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const code of codes) expect(Number(code.slice(3))).toBeGreaterThanOrEqual(170);
    for (const code of codes) expect(Number(code.slice(3))).toBeLessThanOrEqual(179);
  });

  it('lists every problem at once: names, descriptions, DTOs, egress entries, numbers', () => {
    try {
      new EventsRuntime({
        experimental: true,
        events: [
          { name: 'bad name', description: 'x', payload: IncidentPayload },
          { name: 'ok', description: '', payload: 'nope' as never },
          { name: 'ok', description: 'twice', payload: IncidentPayload },
        ],
        egress: { allow: ['localhost'] },
        timeoutMs: -1,
      });
      expect.unreachable();
    } catch (error) {
      expect((error as ArmatureBuildError).problems.map((p) => p.code)).toEqual([
        'ARM171',
        'ARM172',
        'ARM172',
        'ARM171',
        'ARM173',
        'ARM174',
      ]);
    }
  });
});

describe('events runtime', () => {
  let receiver: Receiver;
  let runtime: EventsRuntime;
  let secret: string;
  beforeEach(async () => {
    receiver = await Receiver.start();
    secret = newSecret();
    receiver.secret = secret;
  });
  afterEach(async () => {
    await runtime?.stop();
    await receiver.stop();
  });
  const start = (extra?: Partial<EventsOptions>) => {
    runtime = new EventsRuntime(local(extra));
    runtime.start();
    return runtime;
  };
  const subscribe = (args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    runtime.subscribe('alice', {
      name: 'incident.created',
      arguments: args,
      delivery: { mode: 'webhook', url: receiver.url, secret },
      ...extra,
    });

  it('lists events with their argument and payload schemas from the DTOs', () => {
    start();
    const [event] = runtime.list().events;
    expect(event).toMatchObject({
      name: 'incident.created',
      delivery: ['webhook', 'push', 'poll'],
      inputSchema: { type: 'object', properties: { severity: { enum: ['P1', 'P2', 'P3'] } } },
      payloadSchema: { type: 'object', required: expect.arrayContaining(['incidentId', 'severity']) },
    });
  });

  it('challenges the receiver, then delivers signed events the reference verifier accepts, with the subscription id header', async () => {
    start();
    const result = await subscribe();
    expect(result).toMatchObject({ id: expect.stringMatching(/^sub_/), cursor: null, truncated: false });
    expect(receiver.challenges).toHaveLength(1);
    expect(receiver.challenges[0]?.headers['x-mcp-subscription-id']).toBe(result.id);
    const emitted = await runtime.emit('incident.created', { incidentId: 'INC-1', severity: 'P1' });
    expect(emitted.deliveries).toBe(1);
    await receiver.waitFor(1);
    expect(receiver.verified).toEqual([
      expect.objectContaining({ eventId: emitted.eventId, name: 'incident.created', data: { incidentId: 'INC-1', severity: 'P1' } }),
    ]);
    expect(receiver.deliveries[0]?.headers).toMatchObject({ 'x-mcp-subscription-id': result.id, 'webhook-id': emitted.eventId });
  });

  it('delivers on the third try to a receiver that fails twice, each try freshly signed', async () => {
    start();
    receiver.behaviour = (_r, response, index) => response.writeHead(index < 2 ? 503 : 200).end();
    await subscribe();
    await runtime.emit('incident.created', { incidentId: 'INC-2', severity: 'P2' });
    await receiver.waitFor(3);
    expect(receiver.verified).toHaveLength(3);
    expect(new Set(receiver.deliveries.map((d) => d.headers['webhook-id']))).toHaveProperty('size', 1);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(receiver.deliveries).toHaveLength(3);
    const refreshed = await subscribe();
    expect(refreshed.deliveryStatus).toEqual({ active: true, lastDeliveryAt: expect.any(String), lastError: null });
  });

  it('gives up after the last retry, and on a receiver that hangs moves on after the timeout', async () => {
    start({ retryDelaysMs: [100], timeoutMs: 500 });
    receiver.behaviour = () => undefined;
    await subscribe();
    await runtime.emit('incident.created', { incidentId: 'INC-3', severity: 'P3' });
    await receiver.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.deliveries).toHaveLength(2);
    expect(await runtime.store.nextDue()).toBeUndefined();
    const refreshed = await subscribe();
    expect(refreshed.deliveryStatus).toEqual({ active: true, lastDeliveryAt: null, lastError: 'timeout', failedSince: expect.any(String) });
  });

  it('sends each subscription only the events its arguments match', async () => {
    start();
    await subscribe({ severity: 'P1' });
    expect((await runtime.emit('incident.created', { incidentId: 'INC-4', severity: 'P2' })).deliveries).toBe(0);
    expect((await runtime.emit('incident.created', { incidentId: 'INC-5', severity: 'P1' })).deliveries).toBe(1);
  });

  it('grants a TTL within its bounds; an expired subscription gets nothing, a renewed one keeps its id', async () => {
    start({ minTtlMs: 300, defaultTtlMs: 300, maxTtlMs: 1_000 });
    const first = await subscribe({}, { ttlMs: 10 });
    expect(first).not.toHaveProperty('deliveryStatus');
    const granted = Date.parse(first.refreshBefore as string) - Date.now();
    expect(granted).toBeGreaterThan(100);
    expect(granted).toBeLessThanOrEqual(300);
    const long = await subscribe({}, { ttlMs: null });
    expect(Date.parse(long.refreshBefore as string) - Date.now()).toBeLessThanOrEqual(1_000);
    expect(long.id).toBe(first.id);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await runtime.emit('incident.created', { incidentId: 'INC-6', severity: 'P1' })).deliveries).toBe(0);
    const renewed = await subscribe({}, { ttlMs: 1_000 });
    expect(renewed.id).toBe(first.id);
    expect((await runtime.emit('incident.created', { incidentId: 'INC-7', severity: 'P1' })).deliveries).toBe(1);
  });

  it('unsubscribes by the same key, and says when there is nothing to remove', async () => {
    start();
    await subscribe();
    const key = { name: 'incident.created', arguments: {}, delivery: { url: receiver.url } };
    expect(await runtime.unsubscribe('alice', key)).toEqual({});
    expect((await rejection(runtime.unsubscribe('alice', key))).code).toBe(-32011);
    await subscribe();
    expect((await rejection(runtime.unsubscribe('bob', key))).code).toBe(-32011);
    // Unsubscribing sends nothing, so a target the policy (here: another instance's) refuses is no obstacle.
    const strict = new EventsRuntime({ experimental: true, events: declarations, store: runtime.store });
    expect(await strict.unsubscribe('alice', key)).toEqual({});
  });

  it('dual-signs with the old and new secret for a while after rotation', async () => {
    start();
    await subscribe();
    const old = secret;
    secret = newSecret();
    receiver.secret = secret;
    await subscribe();
    await runtime.emit('incident.created', { incidentId: 'INC-8', severity: 'P1' });
    await receiver.waitFor(1);
    expect(receiver.verified).toHaveLength(1);
    const delivery = receiver.deliveries[0] as { body: string; headers: Record<string, string> };
    expect(delivery.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(old).verify(delivery.body, delivery.headers)).not.toThrow();
  });
});

describe('poll mode', () => {
  let runtime: EventsRuntime;
  afterEach(async () => {
    await runtime?.stop();
  });
  const poll = (cursor: string | null, extra: Record<string, unknown> = {}) =>
    runtime.poll({ name: 'incident.created', arguments: {}, cursor, ...extra }) as Promise<{
      events: { eventId: string; data: { incidentId: string } }[];
      cursor: string;
      truncated: boolean;
      hasMore: boolean;
      nextPollMs: number;
    }>;
  const emit = (incidentId: string, severity = 'P1') => runtime.emit('incident.created', { incidentId, severity });

  it('starts from now, then returns what was emitted after the cursor, matched by the arguments, in pages', async () => {
    runtime = new EventsRuntime(local({ pollIntervalMs: 1_234 }));
    runtime.start();
    await emit('before');
    const start = await poll(null);
    expect(start).toMatchObject({ events: [], truncated: false, hasMore: false, nextPollMs: 1_234 });
    for (const id of ['a', 'b', 'c']) await emit(id, id === 'b' ? 'P2' : 'P1');
    const page = await poll(start.cursor, { maxEvents: 2 });
    expect(page.events.map((e) => e.data.incidentId)).toEqual(['a', 'b']);
    expect(page.hasMore).toBe(true);
    const rest = await poll(page.cursor, { maxEvents: 2 });
    expect(rest.events.map((e) => e.data.incidentId)).toEqual(['c']);
    expect(rest).toMatchObject({ hasMore: false, truncated: false });
    expect((await poll(rest.cursor)).events).toEqual([]);
    const filtered = await poll(start.cursor, { arguments: { severity: 'P2' } });
    expect(filtered.events.map((e) => e.data.incidentId)).toEqual(['b']);
  });

  it('says truncated when the cursor fell out of the retained window, and refuses cursors it never gave out', async () => {
    runtime = new EventsRuntime(local({ pollMaxEvents: 2 }));
    runtime.start();
    const start = await poll(null);
    for (const id of ['a', 'b', 'c']) await emit(id);
    const page = await poll(start.cursor);
    expect(page.truncated).toBe(true);
    expect(page.events.map((e) => e.data.incidentId)).toEqual(['b', 'c']);
    // Malformed params (a cursor that is not a string, or too long) are the DTO's: see extension.test.ts.
    for (const cursor of ['garbage', '17-0']) {
      expect((await rejection(runtime.poll({ name: 'incident.created', cursor }))).code).toBe(-32602);
    }
    expect((await rejection(runtime.poll({ name: 'nope', cursor: null }))).code).toBe(-32011);
  });
});

describe('events runtime against hostile input', () => {
  let receiver: Receiver;
  let runtime: EventsRuntime;
  beforeEach(async () => {
    receiver = await Receiver.start();
  });
  afterEach(async () => {
    await runtime?.stop();
    await receiver.stop();
  });
  const params = (delivery: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    name: 'incident.created',
    arguments: {},
    delivery: { url: receiver.url, secret: newSecret(), ...delivery },
    ...extra,
  });

  it('refuses a private callback by default, naming the address, and sends it nothing', async () => {
    runtime = new EventsRuntime({ experimental: true, events: declarations });
    runtime.start();
    for (const url of [
      receiver.url.replace('http:', 'https:'),
      'https://localhost/hooks',
      'https://[::1]/x',
      'https://169.254.169.254/latest',
      'https://10.0.0.1/x',
    ]) {
      const error = await rejection(runtime.subscribe('alice', params({ url })));
      expect(error.code, url).toBe(-32602);
      expect(error.message).toMatch(/loopback, private, link-local/);
    }
    expect(receiver.challenges).toHaveLength(0);
  });

  it('refuses malformed callback URLs, schemes, credentials, bad secrets and arguments with -32602', async () => {
    runtime = new EventsRuntime(local());
    runtime.start();
    const cases: [Record<string, unknown>, Record<string, unknown>?][] = [
      [{ url: 'not a url' }],
      [{ url: 'ftp://127.0.0.1/x' }],
      [{ url: 'file:///etc/passwd' }],
      [{ url: 'https://user:pw@127.0.0.1/x' }],
      [{ url: `https://${'a'.repeat(3_000)}.example` }],
      [{ url: 'http://93.184.216.34/x' }],
      [{ secret: 'hunter2' }],
      [{ secret: `whsec_${Buffer.alloc(8).toString('base64')}` }],
      [{}, { arguments: { severity: 'P9' } }],
      [{}, { arguments: { unknown: true } }],
    ];
    for (const [delivery, extra] of cases) {
      const error = await rejection(runtime.subscribe('alice', params(delivery, extra)));
      expect(error.code, JSON.stringify([delivery, extra])).toBe(-32602);
    }
    expect((await rejection(runtime.subscribe('alice', params({}, { name: 'nope' })))).code).toBe(-32011);
    expect((await rejection(runtime.subscribe('alice', params({ mode: 'push' })))).code).toBe(-32014);
    expect(receiver.challenges).toHaveLength(0);
  });

  it('refuses anonymous callers unless the app allows them', async () => {
    runtime = new EventsRuntime(local());
    runtime.start();
    expect((await rejection(runtime.subscribe(undefined, params({})))).code).toBe(-32012);
    await runtime.stop();
    runtime = new EventsRuntime(local({ anonymousWebhooks: true }));
    runtime.start();
    await expect(runtime.subscribe(undefined, params({}))).resolves.toMatchObject({ id: expect.any(String) });
  });

  it('does not subscribe a receiver that fails the challenge, and says why', async () => {
    runtime = new EventsRuntime(local({ timeoutMs: 500 }));
    runtime.start();
    receiver.challenge = 'wrong';
    expect(await rejection(runtime.subscribe('alice', params({})))).toMatchObject({ code: -32015, data: { reason: 'challenge_failed' } });
    receiver.challenge = 'ignore';
    expect(await rejection(runtime.subscribe('alice', params({})))).toMatchObject({ code: -32015, data: { reason: 'challenge_failed' } });
    const url = receiver.url;
    await receiver.stop();
    expect(await rejection(runtime.subscribe('alice', params({ url })))).toMatchObject({
      code: -32015,
      data: { reason: 'connection_refused' },
    });
    receiver = await Receiver.start();
    expect((await runtime.emit('incident.created', { incidentId: 'X', severity: 'P1' })).deliveries).toBe(0);
  });

  it('caps the subscriptions one caller holds, before any challenge is sent; refreshing one is not a new one', async () => {
    runtime = new EventsRuntime(local({ maxSubscriptionsPerCaller: 2 }));
    runtime.start();
    const secret = newSecret();
    const at = (severity: string) => ({ name: 'incident.created', arguments: { severity }, delivery: { url: receiver.url, secret } });
    await runtime.subscribe('alice', at('P1'));
    await runtime.subscribe('alice', at('P2'));
    await runtime.subscribe('alice', at('P2'));
    const challenges = receiver.challenges.length;
    expect(await rejection(runtime.subscribe('alice', at('P3')))).toMatchObject({ code: -32013, data: { limit: 'subscriptions', max: 2 } });
    expect(receiver.challenges).toHaveLength(challenges);
    await expect(runtime.subscribe('bob', at('P3'))).resolves.toMatchObject({ id: expect.any(String) });
    await runtime.unsubscribe('alice', at('P1'));
    await expect(runtime.subscribe('alice', at('P3'))).resolves.toMatchObject({ id: expect.any(String) });
  });

  it('limits the verification challenges POSTed to one host per minute, whatever the path', async () => {
    runtime = new EventsRuntime(local({ challengesPerHostPerMinute: 2 }));
    runtime.start();
    const at = (path: string) => ({ name: 'incident.created', delivery: { url: `${receiver.url}/${path}`, secret: newSecret() } });
    await runtime.subscribe('alice', at('a'));
    await runtime.subscribe('alice', at('b'));
    expect(await rejection(runtime.subscribe('alice', at('c')))).toMatchObject({ code: -32013, data: { limit: 'challenges', max: 2 } });
    expect(receiver.challenges).toHaveLength(2);
    // A URL already verified for this caller needs no new challenge.
    await expect(runtime.subscribe('alice', at('a'))).resolves.toMatchObject({ id: expect.any(String) });
  });

  it('refuses to emit an invalid payload, an unknown event, or a body over 256 KiB', async () => {
    runtime = new EventsRuntime(local());
    runtime.start();
    await expect(runtime.emit('incident.created', { incidentId: 1, severity: 'P7' })).rejects.toThrow(
      /incidentId.*severity|severity.*incidentId/s,
    );
    await expect(runtime.emit('incident.created', { incidentId: 'a', severity: 'P1', extra: 1 })).rejects.toThrow(/extra/);
    await expect(runtime.emit('nope', {})).rejects.toThrow(/no event named "nope"/);
    await expect(runtime.emit('incident.created', { incidentId: 'a', severity: 'P1', notes: 'x'.repeat(262_144) })).rejects.toThrow(
      /over the limit of 262144 bytes/,
    );
    await expect(runtime.emit('incident.created', { incidentId: 'a', severity: 'P1', notes: 'x'.repeat(200_000) })).resolves.toMatchObject({
      deliveries: 0,
    });
  });
});
