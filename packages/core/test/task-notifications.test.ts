import { afterEach, describe, expect, it } from 'vitest';
import { Context, createMcpApp, type HttpListener, McpServer, Tool } from '../src/index.js';
import type { TaskService } from '../src/runtime/tasks/task-service.js';
import type { TaskRecord } from '../src/state/task-store.js';
import { modernPost, modernRpc, WITH_TASKS } from './support/modern-rpc.js';

// Task status notifications of the 2026-07-28 tasks extension (notifications/tasks, SEP-2663)
// on a subscriptions/listen stream, read as raw SSE frames over HTTP.

let release: () => void = () => undefined;

@McpServer({ name: 'notified', version: '1.0.0' })
class Jobs {
  @Tool({ description: 'Reports progress, waits for the test, then finishes', task: 'required' })
  async build(ctx: Context) {
    await ctx.progress(1, 2, 'compiling');
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return 'built';
  }
}

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  release();
  for (const close of open.splice(0).reverse()) await close();
});

async function listen(): Promise<HttpListener> {
  const listener = await createMcpApp(Jobs, { onError: () => undefined, tasks: { pollIntervalMs: 20 } }).listenHttp({ port: 0 });
  open.push(() => listener.close());
  return listener;
}

interface Frame {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown> & { _meta?: Record<string, unknown> };
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** Opens a listen stream; `frames` fills as they arrive, `ended` resolves when the server ends it. */
async function subscribe(url: string, notifications: Record<string, unknown>, capabilities: Record<string, unknown> = WITH_TASKS) {
  const response = await modernPost(url, 'subscriptions/listen', { notifications }, capabilities, { id: 'listen-1', timeoutMs: 15_000 });
  const frames: Frame[] = [];
  if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
    frames.push((await response.json()) as Frame);
    return { frames, ended: Promise.resolve() };
  }
  const ended = (async () => {
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += Buffer.from(chunk).toString('utf8');
      let cut = buffer.indexOf('\n\n');
      while (cut >= 0) {
        const data = /^data: (.*)$/m.exec(buffer.slice(0, cut))?.[1];
        if (data) frames.push(JSON.parse(data) as Frame);
        buffer = buffer.slice(cut + 2);
        cut = buffer.indexOf('\n\n');
      }
    }
  })();
  return { frames, ended };
}

async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function createTask(url: string): Promise<string> {
  const { body } = await modernRpc(url, 'tools/call', { name: 'build', arguments: {} }, WITH_TASKS);
  return String(body.result?.taskId);
}

const SUBSCRIPTION = { 'io.modelcontextprotocol/subscriptionId': 'listen-1' };

describe('notifications/tasks on a subscriptions/listen stream', () => {
  it('acknowledges the tasks it may follow, sends each change as tasks/get shows it, and ends once they are terminal', async () => {
    const { url } = await listen();
    const taskId = await createTask(url);
    const unknown = '00000000-0000-4000-8000-000000000000';
    const stream = await subscribe(url, { taskIds: [taskId, unknown] });
    await until(() => stream.frames.some((f) => f.params?.statusMessage === '1/2: compiling'), 'the working notification');
    expect(stream.frames[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [taskId] }, _meta: SUBSCRIPTION },
    });
    release();
    await stream.ended;
    const tasks = stream.frames.filter((f) => f.method === 'notifications/tasks');
    expect(tasks.at(-1)?.params).toMatchObject({
      taskId,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'built' }] },
      ttlMs: 3_600_000,
      pollIntervalMs: 20,
      _meta: SUBSCRIPTION,
    });
    expect(tasks.map((f) => f.params?.status)).toEqual([...tasks.slice(0, -1).map(() => 'working'), 'completed']);
    // Ended by the server: the listen request's result, last.
    expect(stream.frames.at(-1)).toEqual({ jsonrpc: '2.0', id: 'listen-1', result: { resultType: 'complete', _meta: SUBSCRIPTION } });
  });

  it('acknowledges no task and ends at once when none may be followed', async () => {
    const { url } = await listen();
    const stream = await subscribe(url, { taskIds: ['00000000-0000-4000-8000-000000000000'] });
    await stream.ended;
    expect(stream.frames.map((f) => f.method ?? 'result')).toEqual(['notifications/subscriptions/acknowledged', 'result']);
    expect(stream.frames[0]?.params?.notifications).toEqual({ taskIds: [] });
  });

  it('refuses a client that does not declare the extension (-32021) and taskIds that are not a list of strings', async () => {
    const { url } = await listen();
    const taskId = await createTask(url);
    const undeclared = await subscribe(url, { taskIds: [taskId] }, {});
    expect(undeclared.frames[0]?.error).toEqual({
      code: -32021,
      message:
        'Task status notifications (notifications.taskIds) need the tasks extension: declare it in the request\'s client capabilities (_meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"] = {})',
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    });
    for (const bad of ['all', [1], { a: taskId }, [null]]) {
      const refused = await subscribe(url, { taskIds: bad });
      expect(refused.frames[0]?.error).toEqual({
        code: -32602,
        message:
          'Invalid params: notifications.taskIds must be a list of task ids (strings), as the tools/call that created each task answered',
      });
    }
    const many = await subscribe(url, { taskIds: Array.from({ length: 1001 }, (_, i) => `t${i}`) });
    expect(many.frames[0]?.error).toEqual({
      code: -32602,
      message: 'Invalid params: a listen stream may name at most 1000 tasks in taskIds (maxSubscriptionsPerSession)',
    });
  });
});

describe('TaskNotifications.watch, with changes that share a millisecond', () => {
  it('sends each change and ends when the task is terminal, though its time did not move', async () => {
    const { TaskNotifications } = await import('../src/runtime/tasks/task-notifications.js');
    const listeners: Array<(record: TaskRecord) => void> = [];
    const at = Date.now();
    const base = {
      taskId: 't1',
      owner: 'o',
      tool: 'build',
      extension: true,
      createdAt: at,
      ttlMs: 60_000,
      pollIntervalMs: 50,
      leaseExpiresAt: at + 60_000,
    };
    const store = {
      watch: (_taskId: string, listener: (record: TaskRecord) => void) => {
        listeners.push(listener);
        return () => undefined;
      },
      get: async () => undefined,
    };
    const notifications = new TaskNotifications({ store } as unknown as TaskService);
    const sent: string[] = [];
    let ended = false;
    notifications.watch(
      [{ ...base, status: 'working', lastUpdatedAt: at } as TaskRecord],
      (params) => sent.push(`${params.status}:${params.statusMessage ?? ''}`),
      () => {
        ended = true;
      },
    );
    const notify = (record: Partial<TaskRecord>) => {
      for (const listener of listeners) listener({ ...base, ...record } as TaskRecord);
    };
    notify({ status: 'working', statusMessage: '3/3: publishing', lastUpdatedAt: at + 1 });
    notify({ status: 'working', statusMessage: '3/3: publishing', lastUpdatedAt: at + 1 }); // the same state again
    notify({ status: 'working', statusMessage: '2/3: testing', lastUpdatedAt: at }); // an older state, read late
    notify({
      status: 'completed',
      statusMessage: '3/3: publishing',
      lastUpdatedAt: at + 1,
      outcome: { kind: 'result', result: { content: [] } },
    });
    expect(sent).toEqual(['working:3/3: publishing', 'completed:3/3: publishing']);
    expect(ended).toBe(true);
  });
});
