import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpApp, McpServer, Tool } from '@armature/core';
import { events, eventsErrorCodes, redisEventsStore } from '@armature/events';
import { Client, type ProtocolError, type StandardSchemaV1, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { Webhook } from 'standardwebhooks';
import { connectInMemory, expectEqual } from './support/check.js';
import { startRedis } from './support/redis-server.js';

// #region declare
export class IncidentPayload {
  @IsString()
  incidentId!: string;

  @IsIn(['P1', 'P2', 'P3'])
  severity!: string;
}

export class IncidentFilter {
  @IsOptional()
  @IsIn(['P1', 'P2', 'P3'])
  severity?: string;
}

const incidentCreated = {
  name: 'incident.created',
  description: 'Fires when an incident is opened',
  payload: IncidentPayload, // payloadSchema in events/list; every emit is validated against it
  arguments: IncidentFilter, // inputSchema: what a subscription may filter on
  match: (incident: IncidentPayload, filter: IncidentFilter) => !filter.severity || filter.severity === incident.severity,
};

export const incidents = events({
  experimental: true, // required: SEP-3415 is a draft, its names may still change
  events: [incidentCreated],
  egress: { allow: ['127.0.0.1'] }, // this example's receiver is local; by default only public addresses
  anonymousWebhooks: true, // this example has no auth; a real server serves webhooks to authenticated callers
});
// #endregion

// #region serve
@McpServer({ name: 'incidents', version: '1.0.0' })
export class IncidentServer {
  @Tool({ description: 'Open an incident' })
  async open(input: IncidentPayload) {
    await incidents.emit('incident.created', { incidentId: input.incidentId, severity: input.severity });
    return `Opened ${input.incidentId}`;
  }
}

export const app = createMcpApp(IncidentServer, { extensions: [incidents.extension] });
// #endregion

// #region redis
/** What every instance runs when several share one Redis. */
export function sharedIncidents(redisUrl: string) {
  return events({
    experimental: true,
    events: [incidentCreated],
    store: redisEventsStore({ url: redisUrl }), // the Redis of redisState, e.g. process.env.REDIS_URL
  });
}
// #endregion

// #region receiver
/** A webhook receiver: answers the verification challenge, then verifies every delivery. */
function receiver(secret: string, received: unknown[]) {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8'); // the raw body: the signature covers its bytes
      try {
        const message = new Webhook(secret).verify(body, request.headers as Record<string, string>) as Record<string, unknown>;
        if (message.type === 'verification') {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge: message.challenge }));
          return;
        }
        received.push({ subscription: request.headers['x-mcp-subscription-id'], ...message });
        response.writeHead(204).end();
      } catch {
        response.writeHead(400).end(); // not signed with our secret: refused
      }
    });
  });
}
// #endregion

// #region subscribe
const anyResult: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'docs', validate: (value) => ({ value: value as Record<string, unknown> }) },
};

/** Lists what the server offers, then subscribes a webhook to P1 incident.created. */
export async function subscribe(connected: Client, hookUrl: string, secret: string) {
  const listed = await connected.request({ method: 'events/list', params: {} }, anyResult);
  const subscription = await connected.request(
    {
      method: 'events/subscribe',
      params: {
        name: 'incident.created',
        arguments: { severity: 'P1' },
        delivery: { mode: 'webhook', url: hookUrl, secret }, // the subscriber makes the secret
        ttlMs: 3_600_000, // suggested; refreshBefore is what the server granted
      },
    },
    anyResult,
  );
  return { offered: listed.events, subscription };
}
// #endregion

// #region stream
type Heard = (method: string, params: Record<string, unknown>) => void;

/** Opens a push stream of P1 incident.created; `stop()` cancels it, which ends it on the server. */
export function stream(connected: Client, heard: Heard) {
  connected.fallbackNotificationHandler = async ({ method, params }) => {
    // notifications/events/active (the stream is open), .../event, .../heartbeat (when quiet)
    if (method.startsWith('notifications/events/')) heard(method, params ?? {});
  };
  const cancel = new AbortController();
  const done = connected
    .request(
      { method: 'events/stream', params: { name: 'incident.created', arguments: { severity: 'P1' }, cursor: null } },
      anyResult,
      { signal: cancel.signal, timeout: 24 * 3_600_000 }, // open until cancelled: no request timeout
    )
    .catch(() => 'cancelled');
  return { stop: () => cancel.abort(), done };
}
// #endregion

function codeTable(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const rows = eventsErrorCodes().map((e) => `| ${e.code} | ${cell(e.title)} | ${cell(e.example.message)} | ${cell(e.example.fix)} |`);
  return ['| code | what | example | fix |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

export const outputs: Record<string, string> = { codes: codeTable() };

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!check()) throw new Error(`${what} did not happen within 10 s`);
}

export async function main(): Promise<void> {
  const redis = await startRedis();
  const [a, b] = [sharedIncidents(redis.url), sharedIncidents(redis.url)];
  try {
    // Two instances on one Redis: what one emits, a client of the other polls.
    const first = await connectInMemory(createMcpApp(IncidentServer, { extensions: [a.extension] }));
    createMcpApp(IncidentServer, { extensions: [b.extension] });
    try {
      const start = await first.client.request({ method: 'events/poll', params: { name: 'incident.created', cursor: null } }, anyResult);
      await b.emit('incident.created', { incidentId: 'INC-9', severity: 'P3' });
      const polled = await first.client.request(
        { method: 'events/poll', params: { name: 'incident.created', cursor: start.cursor } },
        anyResult,
      );
      expectEqual(
        (polled.events as { data: unknown }[]).map((e) => e.data),
        [{ incidentId: 'INC-9', severity: 'P3' }],
        'polled across instances',
      );
    } finally {
      await first.close();
    }
  } finally {
    await a.close();
    await b.close();
    await redis.stop();
  }
  const received: { subscription: string; eventId: string; name: string; data: unknown }[] = [];
  const secret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
  const hooks = receiver(secret, received);
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks`;
  const listener = await app.listenHttp({ port: 0 });
  const client = new Client({ name: 'docs-check', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    const { offered, subscription } = await subscribe(client, hookUrl, secret);
    expectEqual(
      (offered as { name: string; delivery: string[] }[]).map((e) => [e.name, e.delivery]),
      [['incident.created', ['webhook', 'push', 'poll']]],
      'events/list',
    );
    await client.callTool({ name: 'open', arguments: { incidentId: 'INC-2', severity: 'P2' } });
    await client.callTool({ name: 'open', arguments: { incidentId: 'INC-1', severity: 'P1' } });
    await until(() => received.length === 1, 'the delivery');
    expectEqual(received[0]?.subscription, subscription.id, 'the subscription id header');
    expectEqual(
      [received[0]?.name, received[0]?.data],
      ['incident.created', { incidentId: 'INC-1', severity: 'P1' }],
      'the P1 event, not the P2 one',
    );

    const refused = await client
      .request(
        { method: 'events/subscribe', params: { name: 'incident.created', delivery: { url: 'https://169.254.169.254/latest', secret } } },
        anyResult,
      )
      .catch((error: ProtocolError) => error);
    expectEqual((refused as ProtocolError).code, -32602, 'a link-local callback is refused');
    const gone = await client.request(
      { method: 'events/unsubscribe', params: { name: 'incident.created', arguments: { severity: 'P1' }, delivery: { url: hookUrl } } },
      anyResult,
    );
    expectEqual(gone, {}, 'unsubscribed');

    const pushed: unknown[] = [];
    let active = false;
    const live = stream(client, (method, params) => {
      if (method === 'notifications/events/active') active = true;
      if (method === 'notifications/events/event') pushed.push(params.data);
    });
    // A stream sees what is emitted once it is open (or replays from a cursor it is given).
    await until(() => active, 'the stream opening');
    await client.callTool({ name: 'open', arguments: { incidentId: 'INC-4', severity: 'P2' } });
    await client.callTool({ name: 'open', arguments: { incidentId: 'INC-3', severity: 'P1' } });
    await until(() => pushed.length === 1, 'the pushed event');
    expectEqual(pushed, [{ incidentId: 'INC-3', severity: 'P1' }], 'the P1 event, pushed');
    live.stop();
    expectEqual(await live.done, 'cancelled', 'the stream cancelled');
  } finally {
    await client.close();
    await listener.close();
    await incidents.close();
    hooks.closeAllConnections();
    hooks.close();
  }
}
