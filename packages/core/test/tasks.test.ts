import { Client } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  TaskStatusNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { IsInt, Min } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Context,
  createMcpApp,
  Field,
  type HttpListener,
  InMemoryTaskStore,
  McpError,
  McpServer,
  type TaskOptions,
  type TaskStore,
  Tool,
  ToolError,
} from '../src/index.js';
import { connectHttp, connectInMemory } from './support/clients.js';
import { gate } from './support/gate.js';
import { tokenAuth } from './support/token-auth.js';

class CountInput {
  @Field('How far to count')
  @IsInt()
  @Min(1)
  n!: number;
}

let steps = gate();
const aborted: string[] = [];

@McpServer({ name: 'tasks-test', version: '1.0.0' })
class TaskServer {
  @Tool({ description: 'Counts to n, reporting progress; waits for the test after the first step', task: 'optional' })
  async count(input: CountInput, ctx: Context) {
    for (let i = 1; i <= input.n; i++) {
      await ctx.progress(i, input.n, `step ${i}`);
      if (i === 1) await steps.opened;
    }
    return `counted to ${input.n}`;
  }

  @Tool({ description: 'Runs until cancelled', task: 'required' })
  async wait(ctx: Context) {
    await new Promise((_resolve, reject) => {
      ctx.signal.addEventListener('abort', () => {
        aborted.push(String(ctx.signal.reason));
        reject(new Error('stopped'));
      });
    });
  }

  @Tool({ description: 'Fails as a task', task: 'required' })
  broken() {
    throw new ToolError('the disk is full');
  }

  @Tool({ description: 'Asks the user, then answers', task: 'optional' })
  async confirm(ctx: Context) {
    const answer = await ctx.elicit('Go ahead?', { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] });
    return answer.action === 'accept' && answer.content.ok ? 'confirmed' : 'not confirmed';
  }

  @Tool({ description: 'Refuses with a JSON-RPC error', task: 'optional' })
  refuse() {
    throw new McpError(-32001, 'Not authorised for this workspace', { workspace: 'w1' });
  }

  @Tool({ description: 'An ordinary tool' })
  plain() {
    return 'plain';
  }
}

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  steps.open();
  for (const close of open.splice(0).reverse()) await close();
  steps = gate();
  aborted.length = 0;
});

const FAST: TaskOptions = { pollIntervalMs: 20 };

async function listen(tasks: TaskOptions = FAST, auth = false, pageSize?: number): Promise<HttpListener> {
  const app = createMcpApp(TaskServer, { onError: () => undefined, tasks, ...(pageSize ? { pageSize } : {}) });
  const listener = await app.listenHttp({
    port: 0,
    ...(auth ? tokenAuth() : {}),
  });
  open.push(() => listener.close());
  return listener;
}

/** The v1 client (it speaks the 2025-11-25 tasks utility) over HTTP, optionally with a bearer token. */
async function v1(url: string, token?: string) {
  const client = new V1Client({ name: 'tasks-v1', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const statuses: Array<{ status: string; statusMessage?: string }> = [];
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => {
    statuses.push({ status: n.params.status, ...(n.params.statusMessage ? { statusMessage: n.params.statusMessage } : {}) });
  });
  const requestInit = token ? { headers: { authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new V1Transport(new URL(url), requestInit ? { requestInit } : undefined));
  open.push(() => client.close());
  return { client, statuses };
}

async function createTask(client: V1Client, name: string, args: Record<string, unknown> = {}, ttl?: number) {
  const created = await client.request(
    { method: 'tools/call', params: { name, arguments: args, task: ttl === undefined ? {} : { ttl } } },
    CreateTaskResultSchema,
  );
  return created.task;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('tools as tasks (2025-11-25 tasks utility)', () => {
  it('advertises the tasks capability and each tool’s execution.taskSupport', async () => {
    const app = createMcpApp(TaskServer, { onError: () => undefined });
    const { client, close } = await connectInMemory(app);
    open.push(close);
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.execution])).toEqual([
      ['count', { taskSupport: 'optional' }],
      ['wait', { taskSupport: 'required' }],
      ['broken', { taskSupport: 'required' }],
      ['confirm', { taskSupport: 'optional' }],
      ['refuse', { taskSupport: 'optional' }],
      ['plain', undefined],
    ]);
  });

  it('runs an optional task tool as an ordinary call when the client asks for no task', async () => {
    const app = createMcpApp(TaskServer, { onError: () => undefined });
    const { client, close } = await connectInMemory(app);
    open.push(close);
    steps.open();
    const result = await client.callTool({ name: 'count', arguments: { n: 2 } });
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 2' }]);
  });

  it('serves the v2 client over the in-memory transport: callTool with a task, then tasks/get and tasks/result', async () => {
    const app = createMcpApp(TaskServer, { onError: () => undefined, tasks: FAST });
    const { client, close } = await connectInMemory(app);
    open.push(close);
    const statuses: string[] = [];
    client.setNotificationHandler(
      'notifications/tasks/status' as never,
      ((n: { params: { status: string } }) => {
        statuses.push(n.params.status);
      }) as never,
    );
    const created = (await client.callTool({ name: 'count', arguments: { n: 2 }, task: { ttl: 10_000 } } as never)) as unknown as {
      task: { taskId: string; status: string; ttl: number; pollInterval: number };
    };
    expect(created.task).toMatchObject({ status: 'working', ttl: 10_000, pollInterval: 20 });
    const { taskId } = created.task;
    // tasks/* are not spec methods of the v2 client: it wants a result schema (here: take the JSON as is).
    const asIs = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } } as const;
    const get = () =>
      client.request({ method: 'tasks/get', params: { taskId } } as never, asIs as never) as Promise<{
        status: string;
        statusMessage?: string;
      }>;
    await until(get, (t) => t.statusMessage === '1/2: step 1', 'progress in the status');
    steps.open();
    const result = (await client.request({ method: 'tasks/result', params: { taskId } } as never, asIs as never)) as {
      content: unknown;
    };
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 2' }]);
    expect((await get()).status).toBe('completed');
    await until(
      async () => statuses,
      (s) => s.at(-1) === 'completed',
      'the completed notification',
    );
  });

  it('sends the progress notifications of a task to the session, tagged with the task, when the client gave a token', async () => {
    const app = createMcpApp(TaskServer, { onError: () => undefined, tasks: FAST });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const sent: Array<{ method?: string; params?: Record<string, unknown> }> = [];
    const send = serverTransport.send.bind(serverTransport);
    serverTransport.send = (message, options) => {
      sent.push(message as never);
      return send(message, options);
    };
    const server = app.createServer();
    await server.connect(serverTransport);
    const client = new Client({ name: 'tasks-v2', version: '1.0.0' });
    await client.connect(clientTransport);
    open.push(() => client.close());
    steps.open();
    const created = (await client.callTool({
      name: 'count',
      arguments: { n: 1 },
      task: {},
      _meta: { progressToken: 'p1' },
    } as never)) as unknown as {
      task: { taskId: string };
    };
    const related = { 'io.modelcontextprotocol/related-task': { taskId: created.task.taskId } };
    await until(
      async () => sent,
      (s) => s.some((m) => m.method === 'notifications/tasks/status' && m.params?.status === 'completed'),
      'completion',
    );
    expect(sent.filter((m) => m.method === 'notifications/progress').map((m) => m.params)).toEqual([
      { progressToken: 'p1', progress: 1, total: 1, message: 'step 1', _meta: related },
    ]);
  });

  it('refuses a required task tool called without a task, and a task for an ordinary tool (-32601)', async () => {
    const listener = await listen();
    const { client } = await v1(listener.url);
    await expect(client.request({ method: 'tools/call', params: { name: 'wait', arguments: {} } }, CallToolResultSchema)).rejects.toThrow(
      'MCP error -32601: Tool "wait" runs only as a task: call it with params.task (e.g. "task": {}), then poll tasks/get and read tasks/result',
    );
    await expect(createTask(client, 'plain')).rejects.toThrow(
      'MCP error -32601: Tool "plain" cannot run as a task: call it without params.task',
    );
  });

  it('creates a task, reports progress into its status, and hands over the result (v1 client over HTTP)', async () => {
    const listener = await listen();
    const { client, statuses } = await v1(listener.url);
    const task = await createTask(client, 'count', { n: 3 }, 60_000);
    expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 20 });
    expect(task.taskId).toMatch(/^[0-9a-f-]{36}$/);
    // The handler stops after step 1: its progress is the task's status message.
    const working = await until(
      () => client.experimental.tasks.getTask(task.taskId),
      (t) => t.statusMessage === '1/3: step 1',
      'progress in the status',
    );
    expect(working.status).toBe('working');
    const listed = await client.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => [t.taskId, t.status])).toEqual([[task.taskId, 'working']]);

    steps.open();
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'counted to 3' }]);
    expect(result._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId: task.taskId } });
    const done = await client.experimental.tasks.getTask(task.taskId);
    expect(done.status).toBe('completed');
    expect(done.statusMessage).toBeUndefined();
    await until(
      async () => statuses,
      (s) => s.at(-1)?.status === 'completed',
      'the completed notification',
    );
    expect(statuses).toEqual([
      { status: 'working', statusMessage: '1/3: step 1' },
      { status: 'working', statusMessage: '2/3: step 2' },
      { status: 'working', statusMessage: '3/3: step 3' },
      { status: 'completed' },
    ]);
  });

  it('streams a task to its result with callToolStream (v1 client)', async () => {
    const listener = await listen();
    const { client } = await v1(listener.url);
    steps.open();
    const kinds: string[] = [];
    let text = '';
    for await (const message of client.experimental.tasks.callToolStream({ name: 'count', arguments: { n: 2 } }, CallToolResultSchema, {
      task: {},
    })) {
      kinds.push(message.type);
      if (message.type === 'result') text = (message.result.content[0] as { text: string }).text;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
    expect(text).toBe('counted to 2');
  });

  it('shows input_required while the handler waits for the client, and tags the question with the task', async () => {
    const listener = await listen();
    const { client, statuses } = await v1(listener.url);
    const asked: Array<{ meta: unknown; status: string }> = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const related = request.params._meta?.['io.modelcontextprotocol/related-task'] as { taskId?: string } | undefined;
      const taskId = String(related?.taskId);
      asked.push({ meta: request.params._meta, status: (await client.experimental.tasks.getTask(taskId)).status });
      return { action: 'accept', content: { ok: true } };
    });
    const task = await createTask(client, 'confirm');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'confirmed' }]);
    expect(asked).toEqual([{ meta: { 'io.modelcontextprotocol/related-task': { taskId: task.taskId } }, status: 'input_required' }]);
    await until(
      async () => statuses,
      (s) => s.at(-1)?.status === 'completed',
      'the completed notification',
    );
    expect(statuses.map((s) => s.status)).toEqual(['input_required', 'working', 'completed']);
  });

  it('cancels a task: the handler’s signal aborts and the task stays cancelled', async () => {
    const listener = await listen();
    const { client, statuses } = await v1(listener.url);
    const task = await createTask(client, 'wait');
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled).toMatchObject({
      taskId: task.taskId,
      status: 'cancelled',
      statusMessage: 'The task was cancelled by the client (tasks/cancel)',
    });
    await until(
      async () => aborted,
      (a) => a.length === 1,
      'the handler to see the abort',
    );
    expect(aborted).toEqual(['The task was cancelled by the client (tasks/cancel)']);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'The task was cancelled by the client (tasks/cancel)' }],
    });
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(
      `MCP error -32602: Cannot cancel task ${task.taskId}: it is already cancelled`,
    );
    await until(
      async () => statuses,
      (s) => s.some((x) => x.status === 'cancelled'),
      'the cancelled notification',
    );
  });

  it('ends a task whose tool failed as failed, with the tool error as its result', async () => {
    const listener = await listen();
    const { client } = await v1(listener.url);
    const task = await createTask(client, 'broken');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'the disk is full' }] });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'failed', statusMessage: 'the disk is full' });
  });

  it('answers tasks/result with the JSON-RPC error the handler raised, and fails the task', async () => {
    const listener = await listen();
    const { client } = await v1(listener.url);
    const task = await createTask(client, 'refuse');
    const error = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema).then(
      () => undefined,
      (e: { code: number; message: string; data?: unknown }) => ({ code: e.code, message: e.message, data: e.data }),
    );
    expect(error).toEqual({ code: -32001, message: 'MCP error -32001: Not authorised for this workspace', data: { workspace: 'w1' } });
    expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'Not authorised for this workspace',
    });
  });

  it('keeps tasks to their principal: another one can neither see, read nor cancel them', async () => {
    const listener = await listen(FAST, true);
    const ann = await v1(listener.url, 'token-ann');
    const bob = await v1(listener.url, 'token-bob');
    const task = await createTask(ann.client, 'wait');
    const missing = `MCP error -32602: Task not found: ${task.taskId} (it never existed, its ttl has passed, or it belongs to another caller)`;
    await expect(bob.client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(missing);
    await expect(bob.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(missing);
    await expect(bob.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(missing);
    expect((await bob.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    // The same principal in another session is the same owner.
    const annAgain = await v1(listener.url, 'token-ann');
    expect((await annAgain.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
    expect((await annAgain.client.experimental.tasks.cancelTask(task.taskId)).status).toBe('cancelled');
  });

  it('keeps tasks to their session without auth', async () => {
    const listener = await listen();
    const first = await v1(listener.url);
    const second = await v1(listener.url);
    const task = await createTask(first.client, 'wait');
    await expect(second.client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(`MCP error -32602: Task not found: ${task.taskId}`);
    expect((await second.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    await first.client.experimental.tasks.cancelTask(task.taskId);
  });

  it('forgets a task and its result once its ttl has passed', async () => {
    const listener = await listen();
    const { client } = await v1(listener.url);
    steps.open();
    const task = await createTask(client, 'count', { n: 1 }, 300);
    expect(task.ttl).toBe(300);
    await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    await new Promise((r) => setTimeout(r, 350));
    await expect(client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(`MCP error -32602: Task not found: ${task.taskId}`);
    expect((await client.experimental.tasks.listTasks()).tasks).toEqual([]);
  });

  it('on 2026-07-28, runs optional task tools as ordinary calls for a client without the tasks extension, and refuses required ones (-32021)', async () => {
    const app = createMcpApp(TaskServer, { onError: () => undefined });
    const { client, close } = await connectHttp(app, { modern: true });
    open.push(close);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    // The v2 client (2.4.0) does not declare io.modelcontextprotocol/tasks: it gets no task.
    await expect(client.callTool({ name: 'refuse', arguments: {} })).rejects.toMatchObject({
      code: -32001,
      message: 'Not authorised for this workspace',
    });
    await expect(client.callTool({ name: 'broken', arguments: {} })).rejects.toMatchObject({
      code: -32021,
      message:
        'Tool "broken" runs only as a task: declare the tasks extension in the request\'s client capabilities (_meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"] = {}), then poll tasks/get',
    });
  });

  it('refuses a task option other than optional or required at start-up', () => {
    @McpServer({ name: 'bad-task', version: '1.0.0' })
    class BadTask {
      @Tool({ description: 'x', task: 'always' as never })
      x() {
        return 'x';
      }
    }
    expect(() => createMcpApp(BadTask)).toThrow(
      `BadTask.x: task is "always"; it must be 'optional' or 'required', or { support: 'optional' | 'required', retries } (or left out) [ARM120]\n     Fix: @Tool({ description: '...', task: 'optional' })`,
    );
  });

  it('lists tasks a page at a time and refuses a cursor it did not issue', async () => {
    const listener = await listen(FAST, false, 1);
    const { client } = await v1(listener.url);
    const first = await createTask(client, 'wait');
    const second = await createTask(client, 'wait');
    const page1 = await client.experimental.tasks.listTasks();
    expect([page1.tasks.map((t) => t.taskId), page1.nextCursor]).toEqual([[first.taskId], '1']);
    const page2 = await client.experimental.tasks.listTasks(page1.nextCursor);
    expect([page2.tasks.map((t) => t.taskId), page2.nextCursor]).toEqual([[second.taskId], undefined]);
    await expect(client.experimental.tasks.listTasks('abc')).rejects.toThrow(
      'MCP error -32602: Invalid params: the cursor of tasks/list is not one this server issued',
    );
    for (const task of [first, second]) await client.experimental.tasks.cancelTask(task.taskId);
  });

  it('cuts a ttl longer than maxTtlMs down to it', async () => {
    const listener = await listen({ ...FAST, maxTtlMs: 5_000 });
    const { client } = await v1(listener.url);
    const task = await createTask(client, 'wait', {}, 60_000);
    expect(task.ttl).toBe(5_000);
    await client.experimental.tasks.cancelTask(task.taskId);
  });

  it('fails a task whose instance stopped renewing its lease, as seen from another instance sharing the store', async () => {
    const shared = new InMemoryTaskStore();
    // The instance that runs the task "dies": its lease renewals never reach the store.
    const dying: TaskStore = {
      create: (r) => shared.create(r),
      get: (id) => shared.get(id),
      list: (o, c, l) => shared.list(o, c, l),
      update: (id, u) => (Object.keys(u).join() === 'leaseExpiresAt' ? Promise.resolve(undefined) : shared.update(id, u)),
      watch: (id, l) => shared.watch(id, l),
    };
    const first = await listen({ ...FAST, store: dying, leaseMs: 200 }, true);
    const second = await listen({ ...FAST, store: shared, leaseMs: 200 }, true);
    const ann = await v1(first.url, 'token-ann');
    const task = await createTask(ann.client, 'wait');
    const other = await v1(second.url, 'token-ann');
    expect((await other.client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    const result = await other.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const message =
      'The server instance running this task stopped answering for it (no lease renewal within 200 ms); the task is failed. Call the tool again to retry';
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: message }] });
    expect(await other.client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'failed', statusMessage: message });
    // The handler, still running on the first instance, is stopped too.
    await until(
      async () => aborted,
      (a) => a.length === 1,
      'the abort',
    );
    expect(aborted).toEqual([message]);
  });
});
