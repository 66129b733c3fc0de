import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  Context,
  createMcpApp,
  DEFAULT_TASK_LIMITS,
  type ExecutionContext,
  type Guard,
  type HttpListener,
  InMemoryTaskStore,
  McpServer,
  type TaskOptions,
  type TaskRecord,
  Tool,
  UseGuards,
} from '../src/index.js';
import { gate } from './support/gate.js';
import { modernRpc, WITH_TASKS } from './support/modern-rpc.js';
import { until } from './support/until.js';

let release = gate();
/** The calls (`phase: 'call'`) the counting guard was asked about, by tool. */
const guardCalls: string[] = [];
let guardAllows = true;

class CountingGuard implements Guard {
  canActivate(context: ExecutionContext) {
    if (context.phase === 'call') guardCalls.push(context.name);
    return guardAllows;
  }
}

@McpServer({ name: 'task-limits-test', version: '1.0.0' })
class LimitServer {
  @Tool({ description: 'Runs until the test releases it or the client cancels it', task: 'optional' })
  async hold(ctx: Context) {
    await Promise.race([release.opened, new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))]);
    return 'released';
  }

  @Tool({ description: 'Answers 20 KB at once', task: 'optional' })
  big() {
    return 'x'.repeat(20_000);
  }

  @Tool({ description: 'Answers 160 KB at once', task: 'optional' })
  huge() {
    return 'x'.repeat(160_000);
  }

  @Tool({ description: 'Answers at once', task: 'optional' })
  quick() {
    return 'done';
  }

  @UseGuards(CountingGuard)
  @Tool({ description: 'Asks the counting guard', task: 'optional' })
  guarded() {
    return 'guarded';
  }
}

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  release.open();
  for (const close of open.splice(0).reverse()) await close();
  release = gate();
  guardCalls.length = 0;
  guardAllows = true;
});

/** A bearer-token verifier knowing two users of one client app. */
const verifier = {
  async verify(token: string) {
    const sub = { 'token-ann': 'ann', 'token-bob': 'bob' }[token];
    if (!sub) throw new Error('unknown token');
    return { token, clientId: 'app', scopes: [], extra: { sub } };
  },
};

async function listen(tasks: TaskOptions = {}, auth = false): Promise<HttpListener> {
  const app = createMcpApp(LimitServer, { onError: () => undefined, tasks: { pollIntervalMs: 20, ...tasks } });
  // One proxy in front (X-Forwarded-For): each test client comes from an address of its own.
  const listener = await app.listenHttp({
    port: 0,
    trustProxy: 1,
    ...(auth ? { auth: { verifier, resource: 'http://127.0.0.1/mcp', authorizationServers: ['http://127.0.0.1/issuer'] } } : {}),
  });
  open.push(() => listener.close());
  return listener;
}

/**
 * A 2025-11-25 session of the official v1 client (it speaks the tasks utility), from the client
 * address `from` (reported by the proxy the app trusts) unless it authenticates with `token`.
 */
async function session(url: string, token?: string, from = '203.0.113.1'): Promise<V1Client> {
  const client = new V1Client({ name: 'limits', version: '1.0.0' });
  const headers: Record<string, string> = { 'x-forwarded-for': from, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  await client.connect(new V1Transport(new URL(url), { requestInit: { headers } }));
  open.push(() => client.close());
  return client;
}

async function createTask(client: V1Client, name: string, ttl?: number) {
  const created = await client.request(
    { method: 'tools/call', params: { name, arguments: {}, task: ttl === undefined ? {} : { ttl } } },
    CreateTaskResultSchema,
  );
  return created.task;
}

/** What a refused creation answers, as the client sees it. */
async function refusal(client: V1Client, name: string): Promise<{ code: number; message: string; data?: unknown }> {
  const error = await createTask(client, name).then(
    () => undefined,
    (e: { code: number; message: string; data?: unknown }) => ({ code: e.code, message: e.message, data: e.data }),
  );
  if (!error) throw new Error(`the task of ${name} was accepted`);
  return error;
}

const RUNNING_PER_OWNER = (max: number) =>
  `MCP error -32600: Task refused: ${max} tasks of this caller are already running (tasks.limits.maxRunningTasksPerOwner). Wait for one to finish (poll tasks/get) or cancel one (tasks/cancel), then call again`;

describe('task limits', () => {
  it('refuses one client its 3,000 long tasks past the running cap with the documented error; another client is unaffected', async () => {
    const listener = await listen();
    const greedy = await session(listener.url);
    const cap = DEFAULT_TASK_LIMITS.maxRunningTasksPerOwner;
    let accepted = 0;
    const refusals = new Map<string, number>();
    for (let batch = 0; batch < 30; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, () =>
          createTask(greedy, 'hold').then(
            () => undefined,
            (e: { code: number; message: string; data?: unknown }) => JSON.stringify({ code: e.code, message: e.message, data: e.data }),
          ),
        ),
      );
      for (const answer of answers) {
        if (answer === undefined) accepted++;
        else refusals.set(answer, (refusals.get(answer) ?? 0) + 1);
      }
    }
    expect(accepted).toBe(cap);
    expect([...refusals]).toEqual([
      [
        JSON.stringify({ code: -32600, message: RUNNING_PER_OWNER(cap), data: { limit: 'maxRunningTasksPerOwner', max: cap } }),
        3_000 - cap,
      ],
    ]);
    // What the server holds for it: the accepted tasks only.
    const listed = await greedy.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.status)).toEqual(Array(cap).fill('working'));

    const other = await session(listener.url, undefined, '203.0.113.2');
    const task = await createTask(other, 'quick');
    const result = await other.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    // 3,000 HTTP requests: on a machine busy with other work they take well over the default 20 s.
  }, 120_000);

  it('counts an authenticated principal once across its sessions; another principal is unaffected', async () => {
    const listener = await listen({ limits: { maxRunningTasksPerOwner: 2 } }, true);
    const [annHere, annThere, bob] = [
      await session(listener.url, 'token-ann'),
      await session(listener.url, 'token-ann'),
      await session(listener.url, 'token-bob'),
    ];
    await createTask(annHere, 'hold');
    await createTask(annThere, 'hold');
    expect(await refusal(annHere, 'hold')).toMatchObject({ data: { limit: 'maxRunningTasksPerOwner', max: 2 } });
    expect(await refusal(annThere, 'hold')).toMatchObject({ data: { limit: 'maxRunningTasksPerOwner', max: 2 } });
    expect((await createTask(bob, 'hold')).status).toBe('working');
    expect((await createTask(bob, 'hold')).status).toBe('working');
  });

  it('caps the running handlers of all owners together', async () => {
    const listener = await listen({ limits: { maxRunningTasks: 3, maxRunningTasksPerOwner: 2 } });
    const [ann, bob, cat] = [
      await session(listener.url, undefined, '203.0.113.1'),
      await session(listener.url, undefined, '203.0.113.2'),
      await session(listener.url, undefined, '203.0.113.3'),
    ];
    await createTask(ann, 'hold');
    await createTask(ann, 'hold');
    expect(await refusal(ann, 'hold')).toMatchObject({ data: { limit: 'maxRunningTasksPerOwner', max: 2 } });
    await createTask(bob, 'hold');
    expect(await refusal(cat, 'hold')).toEqual({
      code: -32600,
      message:
        'MCP error -32600: Task refused: the server is already running its maximum of 3 tasks for all callers together (tasks.limits.maxRunningTasks). Call again later',
      data: { limit: 'maxRunningTasks', max: 3 },
    });
    // A handler that ends frees its running share.
    release.open();
    await until(
      () => bob.experimental.tasks.listTasks(),
      (page) => page.tasks.every((t) => t.status === 'completed'),
      'the held tasks to complete',
    );
    expect((await createTask(cat, 'hold')).status).toBe('working');
  });

  it('caps the tasks an owner holds, finished ones included, until their ttl passes; an expired task frees its share', async () => {
    const listener = await listen({ limits: { maxOpenTasksPerOwner: 2 } });
    const client = await session(listener.url);
    const kept = await createTask(client, 'quick');
    const short = await createTask(client, 'quick', 300);
    await client.experimental.tasks.getTaskResult(kept.taskId, CallToolResultSchema);
    await client.experimental.tasks.getTaskResult(short.taskId, CallToolResultSchema);
    expect(await refusal(client, 'quick')).toEqual({
      code: -32600,
      message:
        'MCP error -32600: Task refused: this caller already holds 2 tasks (tasks.limits.maxOpenTasksPerOwner), running or finished and kept until their ttl passes. Cancel one that runs (tasks/cancel), wait for finished ones to expire, or ask for a shorter ttl (params.task.ttl, on 2025-11-25), then call again',
      data: { limit: 'maxOpenTasksPerOwner', max: 2 },
    });
    // Once the short task is gone (its ttl passed), its share is free.
    await until(
      () =>
        client.experimental.tasks.getTask(short.taskId).then(
          () => 'kept',
          () => 'gone',
        ),
      (state) => state === 'gone',
      'the short task to expire',
    );
    expect((await createTask(client, 'quick')).status).toBe('working');
  });

  it('frees the shares of a cancelled task at once', async () => {
    const listener = await listen({ limits: { maxOpenTasksPerOwner: 2, maxRunningTasksPerOwner: 2 } });
    const client = await session(listener.url);
    const first = await createTask(client, 'hold');
    await createTask(client, 'hold');
    expect(await refusal(client, 'hold')).toMatchObject({ data: { limit: 'maxOpenTasksPerOwner', max: 2 } });
    const cancelled = await client.experimental.tasks.cancelTask(first.taskId);
    expect((await createTask(client, 'hold')).status).toBe('working');
    // Counted against no limit, a cancelled task is kept a minute more, not the rest of its hour.
    expect(first.ttl).toBe(3_600_000);
    expect(cancelled.ttl).toBe(120_000);
  });

  it('drops a result that does not fit in what the owner may keep, and fails its task saying so', async () => {
    const listener = await listen({ limits: { maxResultBytesPerOwner: 30_000 } });
    const client = await session(listener.url);
    const first = await createTask(client, 'big');
    expect((await client.experimental.tasks.getTaskResult(first.taskId, CallToolResultSchema)).content).toEqual([
      { type: 'text', text: 'x'.repeat(20_000) },
    ]);
    const second = await createTask(client, 'big');
    const dropped = await client.experimental.tasks.getTaskResult(second.taskId, CallToolResultSchema);
    expect(dropped.isError).toBe(true);
    expect(dropped.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^The task's result \(200\d\d bytes as JSON\) was dropped: with the 200\d\d bytes the caller's other finished tasks keep, it goes over tasks\.limits\.maxResultBytesPerOwner \(30000\)\. Let older tasks expire \(a shorter ttl frees them sooner\), or return a smaller result$/,
        ),
      },
    ]);
    expect((await client.experimental.tasks.getTask(second.taskId)).status).toBe('failed');
  });

  it('refuses a task of the 2026-07-28 tasks extension with the same JSON-RPC error', async () => {
    const listener = await listen({ limits: { maxRunningTasksPerOwner: 1 } });
    const created = await modernRpc(listener.url, 'tools/call', { name: 'hold', arguments: {} }, WITH_TASKS);
    expect(created.body.result?.resultType).toBe('task');
    const refused = await modernRpc(listener.url, 'tools/call', { name: 'hold', arguments: {} }, WITH_TASKS);
    expect(refused.body.error).toEqual({
      code: -32600,
      message: RUNNING_PER_OWNER(1).replace('MCP error -32600: ', ''),
      data: { limit: 'maxRunningTasksPerOwner', max: 1 },
    });
    // Anonymous callers no longer share one quota: another client address has its own.
    const elsewhere = await modernRpc(listener.url, 'tools/call', { name: 'hold', arguments: {} }, WITH_TASKS, undefined, {
      'x-forwarded-for': '198.51.100.7',
    });
    expect(elsewhere.body.result?.resultType).toBe('task');
  });
});

/** The in-memory store, noting each task it was given, so a test can ask what it still holds. */
class CountedStore extends InMemoryTaskStore {
  private readonly ids: string[] = [];
  override async create(record: TaskRecord): Promise<void> {
    this.ids.push(record.taskId);
    await super.create(record);
  }
  /** The tasks the store still holds, and the bytes of their outcomes (as JSON). */
  async held(): Promise<{ tasks: number; bytes: number }> {
    let tasks = 0;
    let bytes = 0;
    for (const id of this.ids) {
      const record = await this.get(id);
      if (!record) continue;
      tasks++;
      bytes += record.outcome ? Buffer.byteLength(JSON.stringify(record.outcome)) : 0;
    }
    return { tasks, bytes };
  }
}

describe('fair task caps: per caller, never per session', () => {
  it('refuses a client cycling 20 sessions x 100 tasks x 160 KB past its cap with the documented error; the store stays bounded; another client is unaffected', async () => {
    const store = new CountedStore();
    const listener = await listen({ store });
    const cap = DEFAULT_TASK_LIMITS.maxOpenTasksPerOwner;
    const rssBefore = process.memoryUsage().rss;
    let accepted = 0;
    const refusals = new Map<string, number>();
    for (let round = 0; round < 20; round++) {
      // A new session each round, deleted at its end (DELETE): tasks outlive their session.
      const headers = { 'x-forwarded-for': '203.0.113.9' };
      const transport = new V1Transport(new URL(listener.url), { requestInit: { headers } });
      const client = new V1Client({ name: 'flood', version: '1.0.0' });
      await client.connect(transport);
      for (let i = 0; i < 100; i++) {
        const refused = await createTask(client, 'huge').then(
          () => undefined,
          (e: { code: number; message: string; data?: unknown }) => JSON.stringify({ code: e.code, message: e.message, data: e.data }),
        );
        if (refused === undefined) accepted++;
        else refusals.set(refused, (refusals.get(refused) ?? 0) + 1);
      }
      await transport.terminateSession();
      await client.close();
    }
    expect(accepted).toBe(cap);
    expect([...refusals]).toEqual([
      [
        JSON.stringify({
          code: -32600,
          message: `MCP error -32600: Task refused: this caller already holds ${cap} tasks (tasks.limits.maxOpenTasksPerOwner), running or finished and kept until their ttl passes. Cancel one that runs (tasks/cancel), wait for finished ones to expire, or ask for a shorter ttl (params.task.ttl, on 2025-11-25), then call again`,
          data: { limit: 'maxOpenTasksPerOwner', max: cap },
        }),
        2_000 - cap,
      ],
    ]);
    // What the server holds: the client's 100 tasks and their results, not 2,000 (320 MB).
    const held = await until(
      () => store.held(),
      (h) => h.bytes >= cap * 160_000,
      'the accepted tasks to finish',
    );
    expect(held.tasks).toBe(cap);
    expect(held.bytes).toBeLessThanOrEqual(DEFAULT_TASK_LIMITS.maxResultBytesPerOwner);
    const rssAfter = process.memoryUsage().rss;
    process.stdout.write(
      `[flood] ${accepted} of 2000 tasks accepted; store: ${held.tasks} tasks, ${held.bytes} result bytes; rss ${Math.round(rssBefore / 1e6)} -> ${Math.round(rssAfter / 1e6)} MB\n`,
    );
    // Generous slack (this process also runs the client and vitest): unbounded, the results alone would be 320 MB.
    expect(rssAfter - rssBefore).toBeLessThan(200e6);

    const other = await session(listener.url, undefined, '203.0.113.10');
    const task = await createTask(other, 'huge');
    const result = await other.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'x'.repeat(160_000) }]);
  }, 180_000);

  it('caps the tasks and result bytes of the whole server, all callers together', async () => {
    const listener = await listen({ limits: { maxOpenTasks: 3, maxResultBytes: 50_000 } });
    const [ann, bob, cat] = [
      await session(listener.url, undefined, '203.0.113.1'),
      await session(listener.url, undefined, '203.0.113.2'),
      await session(listener.url, undefined, '203.0.113.3'),
    ];
    const first = await createTask(ann, 'big');
    await ann.experimental.tasks.getTaskResult(first.taskId, CallToolResultSchema);
    const second = await createTask(bob, 'big');
    await bob.experimental.tasks.getTaskResult(second.taskId, CallToolResultSchema);
    // 40 KB kept in all: a third 20 KB result goes over the server's 50,000 bytes, whoever asks.
    const third = await createTask(cat, 'big');
    const dropped = await cat.experimental.tasks.getTaskResult(third.taskId, CallToolResultSchema);
    expect(dropped.content).toEqual([
      {
        type: 'text',
        text: expect.stringMatching(
          /^The task's result \(200\d\d bytes as JSON\) was dropped: with the 40\d{3} bytes the finished tasks of all callers together keep, it goes over tasks\.limits\.maxResultBytes \(50000\)\. Let older tasks expire/,
        ),
      },
    ]);
    expect(await refusal(cat, 'quick')).toEqual({
      code: -32600,
      message:
        'MCP error -32600: Task refused: the server already holds its maximum of 3 tasks for all callers together (tasks.limits.maxOpenTasks), running or finished and kept until their ttl passes. Call again later',
      data: { limit: 'maxOpenTasks', max: 3 },
    });
  });
});

describe('task limit options', () => {
  it('refuses at start-up a limit that is not a whole number of 1 or more, naming each and the fix', () => {
    const limits = { maxOpenTasksPerOwner: 0, maxRunningTasksPerOwner: Number.NaN, maxRunningTasks: 256 };
    expect(() => createMcpApp(LimitServer, { tasks: { limits } })).toThrow(
      [
        'Armature cannot start the MCP server: 2 problems in its options.',
        '  1. createMcpApp options: tasks.limits.maxOpenTasksPerOwner is 0; it must be a whole number of 1 or more [ARM123]',
        '     Fix: createMcpApp(Server, { tasks: { limits: { maxOpenTasksPerOwner: 16 } } }), or leave it out for its default',
        '  2. createMcpApp options: tasks.limits.maxRunningTasksPerOwner is NaN; it must be a whole number of 1 or more [ARM123]',
        '     Fix: createMcpApp(Server, { tasks: { limits: { maxRunningTasksPerOwner: 16 } } }), or leave it out for its default',
      ].join('\n'),
    );
  });
});

describe('guards on a task-augmented call', () => {
  it('are asked once: when the task is created, not again when it runs', async () => {
    const listener = await listen();
    const client = await session(listener.url);
    const task = await createTask(client, 'guarded');
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content).toEqual([{ type: 'text', text: 'guarded' }]);
    expect(guardCalls).toEqual(['guarded']);
  });

  it('are asked once when they refuse, and the caller gets the answer of an ordinary call', async () => {
    const listener = await listen();
    const client = await session(listener.url);
    guardAllows = false;
    await expect(createTask(client, 'guarded')).rejects.toThrow('Unknown tool: "guarded"');
    expect(guardCalls).toEqual(['guarded']);
  });
});
