import { PassThrough } from 'node:stream';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
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
  UseGuards,
} from '../src/index.js';
import { modernRpc, type RpcAnswer, WITH_TASKS } from './support/modern-rpc.js';
import { tokenAuth } from './support/token-auth.js';

// Tools as tasks on 2026-07-28, through the tasks extension (io.modelcontextprotocol/tasks,
// SEP-2663; ext-tasks specification/draft/tasks.md). The v2 client 2.4.0 refuses
// `resultType: 'task'`, so these tests speak raw HTTP and check the JSON exactly.

class CountInput {
  @Field('How far to count')
  @IsInt()
  @Min(1)
  n!: number;
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

let steps = gate();
const aborted: string[] = [];

@McpServer({ name: 'tasks-extension', version: '1.0.0' })
class JobServer {
  @Tool({ description: 'Counts to n, reporting progress; waits for the test after the first step', task: 'optional' })
  async count(input: CountInput, ctx: Context) {
    for (let i = 1; i <= input.n; i++) {
      await ctx.progress(i, input.n, `step ${i}`);
      ctx.log.info(`step ${i}`);
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

  @Tool({ description: 'Fails with a tool error', task: 'required' })
  broken() {
    throw new ToolError('the disk is full');
  }

  @Tool({ description: 'Refuses with a JSON-RPC error', task: 'optional' })
  refuse() {
    throw new McpError(-32001, 'Not authorised for this workspace', { workspace: 'w1' });
  }

  @Tool({ description: 'Hidden from every caller', task: 'required' })
  @UseGuards({ canActivate: () => false })
  secret() {
    return 'secret';
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

async function listen(tasks: TaskOptions = FAST, auth = false): Promise<HttpListener> {
  const app = createMcpApp(JobServer, { onError: () => undefined, tasks });
  const listener = await app.listenHttp({
    port: 0,
    ...(auth ? tokenAuth() : {}),
  });
  open.push(() => listener.close());
  return listener;
}

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'tasks-extension', version: '1.0.0' } };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TIMES = { createdAt: expect.stringMatching(ISO), lastUpdatedAt: expect.stringMatching(ISO) };

/** tools/call from a client that declares the tasks extension; returns the created task's id. */
async function createTask(url: string, name: string, args: Record<string, unknown> = {}, token?: string): Promise<string> {
  const { body } = await modernRpc(url, 'tools/call', { name, arguments: args }, WITH_TASKS, token);
  expect(body.result?.resultType).toBe('task');
  return String(body.result?.taskId);
}

const getTask = (url: string, taskId: string, token?: string) => modernRpc(url, 'tasks/get', { taskId }, WITH_TASKS, token);

async function until(read: () => Promise<RpcAnswer>, done: (answer: RpcAnswer) => boolean, what: string): Promise<RpcAnswer> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const answer = await read();
    if (done(answer)) return answer;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(answer.body)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const notFound = (taskId: string) => ({
  code: -32602,
  message: `Task not found: ${taskId} (it never existed, its ttl has passed, or it belongs to another caller)`,
});

describe('tools as tasks on 2026-07-28 (tasks extension)', () => {
  it('advertises the extension in server/discover', async () => {
    const { url } = await listen();
    const { body } = await modernRpc(url, 'server/discover', {});
    expect(body.result?.capabilities).toEqual({
      tools: { listChanged: true },
      logging: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
  });

  it('answers a declaring client with a task, reports progress into its status, and inlines the result once completed', async () => {
    const { url } = await listen();
    const created = await modernRpc(url, 'tools/call', { name: 'count', arguments: { n: 2 } }, WITH_TASKS);
    // `content: []` is there because the SDK (2.4.0) checks every tools/call answer against CallToolResult.
    expect(created.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'task',
        content: [],
        taskId: expect.stringMatching(UUID),
        status: 'working',
        statusMessage: 'The task is running',
        ...TIMES,
        ttlMs: 3_600_000,
        pollIntervalMs: 20,
        _meta: SERVER_INFO,
      },
    });
    const taskId = String(created.body.result?.taskId);
    const working = await until(
      () => getTask(url, taskId),
      (a) => a.body.result?.statusMessage === '1/2: step 1',
      'the first step',
    );
    expect(working.body.result).toEqual({
      resultType: 'complete',
      taskId,
      status: 'working',
      statusMessage: '1/2: step 1',
      ...TIMES,
      ttlMs: 3_600_000,
      pollIntervalMs: 20,
      _meta: SERVER_INFO,
    });
    steps.open();
    const completed = await until(
      () => getTask(url, taskId),
      (a) => a.body.result?.status === 'completed',
      'completion',
    );
    expect(completed.body.result).toEqual({
      resultType: 'complete',
      taskId,
      status: 'completed',
      ...TIMES,
      ttlMs: 3_600_000,
      pollIntervalMs: 20,
      result: { content: [{ type: 'text', text: 'counted to 2' }] },
      _meta: SERVER_INFO,
    });
  });

  it('completes a task whose tool returned a tool error, and fails one whose tool raised a JSON-RPC error', async () => {
    const { url } = await listen();
    const brokenId = await createTask(url, 'broken');
    const broken = await until(
      () => getTask(url, brokenId),
      (a) => a.body.result?.status !== 'working',
      'the tool error',
    );
    expect(broken.body.result).toMatchObject({
      status: 'completed',
      statusMessage: 'the disk is full',
      result: { content: [{ type: 'text', text: 'the disk is full' }], isError: true },
    });
    expect(broken.body.result).not.toHaveProperty('error');
    const refusedId = await createTask(url, 'refuse');
    const refused = await until(
      () => getTask(url, refusedId),
      (a) => a.body.result?.status !== 'working',
      'the JSON-RPC error',
    );
    expect(refused.body.result).toEqual({
      resultType: 'complete',
      taskId: refusedId,
      status: 'failed',
      statusMessage: 'Not authorised for this workspace',
      ...TIMES,
      ttlMs: 3_600_000,
      pollIntervalMs: 20,
      error: { code: -32001, message: 'Not authorised for this workspace', data: { workspace: 'w1' } },
      _meta: SERVER_INFO,
    });
  });

  it('cancels a task: an empty acknowledgement, the handler’s signal aborts, and the task stays cancelled', async () => {
    const { url } = await listen();
    const taskId = await createTask(url, 'wait');
    const ack = await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS);
    expect(ack.body).toEqual({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete', _meta: SERVER_INFO } });
    await until(
      async () => ({ status: 0, body: { jsonrpc: '2.0', id: 0, result: { n: aborted.length } } }),
      (a) => a.body.result?.n === 1,
      'the abort',
    );
    expect(aborted).toEqual(['The task was cancelled by the client (tasks/cancel)']);
    const cancelled = await getTask(url, taskId);
    expect(cancelled.body.result).toEqual({
      resultType: 'complete',
      taskId,
      status: 'cancelled',
      statusMessage: 'The task was cancelled by the client (tasks/cancel)',
      ...TIMES,
      // Cut at the cancel: a cancelled task is kept one to two minutes more.
      ttlMs: 120_000,
      pollIntervalMs: 20,
      _meta: SERVER_INFO,
    });
    // Cancelling again is acknowledged (cancellation is only an intent); the task stays cancelled.
    expect((await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS)).body.result).toEqual({
      resultType: 'complete',
      _meta: SERVER_INFO,
    });
    expect((await getTask(url, taskId)).body.result?.status).toBe('cancelled');
  });

  it('forgets a task once its ttl has passed', async () => {
    const { url } = await listen({ ...FAST, defaultTtlMs: 300 });
    steps.open();
    const created = await modernRpc(url, 'tools/call', { name: 'count', arguments: { n: 1 } }, WITH_TASKS);
    expect(created.body.result?.ttlMs).toBe(300);
    const taskId = String(created.body.result?.taskId);
    await until(
      () => getTask(url, taskId),
      (a) => a.body.result?.status === 'completed',
      'completion',
    );
    await new Promise((r) => setTimeout(r, 350));
    expect((await getTask(url, taskId)).body).toEqual({ jsonrpc: '2.0', id: 1, error: notFound(taskId) });
  });

  it('keeps tasks to their principal: another one can neither see, update nor cancel them', async () => {
    const { url } = await listen(FAST, true);
    const taskId = await createTask(url, 'wait', {}, 'token-ann');
    expect((await getTask(url, taskId, 'token-ann')).body.result?.status).toBe('working');
    expect((await getTask(url, taskId, 'token-bob')).body.error).toEqual(notFound(taskId));
    expect((await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS, 'token-bob')).body.error).toEqual(notFound(taskId));
    expect((await modernRpc(url, 'tasks/update', { taskId, inputResponses: {} }, WITH_TASKS, 'token-bob')).body.error).toEqual(
      notFound(taskId),
    );
    expect((await getTask(url, taskId, 'token-ann')).body.result?.status).toBe('working');
    expect(aborted).toEqual([]);
    await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS, 'token-ann');
  });

  it('keeps the tasks of each revision apart, for the same principal', async () => {
    const { url } = await listen(FAST, true);
    const modernId = await createTask(url, 'wait', {}, 'token-ann');
    const client = new V1Client({ name: 'tasks-v1', version: '1.0.0' });
    await client.connect(new V1Transport(new URL(url), { requestInit: { headers: { authorization: 'Bearer token-ann' } } }));
    open.push(() => client.close());
    const { task } = await client.request(
      { method: 'tools/call', params: { name: 'wait', arguments: {}, task: {} } },
      CreateTaskResultSchema,
    );
    // 2025-11-25 sees only its own task; 2026-07-28 only its own.
    expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual([task.taskId]);
    await expect(client.experimental.tasks.getTask(modernId)).rejects.toThrow(`MCP error -32602: ${notFound(modernId).message}`);
    expect((await getTask(url, task.taskId, 'token-ann')).body.error).toEqual(notFound(task.taskId));
    expect((await getTask(url, modernId, 'token-ann')).body.result?.status).toBe('working');
    await client.experimental.tasks.cancelTask(task.taskId);
    await modernRpc(url, 'tasks/cancel', { taskId: modernId }, WITH_TASKS, 'token-ann');
  });

  it('gives a client that does not declare the extension no task: optional tools run as calls, required ones answer -32021', async () => {
    const { url } = await listen();
    steps.open();
    expect((await modernRpc(url, 'tools/call', { name: 'count', arguments: { n: 1 } })).body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'counted to 1' }], resultType: 'complete', _meta: SERVER_INFO },
    });
    expect((await modernRpc(url, 'tools/call', { name: 'wait', arguments: {} })).body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32021,
        message:
          'Tool "wait" runs only as a task: declare the tasks extension in the request\'s client capabilities (_meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"] = {}), then poll tasks/get',
        data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      },
    });
    const taskId = await createTask(url, 'wait');
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      expect((await modernRpc(url, method, { taskId, inputResponses: {} })).body.error).toEqual({
        code: -32021,
        message: `${method} needs the tasks extension: declare it in the request's client capabilities (_meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"] = {})`,
        data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
      });
    }
    await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS);
  });

  it('answers a task tool the caller may not use exactly like an unknown tool, with or without the extension', async () => {
    const { url } = await listen();
    const unknown = (await modernRpc(url, 'tools/call', { name: 'nope', arguments: {} }, WITH_TASKS)).body;
    expect(unknown.error?.code).toBe(-32602);
    for (const capabilities of [WITH_TASKS, {}]) {
      const hidden = (await modernRpc(url, 'tools/call', { name: 'secret', arguments: {} }, capabilities)).body;
      expect(hidden).toEqual({ ...unknown, error: { ...unknown.error, message: unknown.error?.message.replace('"nope"', '"secret"') } });
    }
  });

  it('runs a tool without task as an ordinary call even for a declaring client, ignores the 2025-11-25 params.task, and does not serve tasks/result or tasks/list', async () => {
    const { url } = await listen();
    const plain = { content: [{ type: 'text', text: 'plain' }], resultType: 'complete', _meta: SERVER_INFO };
    expect((await modernRpc(url, 'tools/call', { name: 'plain', arguments: {} }, WITH_TASKS)).body.result).toEqual(plain);
    // The extension has the server decide: the utility's per-call `task` neither asks for nor refuses one.
    expect((await modernRpc(url, 'tools/call', { name: 'plain', arguments: {}, task: {} }, WITH_TASKS)).body.result).toEqual(plain);
    steps.open();
    expect((await modernRpc(url, 'tools/call', { name: 'count', arguments: { n: 1 }, task: { ttl: 1000 } })).body.result).toEqual({
      content: [{ type: 'text', text: 'counted to 1' }],
      resultType: 'complete',
      _meta: SERVER_INFO,
    });
    const taskId = await createTask(url, 'wait');
    for (const method of ['tasks/result', 'tasks/list']) {
      expect((await modernRpc(url, method, { taskId }, WITH_TASKS)).body.error).toEqual({ code: -32601, message: 'Method not found' });
    }
    await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS);
  });

  it('acknowledges tasks/update (no input is outstanding) and refuses a request without a taskId or for an unknown task', async () => {
    const { url } = await listen();
    const taskId = await createTask(url, 'wait');
    const update = await modernRpc(url, 'tasks/update', { taskId, inputResponses: { armature_0: { action: 'accept' } } }, WITH_TASKS);
    expect(update.body.result).toEqual({ resultType: 'complete', _meta: SERVER_INFO });
    expect((await getTask(url, taskId)).body.result?.status).toBe('working');
    expect((await modernRpc(url, 'tasks/get', {}, WITH_TASKS)).body.error).toEqual({
      code: -32602,
      message:
        'Invalid params for tasks/get: params.taskId must be a string: the taskId of the task, as the tools/call that created it answered',
    });
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await modernRpc(url, 'tasks/cancel', { taskId: unknown }, WITH_TASKS)).body.error).toEqual(notFound(unknown));
    await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS);
  });

  it('fails a task whose instance stopped renewing its lease with a JSON-RPC error, as seen from another instance sharing the store', async () => {
    const shared = new InMemoryTaskStore();
    // The instance that runs the task "dies": its lease renewals never reach the store.
    const dying: TaskStore = {
      create: (r) => shared.create(r),
      get: (id) => shared.get(id),
      list: (o, c, l) => shared.list(o, c, l),
      update: (id, u) => (Object.keys(u).join() === 'leaseExpiresAt' ? Promise.resolve(undefined) : shared.update(id, u)),
      watch: (id, l) => shared.watch(id, l),
    };
    const first = await listen({ ...FAST, store: dying, leaseMs: 200 });
    const second = await listen({ ...FAST, store: shared, leaseMs: 200 });
    const taskId = await createTask(first.url, 'wait');
    expect((await getTask(second.url, taskId)).body.result?.status).toBe('working');
    await new Promise((r) => setTimeout(r, 250));
    const message =
      'The server instance running this task stopped answering for it (no lease renewal within 200 ms); the task is failed. Call the tool again to retry';
    expect((await getTask(second.url, taskId)).body.result).toEqual({
      resultType: 'complete',
      taskId,
      status: 'failed',
      statusMessage: message,
      ...TIMES,
      ttlMs: 3_600_000,
      pollIntervalMs: 20,
      error: { code: -32603, message },
      _meta: SERVER_INFO,
    });
    // The handler, still running on the first instance, is stopped too.
    await until(
      async () => ({ status: 0, body: { jsonrpc: '2.0', id: 0, result: { n: aborted.length } } }),
      (a) => a.body.result?.n === 1,
      'the abort',
    );
    expect(aborted).toEqual([message]);
  });
});

describe('tools as tasks on 2026-07-28 over stdio', () => {
  it('creates, polls and cancels a task on a stdio connection that speaks 2026-07-28', async () => {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const handle = createMcpApp(JobServer, { onError: () => undefined, tasks: FAST }).listenStdio({ stdin: toServer, stdout: fromServer });
    open.push(() => handle.close());
    const answers = new Map<number, Record<string, unknown>>();
    let buffer = '';
    fromServer.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
        const message = JSON.parse(buffer.slice(0, i)) as { id?: number };
        if (typeof message.id === 'number') answers.set(message.id, message);
        buffer = buffer.slice(i + 1);
      }
    });
    let nextId = 1;
    const send = async (method: string, params: Record<string, unknown>) => {
      const id = nextId++;
      const _meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
      };
      toServer.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta } })}\n`);
      const deadline = Date.now() + 5_000;
      while (!answers.has(id)) {
        if (Date.now() > deadline) throw new Error(`no answer to ${method}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return answers.get(id) as { result?: Record<string, unknown>; error?: unknown };
    };
    const created = await send('tools/call', { name: 'wait', arguments: {} });
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 20 });
    const taskId = String(created.result?.taskId);
    expect((await send('tasks/get', { taskId })).result).toMatchObject({ resultType: 'complete', taskId, status: 'working' });
    expect((await send('tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete', _meta: SERVER_INFO });
    expect((await send('tasks/get', { taskId })).result).toMatchObject({ taskId, status: 'cancelled' });
    expect(aborted).toEqual(['The task was cancelled by the client (tasks/cancel)']);
  });
});
