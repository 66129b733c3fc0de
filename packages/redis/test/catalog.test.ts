import 'reflect-metadata';
import { createMcpApp, type McpApp, McpServer, Tool } from '@armature/core';
import { RedisServer } from '@armature/test-redis';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisState } from '../src/index.js';

@McpServer({ name: 'catalog', version: '1.0.0' })
class CatalogServer {
  @Tool({ description: 'ping' })
  ping() {
    return 'pong';
  }

  @Tool({ description: 'deletes a repository' })
  delete_repo() {
    return 'deleted';
  }
}

let redis: RedisServer;
const apps: McpApp[] = [];

beforeAll(async () => {
  redis = await RedisServer.start();
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await redis?.dispose();
});

/** An instance of the app on the shared Redis, started (connected to the state). */
async function instance(): Promise<McpApp> {
  const app = createMcpApp(CatalogServer, { state: redisState({ url: redis.url }), requestStateKey: 'k'.repeat(32) });
  apps.push(app);
  await app.ready();
  return app;
}

/** A client of `app` over the in-memory transport, counting the tools/list_changed it hears. */
async function clientOf(app: McpApp): Promise<{ client: Client; changes: () => number }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.createServer().connect(serverSide);
  let changes = 0;
  const client = new Client({ name: 'catalog-test', version: '1' });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changes++;
  });
  await client.connect(clientSide);
  return { client, changes: () => changes };
}

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

describe('run-time catalogue changes on the redis state', () => {
  it('reach every running instance, before its clients hear of them, and instances started later', async () => {
    const [a, b] = [await instance(), await instance()];
    const onB = await clientOf(b);
    expect(await names(onB.client)).toEqual(['ping', 'delete_repo']);

    a.tools.disable('delete_repo');
    // B's client is told, and what it lists then is the new catalogue.
    await vi.waitFor(() => expect(onB.changes()).toBe(1), { timeout: 5_000 });
    expect(await names(onB.client)).toEqual(['ping']);
    expect(b.tools.isEnabled('delete_repo')).toBe(false);
    await expect(onB.client.callTool({ name: 'delete_repo', arguments: {} })).rejects.toThrow(
      'Unknown tool: "delete_repo". Available tools: ping',
    );

    // An instance started after the change starts from it.
    const c = await instance();
    expect(c.tools.isEnabled('delete_repo')).toBe(false);

    b.tools.enable('delete_repo');
    await vi.waitFor(() => expect([a, c].map((app) => app.tools.isEnabled('delete_repo'))).toEqual([true, true]), { timeout: 5_000 });
    await onB.client.close();
  });
});
