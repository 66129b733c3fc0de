import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/server';
import { IsInt, Max, Min } from 'class-validator';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Context, createMcpApp, McpServer, Tool } from '../src/index.js';
import { type Connected, connectHttp, connectInMemory } from './support/clients.js';

class Steps {
  @IsInt()
  @Min(1)
  @Max(20)
  steps!: number;
}

const seen: { aborted: boolean[]; meta: unknown[]; ids: unknown[] } = { aborted: [], meta: [], ids: [] };

@McpServer({ name: 'context', version: '1.0.0' })
class ContextServer {
  @Tool({ description: 'reports progress per step' })
  async work(input: Steps, ctx: Context) {
    for (let i = 1; i <= input.steps; i++) await ctx.progress(i, input.steps, `step ${i}`);
    return 'done';
  }

  @Tool({ description: 'logs at every level' })
  async chatty(ctx: Context) {
    await ctx.log.debug('dbg');
    await ctx.log.info('inf', { n: 1 });
    await ctx.log.warning('warn');
    await ctx.log.error('err');
    return 'logged';
  }

  @Tool({ description: 'waits until cancelled' })
  async wait(ctx: Context) {
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    seen.aborted.push(ctx.signal.aborted);
    return 'finished after cancel';
  }

  @Tool({ description: 'sleeps with the signal, like fetch would' })
  async sleepy(ctx: Context) {
    await new Promise((_resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out')), 10_000);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new DOMException('The operation was aborted', 'AbortError'));
      });
    });
  }

  @Tool({ description: 'echoes meta and id' })
  whoami(ctx: Context) {
    seen.meta.push(ctx.meta);
    seen.ids.push(ctx.requestId);
    return 'ok';
  }
}

let connection: (Connected & { url?: string }) | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
  seen.aborted = [];
  seen.meta = [];
  seen.ids = [];
});

describe('Context.progress', () => {
  it('sends notifications/progress when the request carries a progress token', async () => {
    connection = await connectInMemory(createMcpApp(ContextServer));
    const progress: unknown[] = [];
    const result = await connection.client.callTool({ name: 'work', arguments: { steps: 3 } }, { onprogress: (p) => progress.push(p) });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
  });

  it('is a no-op without a progress token', async () => {
    // Watched on the wire: the client itself drops a progress notification it has no handler for.
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const server = createMcpApp(ContextServer).createServer();
    await server.connect(serverTransport);
    const client = new Client({ name: 'armature-test', version: '1.0.0' });
    await client.connect(clientTransport);
    const progress: JSONRPCMessage[] = [];
    const deliver = clientTransport.onmessage;
    clientTransport.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'notifications/progress') progress.push(message);
      deliver?.(message, extra);
    };
    try {
      const result = await client.callTool({ name: 'work', arguments: { steps: 3 } });
      expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
      expect(progress).toEqual([]);
      // The same watch sees them when a token is sent, so it can tell.
      await client.callTool({ name: 'work', arguments: { steps: 2 } }, { onprogress: () => undefined });
      expect(progress).toHaveLength(2);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('Context.log honours the client level', () => {
  async function collectLogs(c: Connected, call: () => Promise<unknown>): Promise<unknown[]> {
    const logs: unknown[] = [];
    c.client.setNotificationHandler('notifications/message', (n) => {
      logs.push([n.params.level, n.params.data]);
    });
    await call();
    await new Promise((r) => setTimeout(r, 50));
    return logs;
  }

  it('2025-11-25: logging/setLevel filters', async () => {
    const c = await connectInMemory(createMcpApp(ContextServer));
    connection = c;
    await c.client.setLoggingLevel('warning');
    const logs = await collectLogs(c, () => c.client.callTool({ name: 'chatty', arguments: {} }));
    expect(logs).toEqual([
      ['warning', 'warn'],
      ['error', 'err'],
    ]);
    await c.client.setLoggingLevel('debug');
    const all = await collectLogs(c, () => c.client.callTool({ name: 'chatty', arguments: {} }));
    expect(all).toEqual([
      ['debug', 'dbg'],
      ['info', { message: 'inf', data: { n: 1 } }],
      ['warning', 'warn'],
      ['error', 'err'],
    ]);
  });

  it('2026-07-28: the per-request _meta level filters, and no level means silence', async () => {
    const c = await connectHttp(createMcpApp(ContextServer), { modern: true });
    connection = c;
    expect(c.client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const silent = await collectLogs(c, () => c.client.callTool({ name: 'chatty', arguments: {} }));
    expect(silent).toEqual([]);
    const filtered = await collectLogs(c, () =>
      c.client.callTool({ name: 'chatty', arguments: {}, _meta: { 'io.modelcontextprotocol/logLevel': 'error' } }),
    );
    expect(filtered).toEqual([['error', 'err']]);
  });
});

describe('Context.signal and cancellation', () => {
  it('fires on notifications/cancelled, and the cancelled request gets no response', async () => {
    const app = createMcpApp(ContextServer);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await app.createServer().connect(serverSide);
    const received: JSONRPCMessage[] = [];
    clientSide.onmessage = (m) => {
      received.push(m);
    };
    await clientSide.start();
    const send = (m: unknown) => clientSide.send(m as JSONRPCMessage);
    await send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait', arguments: {} } });
    await new Promise((r) => setTimeout(r, 30));
    await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'user pressed stop' } });
    await vi.waitFor(() => expect(seen.aborted).toEqual([true]), { timeout: 10_000 });
    await send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    const ids = () => received.filter((m) => 'id' in m).map((m) => (m as { id: unknown }).id);
    // The ping's answer comes after anything the cancelled call could have sent.
    await vi.waitFor(() => expect(ids()).toContain(3), { timeout: 10_000 });
    expect(ids()).toEqual([1, 3]);
    await vi.waitFor(() => expect(app.stats.liveScopes).toBe(0), { timeout: 10_000 });
    await clientSide.close();
  });

  it('a handler stopping with an AbortError after cancellation is not reported as a failure', async () => {
    const reported: unknown[] = [];
    const app = createMcpApp(ContextServer, { onError: (error) => reported.push(error) });
    const c = await connectInMemory(app);
    connection = c;
    const controller = new AbortController();
    const pending = c.client.callTool({ name: 'sleepy', arguments: {} }, { signal: controller.signal });
    setTimeout(() => controller.abort('stop'), 30);
    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(app.stats.liveScopes).toBe(0), { timeout: 10_000 });
    expect(reported).toEqual([]);
  });

  /** Calls `tool` of `app` in memory and aborts it from the client: the call fails, and its handler saw its signal abort. */
  async function cancelledInMemory(app: ReturnType<typeof createMcpApp>, tool: string): Promise<Connected> {
    const c = await connectInMemory(app);
    connection = c;
    const controller = new AbortController();
    const pending = c.client.callTool({ name: tool, arguments: {} }, { signal: controller.signal });
    setTimeout(() => controller.abort('stop'), 30);
    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(seen.aborted).toEqual([true]), { timeout: 10_000 });
    return c;
  }

  it('the SDK client aborting a call cancels it on the server', async () => {
    const c = await cancelledInMemory(createMcpApp(ContextServer), 'wait');
    await expect(c.client.ping()).resolves.toBeDefined();
  });

  it('ctx.signal is made without AbortSignal.any (its weak references cost a gateway 5-8% per call on Node 20), and still aborts with the request', async () => {
    const any = vi.spyOn(AbortSignal, 'any');
    const madeWithAny: number[] = [];
    @McpServer({ name: 'signal-reader', version: '1.0.0' })
    class SignalReader {
      @Tool({ description: 'reads its signal, then waits until cancelled' })
      async read(ctx: Context) {
        const before = any.mock.calls.length;
        const { signal } = ctx;
        madeWithAny.push(any.mock.calls.length - before);
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        seen.aborted.push(signal.aborted);
        return 'finished after cancel';
      }
    }
    await cancelledInMemory(createMcpApp(SignalReader), 'read');
    expect(madeWithAny).toEqual([0]);
    any.mockRestore();
  });

  it('2026-07-28 over HTTP: closing the request stream aborts the signal', async () => {
    const c = await connectHttp(createMcpApp(ContextServer), { modern: true });
    connection = c;
    const controller = new AbortController();
    const pending = c.client.callTool({ name: 'wait', arguments: {} }, { signal: controller.signal });
    setTimeout(() => controller.abort('stop'), 50);
    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(seen.aborted).toEqual([true]), { timeout: 10_000 });
  });
});

describe('Context.meta and requestId', () => {
  it('carry the request _meta and the JSON-RPC id', async () => {
    const c = await connectInMemory(createMcpApp(ContextServer));
    connection = c;
    await c.client.callTool({ name: 'whoami', arguments: {}, _meta: { traceId: 'abc-123' } });
    expect(seen.meta).toEqual([{ traceId: 'abc-123' }]);
    expect(typeof seen.ids[0]).toBe('number');
  });
});
