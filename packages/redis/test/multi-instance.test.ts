import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { useCluster } from './support/cluster.js';

const cluster = useCluster(['a', 'b', 'c']);

function text(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

/** The v2 client, answering elicitation with the name Ada; `modern` negotiates 2026-07-28. */
async function v2Client(modern = false): Promise<Client> {
  const client = new Client(
    { name: 'multi', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} }, sampling: {} }, ...(modern ? { versionNegotiation: { mode: 'auto' as const } } : {}) },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }) as never);
  client.setRequestHandler(
    'sampling/createMessage',
    async (request) =>
      ({
        role: 'assistant',
        model: 'echo',
        content: { type: 'text', text: `echo of ${(request.params.messages[0]?.content as { text?: string } | undefined)?.text}` },
      }) as never,
  );
  await client.connect(new StreamableHTTPClientTransport(cluster.proxy.url));
  return client;
}

/** Resolves once `check` holds, polling every 20 ms for at most 5 s. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('2025-11-25 sessions across three instances (v2 client)', () => {
  it('initializes on one instance and is served by the others', async () => {
    const client = await v2Client();
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(text(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(new Set(answers)).toEqual(new Set(['a', 'b', 'c']));
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['ask', 'summarize', 'touch', 'wait', 'whoami', 'work']);
    } finally {
      await client.close();
    }
  });

  it('sends progress and log messages at the level set through another instance', async () => {
    const client = await v2Client();
    try {
      const logs: string[] = [];
      client.setNotificationHandler('notifications/message', (n) => {
        logs.push(`${n.params.level}: ${String(n.params.data)}`);
      });
      await client.setLoggingLevel('info');
      const progress: string[] = [];
      for (let i = 0; i < 3; i++) {
        progress.length = 0;
        logs.length = 0;
        const result = await client.callTool(
          { name: 'work', arguments: {} },
          { onprogress: (p) => progress.push(`${p.progress}/${p.total} ${p.message}`) },
        );
        expect(text(result)).toBe('worked');
        expect(progress).toEqual(['1/3 step 1', '2/3 step 2', '3/3 step 3']);
        expect(logs).toEqual(['info: step 1', 'info: step 2', 'info: step 3']);
      }
      await client.setLoggingLevel('warning');
      logs.length = 0;
      for (let i = 0; i < 3; i++) await client.callTool({ name: 'work', arguments: {} });
      expect(logs).toEqual([]);
      expect(new Set(cluster.proxy.servedBy('"name":"work"')).size).toBe(3);
    } finally {
      await client.close();
    }
  });

  it('takes the answer to an elicitation on whichever instance it arrives, for the handler that asked', async () => {
    const client = await v2Client();
    try {
      for (let i = 0; i < 3; i++) expect(text(await client.callTool({ name: 'ask', arguments: {} }))).toBe('hello Ada');
      const asked = cluster.proxy.servedBy('"name":"ask"');
      const answered = cluster.proxy.servedBy('"action":"accept"');
      expect(answered).toHaveLength(3);
      // Round robin: each answer reached another instance than the one running its handler.
      expect(answered.some((instance, i) => instance !== asked[i])).toBe(true);
      for (let i = 0; i < 3; i++) {
        expect(text(await client.callTool({ name: 'summarize', arguments: {} }))).toMatch(
          /^[abc] asked, the model said: echo of Summarise: the shop$/,
        );
      }
    } finally {
      await client.close();
    }
  });

  it('aborts the handler of a cancelled call on the instance that runs it, wherever the cancellation lands', async () => {
    const client = await v2Client();
    try {
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        updated.push(n.params.uri);
      });
      await client.subscribeResource({ uri: 'item://cancelled' });
      for (let i = 1; i <= 3; i++) {
        const abort = new AbortController();
        const call = client.callTool({ name: 'wait', arguments: {} }, { signal: abort.signal });
        await eventually(() => cluster.proxy.servedBy('"name":"wait"').length === i, 'the call to start');
        abort.abort('changed my mind');
        await expect(call).rejects.toThrow('changed my mind');
        await eventually(() => updated.length === i, 'the handler to see its cancellation');
      }
      const ran = cluster.proxy.servedBy('"name":"wait"');
      const cancelledOn = cluster.proxy.servedBy('notifications/cancelled');
      expect(cancelledOn).toHaveLength(3);
      expect(cancelledOn.some((instance, i) => instance !== ran[i])).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('ends a session on every instance when the client deletes it', async () => {
    const transport = new StreamableHTTPClientTransport(cluster.proxy.url);
    const client = new Client({ name: 'multi', version: '1.0.0' });
    await client.connect(transport);
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'whoami', arguments: {} });
    const sessionId = transport.sessionId as string;
    await transport.terminateSession();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(cluster.proxy.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    }
    await client.close();
  });

  it('delivers resources/updated raised on any instance to the stream the client holds, once each', async () => {
    const client = await v2Client();
    try {
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', (n) => {
        updated.push(n.params.uri);
      });
      await client.subscribeResource({ uri: 'item://1' });
      await client.subscribeResource({ uri: 'item://2' });
      await eventually(() => cluster.proxy.routed.some((r) => r.method === 'GET'), 'the GET stream');
      for (const n of [1, 2, 3, 1, 2, 3]) await client.callTool({ name: 'touch', arguments: { n } });
      await eventually(() => updated.length >= 4, 'four notifications');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(updated).toEqual(['item://1', 'item://2', 'item://1', 'item://2']);
      expect(new Set(cluster.proxy.servedBy('"name":"touch"')).size).toBe(3);
      await client.unsubscribeResource({ uri: 'item://1' });
      await client.callTool({ name: 'touch', arguments: { n: 1 } });
      await client.callTool({ name: 'touch', arguments: { n: 2 } });
      await eventually(() => updated.length >= 5, 'a fifth notification');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(updated.slice(4)).toEqual(['item://2']);
    } finally {
      await client.close();
    }
  });
});

describe('the v1 client (2025-11-25) across three instances', () => {
  it('is served by every instance after initializing on one, with progress', async () => {
    const { Client: V1Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport: V1Transport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const client = new V1Client({ name: 'multi-v1', version: '1.0.0' });
    await client.connect(new V1Transport(cluster.proxy.url));
    try {
      const answers: string[] = [];
      for (let i = 0; i < 3; i++) answers.push(text(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(new Set(answers)).toEqual(new Set(['a', 'b', 'c']));
      const progress: number[] = [];
      const result = await client.callTool({ name: 'work', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
      expect(text(result)).toBe('worked');
      expect(progress).toEqual([1, 2, 3]);
      expect((await client.readResource({ uri: 'config://shop' })).contents).toEqual([
        { uri: 'config://shop', text: 'config of the shop' },
      ]);
    } finally {
      await client.close();
    }
  });
});

describe('2026-07-28 across three instances (v2 client)', () => {
  it('serves any request on any instance, elicitation rounds included (the requestState key is shared)', async () => {
    const client = await v2Client(true);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const answers: string[] = [];
      for (let i = 0; i < 3; i++) answers.push(text(await client.callTool({ name: 'whoami', arguments: {} })));
      expect(new Set(answers)).toEqual(new Set(['a', 'b', 'c']));
      for (let i = 0; i < 3; i++) expect(text(await client.callTool({ name: 'ask', arguments: {} }))).toBe('hello Ada');
    } finally {
      await client.close();
    }
  });

  it('notifies a subscriptions/listen stream of changes raised on every instance', async () => {
    const listener = await v2Client(true);
    const caller = await v2Client(true);
    try {
      const updated: string[] = [];
      listener.setNotificationHandler('notifications/resources/updated', (n) => {
        updated.push(n.params.uri);
      });
      const stream = await listener.listen({ resourceSubscriptions: ['item://7'] });
      for (let i = 0; i < 3; i++) await caller.callTool({ name: 'touch', arguments: { n: 7 } });
      await eventually(() => updated.length >= 3, 'three notifications');
      expect(updated).toEqual(['item://7', 'item://7', 'item://7']);
      expect(new Set(cluster.proxy.servedBy('"n":7'))).toEqual(new Set(['a', 'b', 'c']));
      await stream.close();
    } finally {
      await listener.close();
      await caller.close();
    }
  });
});
