import { createMcpApp, defineExtension, McpServer, Tool } from '@armature/core';
import { Client, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { expectEqual } from './support/check.js';

// #region ticks
@McpServer({ name: 'ticks', version: '1.0.0' })
export class TickServer {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

export const ticks = defineExtension({
  id: 'com.example/ticks',
  methods: {
    'ticks/stream': {
      longLived: true, // not cut by the app's timeoutMs: it runs until the client cancels or the app closes
      handle: async (_params, ctx) => {
        let count = 0;
        const timer = setInterval(() => void ctx.notify('notifications/ticks/tick', { count: ++count }), 100);
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
        clearInterval(timer);
        return {};
      },
    },
  },
});

export const app = createMcpApp(TickServer, { extensions: [ticks], timeoutMs: 200 });
// #endregion

const anyResult: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'docs', validate: (value) => ({ value: value as Record<string, unknown> }) },
};

export async function main(): Promise<void> {
  const client = new Client({ name: 'docs-check', version: '1.0.0' });
  const heard: number[] = [];
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method === 'notifications/ticks/tick') heard.push((notification.params as { count: number }).count);
  };
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = app.createServer();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  try {
    const stop = new AbortController();
    const streaming = client.request({ method: 'ticks/stream', params: {} }, anyResult, { signal: stop.signal, timeout: 60_000 });
    const ended = streaming.then(
      () => 'answered',
      () => 'cancelled',
    );
    // Well past the app's 200 ms timeout, the stream still runs.
    for (let i = 0; i < 200 && heard.length < 6; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expectEqual(heard.slice(0, 6), [1, 2, 3, 4, 5, 6], 'ticks heard past the timeout');
    stop.abort('enough');
    expectEqual(await ended, 'cancelled', 'the client cancelled the stream');
  } finally {
    await client.close();
    await server.close();
  }
}
