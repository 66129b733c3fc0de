import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { Context, createMcpApp, type HttpListener, McpServer, type TaskOptions, Tool } from '../src/index.js';
import { modernRpc } from './support/modern-rpc.js';
import { until } from './support/until.js';

// Tasks for clients that never poll them: the app's fallback tools (tasks.fallbackTools), through
// the official v2 client without the tasks capability, and raw 2026-07-28 requests without the extension.

@McpServer({ name: 'fallback-test', version: '1.0.0' })
class ExportServer {
  @Tool({ description: 'Runs until cancelled (takes minutes)', task: 'required' })
  async exportAll(ctx: Context) {
    await ctx.progress(1, 2, 'exporting');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'never sent: cancelled';
  }

  @Tool({ description: 'Finishes at once, as a task', task: 'required' })
  quickExport() {
    return 'exported 3 documents';
  }
}

const FALLBACK: TaskOptions = {
  pollIntervalMs: 20,
  fallbackTools: { status: 'task_status', result: 'task_result', cancel: 'task_cancel' },
};

const opened: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

async function listen(tasks: TaskOptions = FALLBACK): Promise<HttpListener> {
  const listener = await createMcpApp(ExportServer, { onError: () => undefined, tasks }).listenHttp({ port: 0 });
  opened.push(() => listener.close());
  return listener;
}

/** A 2025-11-25 session of the official v2 client, which declares no tasks capability. */
async function plainClient(url: string): Promise<Client> {
  const client = new Client({ name: 'no-tasks', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  opened.push(() => client.close());
  return client;
}

const textOf = (result: { content?: unknown }) => ((result.content as { text?: string }[] | undefined)?.[0]?.text ?? '') as string;

describe('fallback tools (tasks.fallbackTools)', () => {
  it('start the task of a required tool called without tasks, and report, cancel and answer it by id', async () => {
    const listener = await listen();
    const client = await plainClient(listener.url);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['task_status', 'task_result', 'task_cancel']));

    const started = await client.callTool({ name: 'exportAll', arguments: {} });
    const { taskId } = started.structuredContent as { taskId: string };
    expect(textOf(started)).toBe(
      `Started task ${taskId}: it runs in the background. Call the tool "task_status" with {"taskId": "${taskId}"} to see how it goes, "task_result" with the same arguments for its result once it is completed, or "task_cancel" to stop it`,
    );
    const working = await until(
      () => client.callTool({ name: 'task_status', arguments: { taskId } }),
      (r) => textOf(r).endsWith('1/2: exporting'),
      'the task to report progress',
    );
    expect(working.structuredContent).toEqual({ taskId, status: 'working', statusMessage: '1/2: exporting' });
    expect(textOf(await client.callTool({ name: 'task_result', arguments: { taskId } }))).toBe(
      `Task ${taskId} is still working: it has no result yet. Call "task_status" again in a while, then this tool`,
    );
    const cancelled = await client.callTool({ name: 'task_cancel', arguments: { taskId } });
    expect(textOf(cancelled)).toBe(`Task ${taskId} is cancelled: The task was cancelled by the client (tasks/cancel)`);
    const result = await client.callTool({ name: 'task_result', arguments: { taskId } });
    expect(result.isError).toBe(true);
  });

  it('answer the result a finished task kept, as the tool would have', async () => {
    const listener = await listen();
    const client = await plainClient(listener.url);
    const { taskId } = (await client.callTool({ name: 'quickExport', arguments: {} })).structuredContent as { taskId: string };
    const result = await until(
      () => client.callTool({ name: 'task_result', arguments: { taskId } }),
      (r) => !textOf(r).includes('still'),
      'the task to complete',
    );
    expect(result.content).toEqual([{ type: 'text', text: 'exported 3 documents' }]);
  });

  it('answer another caller exactly as for a missing task, and refuse a bad task id with a tool error', async () => {
    const listener = await listen();
    const owner = await plainClient(listener.url);
    const other = await plainClient(listener.url);
    const { taskId } = (await owner.callTool({ name: 'exportAll', arguments: {} })).structuredContent as { taskId: string };
    for (const tool of ['task_status', 'task_result', 'task_cancel']) {
      const foreign = await other.callTool({ name: tool, arguments: { taskId } });
      expect([foreign.isError, textOf(foreign)]).toEqual([
        true,
        `Task not found: ${taskId} (it never existed, its ttl has passed, or it belongs to another caller)`,
      ]);
    }
    expect((await owner.callTool({ name: 'task_status', arguments: { taskId } })).structuredContent).toMatchObject({ status: 'working' });
    for (const args of [{}, { taskId: 5 }, { taskId: 'x'.repeat(10_000) }, { taskId: '' }]) {
      const refused = await owner.callTool({ name: 'task_status', arguments: args as Record<string, unknown> });
      expect([refused.isError, textOf(refused)]).toEqual([
        true,
        'params.taskId must be a string: the taskId of the task, as the tools/call that created it answered',
      ]);
    }
    await owner.callTool({ name: 'task_cancel', arguments: { taskId } });
  });

  it('serve a 2026-07-28 client that does not declare the tasks extension', async () => {
    const listener = await listen();
    const started = await modernRpc(listener.url, 'tools/call', { name: 'quickExport', arguments: {} });
    const { taskId } = (started.body.result?.structuredContent ?? {}) as { taskId?: string };
    expect(taskId).toMatch(/^[0-9a-f-]{36}$/);
    const result = await until(
      () => modernRpc(listener.url, 'tools/call', { name: 'task_result', arguments: { taskId } }),
      (answer) => !JSON.stringify(answer.body).includes('still'),
      'the task to complete',
    );
    expect(result.body.result?.content).toEqual([{ type: 'text', text: 'exported 3 documents' }]);
  });

  it('are off by default: not listed, and a required task tool still refuses a plain call', async () => {
    const listener = await listen({ pollIntervalMs: 20 });
    const client = await plainClient(listener.url);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['exportAll', 'quickExport']);
    await expect(client.callTool({ name: 'exportAll', arguments: {} })).rejects.toThrow('runs only as a task');
  });
});
