import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { type Instance, stopInstance, useCluster } from './support/cluster.js';

const cluster = useCluster(['a', 'b', 'c']);

function text(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

async function connect(): Promise<Client> {
  const client = new Client({ name: 'failures', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(cluster.proxy.url, {
    reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 500, reconnectionDelayGrowFactor: 1.5, maxRetries: 10 },
  });
  await client.connect(transport);
  return client;
}

async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('an instance killed while a client holds its stream', () => {
  it('the client resumes with Last-Event-ID on another instance and gets every missed event once, in order', async () => {
    const client = await connect();
    try {
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        updated.push(n.params.uri);
      });
      const items = Array.from({ length: 10 }, (_, i) => 11 + i);
      for (const n of items) await client.subscribeResource({ uri: `item://${n}` });
      await eventually(() => cluster.proxy.routed.some((r) => r.method === 'GET'), 'the GET stream');
      const holder = cluster.instances.find(
        (i) => i.name === cluster.proxy.routed.filter((r) => r.method === 'GET').at(-1)?.instance,
      ) as Instance;

      for (const n of [11, 12, 13]) await client.callTool({ name: 'touch', arguments: { n } });
      await eventually(() => updated.length === 3, 'the first three notifications');

      await stopInstance(holder, 'SIGKILL');
      // Raised on the surviving instances while the client has no stream: stored, then replayed.
      for (const n of [14, 15, 16, 17]) await client.callTool({ name: 'touch', arguments: { n } });
      await eventually(() => updated.length === 7, 'the missed notifications, replayed');
      const resumed = cluster.proxy.routed.filter((r) => r.method === 'GET').at(-1);
      expect(resumed?.instance).not.toBe(holder.name);

      for (const n of [18, 19, 20]) await client.callTool({ name: 'touch', arguments: { n } });
      await eventually(() => updated.length >= 10, 'the last three notifications');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(updated).toEqual(items.map((n) => `item://${n}`));
      // Calls keep working on the surviving cluster.instances.
      const answers = new Set<string>();
      for (let i = 0; i < 4; i++) answers.add(text(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(answers).toEqual(new Set(cluster.instances.filter((i) => i !== holder).map((i) => i.name)));
    } finally {
      await client.close();
    }
  });
});

describe('an instance killed while it runs a call', () => {
  it('answers the call with an error saying so once its lease lapses, instead of leaving it to time out', async () => {
    const client = await connect();
    try {
      const before = cluster.proxy.servedBy('"name":"wait"').length;
      const call = client.callTool({ name: 'wait', arguments: {} }, { timeout: 30_000 }).then(
        () => 'answered',
        (error: Error) => error.message,
      );
      await eventually(() => cluster.proxy.servedBy('"name":"wait"').length > before, 'the call to reach an instance');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const runner = cluster.instances.find((i) => i.name === cluster.proxy.servedBy('"name":"wait"').at(-1)) as Instance;
      await stopInstance(runner, 'SIGKILL');
      // Not the client's own 30 s timeout (its error says so): the lease answered.
      expect(await call).toBe(
        'Internal error: the server instance running this request stopped before it answered; send the request again',
      );
    } finally {
      await client.close();
    }
  });
});

/** Each live instance's readiness answer, as `status body`. */
async function readiness(): Promise<string[]> {
  const alive = cluster.instances.filter((i) => i.process.exitCode === null && i.process.signalCode === null);
  return Promise.all(
    alive.map(async (instance) => {
      const answer = await fetch(new URL('/ready', instance.url));
      return `${answer.status} ${await answer.text()}`;
    }),
  );
}

describe('Redis down', () => {
  it('answers 503 naming the store at once, and serves the same session again once Redis is back', async () => {
    const client = await connect();
    try {
      expect(text(await client.callTool({ name: 'whoami', arguments: {} }))).toMatch(/^[abc]$/);
      expect(new Set(await readiness())).toEqual(new Set(['200 {"status":"ready"}']));
      await cluster.redis.stop();
      // The readiness path says so on every instance, so a load balancer stops sending them sessions.
      expect(new Set(await readiness())).toEqual(new Set(['503 {"status":"not ready","reason":"the redis state cannot be reached"}']));
      // Both refusals come while Redis is still down (it starts again only below): nothing waits for it.
      await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toThrow(
        'Service Unavailable: the redis state store is unreachable, so this session cannot be served; retry later',
      );
      await expect(connect()).rejects.toThrow(
        'Service Unavailable: the redis state store is unreachable, so this session cannot be served; retry later',
      );
      // 2026-07-28 requests carry their state: they need no store.
      const modern = new Client({ name: 'stateless', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await modern.connect(new StreamableHTTPClientTransport(cluster.proxy.url));
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(text(await modern.callTool({ name: 'whoami', arguments: {} }))).toMatch(/^[abc]$/);
      await modern.close();

      await cluster.redis.start();
      await eventually(
        () =>
          client.callTool({ name: 'whoami', arguments: {} }).then(
            () => true,
            () => false,
          ),
        'the session to be served again',
        20_000,
      );
      await eventually(async () => (await readiness()).every((answer) => answer.startsWith('200 ')), 'every instance to be ready again');
      const alive = cluster.instances.filter((i) => i.process.exitCode === null && i.process.signalCode === null);
      const answers = new Set<string>();
      for (let i = 0; i < 4; i++) answers.add(text(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(answers).toEqual(new Set(alive.map((i) => i.name)));
    } finally {
      await client.close();
    }
  });
});
