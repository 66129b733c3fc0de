import { createMcpApp, type HttpListener, McpServer, Tool } from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENTS_EXTENSION_ID, type Events, events } from '../src/events-extension.js';
import { anyResult, Keys, type Result } from './support/client-side.js';
import { IncidentFilter, IncidentPayload } from './support/dtos.js';
import { newSecret, Receiver } from './support/receiver.js';

// Events served as an extension of a real app: HTTP on 127.0.0.1, the official client on both
// revisions, bearer auth deciding whose subscription is whose, and a tool that emits.

let incidents: Events;

@McpServer({ name: 'incidents', version: '1.0.0' })
class IncidentServer {
  @Tool({ description: 'Open an incident' })
  async open(input: IncidentPayload) {
    const { deliveries } = await incidents.emit('incident.created', { incidentId: input.incidentId, severity: input.severity });
    return `queued for ${deliveries}`;
  }
}

const open: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

async function serve(withAuth: boolean): Promise<HttpListener> {
  const app = createMcpApp(IncidentServer, { extensions: [incidents.extension] });
  const listener = await app.listenHttp({
    port: 0,
    ...(withAuth
      ? { auth: { verifier: new Keys(), resource: 'http://127.0.0.1/mcp', authorizationServers: ['https://auth.example.com'] } }
      : {}),
  });
  open.push(() => app.close());
  return listener;
}

async function connect(listener: HttpListener, revision: '2025-11-25' | '2026-07-28', key?: string) {
  const client = new Client(
    { name: 'events-client', version: '1.0.0' },
    revision === '2026-07-28' ? { versionNegotiation: { mode: 'auto' as const } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(listener.url), key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {}),
  );
  open.push(() => client.close());
  expect(client.getNegotiatedProtocolVersion()).toBe(revision);
  return { client, call: (method: string, params: Result = {}) => client.request({ method, params }, anyResult) };
}

describe.each(['2025-11-25', '2026-07-28'] as const)('events as an extension on %s', (revision) => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await Receiver.start();
    open.push(() => receiver.stop());
    incidents = events({
      experimental: true,
      events: [
        { name: 'incident.created', description: 'Fires when an incident is opened', payload: IncidentPayload, arguments: IncidentFilter },
      ],
      egress: { allow: ['127.0.0.1'] },
      retryDelaysMs: [200, 200],
      timeoutMs: 2_000,
    });
    open.push(() => incidents.close());
  });

  it('advertises the extension, lists the events, and delivers what a tool emits to the caller who subscribed', async () => {
    const listener = await serve(true);
    const alice = await connect(listener, revision, 'key-alice');
    const bob = await connect(listener, revision, 'key-bob');
    expect(alice.client.getServerCapabilities()?.extensions?.[EVENTS_EXTENSION_ID]).toEqual({
      experimental: true,
      delivery: ['webhook', 'push', 'poll'],
    });
    const listed = await alice.call('events/list');
    expect(listed.events).toEqual([
      expect.objectContaining({ name: 'incident.created', payloadSchema: expect.objectContaining({ type: 'object' }) }),
    ]);

    const secret = newSecret();
    receiver.secret = secret;
    const key = { name: 'incident.created', arguments: {}, delivery: { url: receiver.url } };
    const subscribed = await alice.call('events/subscribe', { ...key, delivery: { ...key.delivery, secret } });
    expect(subscribed).toMatchObject({ id: expect.stringMatching(/^sub_/), refreshBefore: expect.any(String) });

    const result = await bob.client.callTool({ name: 'open', arguments: { incidentId: 'INC-1', severity: 'P1' } });
    expect(result.content).toEqual([{ type: 'text', text: 'queued for 1' }]);
    await receiver.waitFor(1);
    expect(receiver.verified).toEqual([
      expect.objectContaining({ name: 'incident.created', data: { incidentId: 'INC-1', severity: 'P1' } }),
    ]);
    expect(receiver.deliveries[0]?.headers['x-mcp-subscription-id']).toBe(subscribed.id);

    // Bob's key differs from Alice's: he cannot remove her subscription.
    await expect(bob.call('events/unsubscribe', key)).rejects.toMatchObject({ code: -32011 });
    // An empty result (2026-07-28 adds the protocol's own _meta).
    const { _meta, ...unsubscribed } = await alice.call('events/unsubscribe', key);
    expect(unsubscribed).toEqual({});
    await expect(alice.call('events/unsubscribe', key)).rejects.toMatchObject({ code: -32011 });
  });

  it('answers bad input with the draft codes and keeps serving', async () => {
    const listener = await serve(false);
    const anonymous = await connect(listener, revision);
    const secret = newSecret();
    const delivery = { url: receiver.url, secret };
    await expect(anonymous.call('events/subscribe', { name: 'incident.created', delivery })).rejects.toMatchObject({ code: -32012 });
    await expect(anonymous.call('events/subscribe', { name: 'nope', delivery })).rejects.toMatchObject({ code: -32011 });
    await expect(anonymous.call('events/poll', { name: 'incident.created', cursor: 'forged' })).rejects.toMatchObject({ code: -32602 });
    const start = await anonymous.call('events/poll', { name: 'incident.created', cursor: null });
    await anonymous.client.callTool({ name: 'open', arguments: { incidentId: 'INC-2', severity: 'P2' } });
    const polled = await anonymous.call('events/poll', { name: 'incident.created', cursor: start.cursor });
    expect(polled.events).toEqual([expect.objectContaining({ name: 'incident.created', data: { incidentId: 'INC-2', severity: 'P2' } })]);
    expect(receiver.challenges).toHaveLength(0);
  });

  it('stops with the app: closing the app stops delivering, without a call to incidents.close()', async () => {
    const app = createMcpApp(IncidentServer, { extensions: [incidents.extension] });
    await app.listenHttp({ port: 0 });
    await incidents.emit('incident.created', { incidentId: 'INC-3', severity: 'P3' });
    await app.close();
    await expect(incidents.emit('incident.created', { incidentId: 'INC-4', severity: 'P3' })).rejects.toThrow(
      /not running yet .* or has been stopped/,
    );
  });
});
