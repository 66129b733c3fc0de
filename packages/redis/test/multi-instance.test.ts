import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Instance, RoundRobinProxy, startInstance, stopInstance } from './support/cluster.js';
import { RedisServer } from './support/redis-server.js';

let redis: RedisServer;
let instances: Instance[];
let proxy: RoundRobinProxy & { url: URL };

beforeAll(async () => {
  redis = await RedisServer.start();
  instances = await Promise.all(['a', 'b', 'c'].map((name) => startInstance(name, redis.url)));
  proxy = await RoundRobinProxy.start(instances);
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all((instances ?? []).map((instance) => stopInstance(instance)));
  await redis?.dispose();
});

function text(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

async function legacyClient(capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: 'multi', version: '1.0.0' }, { capabilities });
  await client.connect(new StreamableHTTPClientTransport(proxy.url));
  return client;
}

describe('2025-11-25 sessions across three instances (v2 client)', () => {
  it('initializes on one instance and is served by the others', async () => {
    const client = await legacyClient();
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(text(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(new Set(answers)).toEqual(new Set(['a', 'b', 'c']));
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask', 'touch', 'whoami', 'work']);
    } finally {
      await client.close();
    }
  });
});
