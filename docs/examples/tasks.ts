import {
  Context,
  createMcpApp,
  InMemoryTaskStore,
  McpServer,
  type TaskRecord,
  type TaskStore,
  type TaskUpdate,
  TaskWatchers,
  Tool,
} from '@armature/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ArrayNotEmpty, IsString } from 'class-validator';
import { expectEqual, json } from './support/check.js';

// #region server
export class ReindexInput {
  @ArrayNotEmpty()
  @IsString({ each: true })
  folders!: string[];
}

@McpServer({ name: 'search-index', version: '1.0.0' })
export class SearchIndexServer {
  @Tool({ description: 'Rebuild the search index of some folders (slow)', task: 'optional' })
  async reindex(input: ReindexInput, ctx: Context) {
    for (const [i, folder] of input.folders.entries()) {
      ctx.signal.throwIfAborted();
      await ctx.progress(i, input.folders.length, `indexing ${folder}`);
      await indexFolder(folder, ctx.signal);
    }
    return `indexed ${input.folders.length} folders`;
  }

  @Tool({ description: 'Export every document (takes minutes: run it as a task)', task: 'required' })
  async exportAll(ctx: Context) {
    await waitUntilAborted(ctx.signal);
    return 'exported';
  }
}
// #endregion

/** Stands in for real work: a short pause that stops when the call is cancelled. */
export function indexFolder(_folder: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, 30);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

const exportStopped: unknown[] = [];
/** Stands in for work that only ends when the task is cancelled. */
export function waitUntilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener('abort', () => {
      exportStopped.push(signal.reason);
      reject(signal.reason);
    });
  });
}

// #region app
export const app = createMcpApp(SearchIndexServer, {
  tasks: {
    defaultTtlMs: 60 * 60_000, // a task and its result are kept 1 hour unless the client asks otherwise
    maxTtlMs: 24 * 60 * 60_000, // longer requests are cut to 24 hours
    pollIntervalMs: 50, // what clients are told to wait between two tasks/get
    leaseMs: 30_000, // a task nobody vouches for this long is failed
  },
});
// #endregion

// #region limits
export const limitedApp = createMcpApp(SearchIndexServer, {
  tasks: {
    limits: {
      maxOpenTasksPerOwner: 100, // tasks a caller holds: running, or finished and kept until their ttl passes
      maxRunningTasksPerOwner: 2, // a caller's handlers running at once (default 16)
      maxRunningTasks: 256, // handlers running at once, all callers together (with redisState: all instances)
      maxResultBytesPerOwner: 16 * 1024 * 1024, // bytes of results a caller's finished tasks keep
    },
  },
});
// #endregion

// #region custom-store
/** A store of your own: its rows here stand in for a database table; it tells its watchers itself. */
export class DatabaseTaskStore implements TaskStore {
  private readonly rows = new InMemoryTaskStore();
  private readonly watchers = new TaskWatchers();

  create(record: TaskRecord) {
    return this.rows.create(record);
  }
  get(taskId: string) {
    return this.rows.get(taskId);
  }
  list(owner: string, cursor: string | undefined, limit: number) {
    return this.rows.list(owner, cursor, limit);
  }
  async update(taskId: string, update: TaskUpdate) {
    const record = await this.rows.update(taskId, update);
    const renewal = Object.keys(update).every((key) => key === 'leaseExpiresAt'); // bookkeeping, not a change
    if (record && !renewal) this.watchers.tell(record); // calls the listeners of record.taskId
    return record;
  }
  watch(taskId: string, listener: (record: TaskRecord) => void) {
    return this.watchers.add(taskId, listener); // returns how to remove the listener
  }
}

export const store = new DatabaseTaskStore();
export const customStoreApp = createMcpApp(SearchIndexServer, { tasks: { store } });
// #endregion

export const outputs: Record<string, string> = {
  'tools-list': JSON.stringify(
    [
      { name: 'reindex', execution: { taskSupport: 'optional' } },
      { name: 'exportAll', execution: { taskSupport: 'required' } },
    ],
    null,
    2,
  ),
  required:
    'MCP error -32601: Tool "exportAll" runs only as a task: call it with params.task (e.g. "task": {}), then poll tasks/get and read tasks/result',
  statuses: `working  0/2: indexing src
working  1/2: indexing docs
completed`,
  'not-found':
    'MCP error -32602: Task not found: 00000000-0000-4000-8000-000000000000 (it never existed, its ttl has passed, or it belongs to another caller)',
  'cancel-twice': 'MCP error -32602: Cannot cancel task <taskId>: it is already cancelled',
  'limit-refused': JSON.stringify(
    {
      code: -32600,
      message:
        'MCP error -32600: Task refused: 2 tasks of this caller are already running (tasks.limits.maxRunningTasksPerOwner). Wait for one to finish (poll tasks/get) or cancel one (tasks/cancel), then call again',
      data: { limit: 'maxRunningTasksPerOwner', max: 2 },
    },
    null,
    2,
  ),
};

export async function main(): Promise<void> {
  // examples/tasks-extension.ts serves the same tools: count only this run's aborts.
  exportStopped.length = 0;
  // #region client-stream
  const listener = await app.listenHttp({ port: 0 }); // the app below, over HTTP
  const statuses: string[] = [];
  const client = new Client({ name: 'my-client', version: '1.0.0' });
  client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
    const { status, statusMessage } = notification.params;
    statuses.push(statusMessage ? `${status}  ${statusMessage}` : status);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));

  // Creates the task, polls tasks/get every pollInterval, then reads tasks/result.
  const stream = client.experimental.tasks.callToolStream(
    { name: 'reindex', arguments: { folders: ['src', 'docs'] } },
    CallToolResultSchema,
    { task: { ttl: 10 * 60_000 } },
  );
  let taskId = '';
  let content: unknown;
  for await (const message of stream) {
    if (message.type === 'taskCreated') taskId = message.task.taskId; // then 'taskStatus' while it runs
    if (message.type === 'result') content = message.result.content;
  }
  // #endregion
  try {
    expectEqual([taskId.length, json(content)], [36, [{ type: 'text', text: 'indexed 2 folders' }]], 'the streamed result');
    try {
      const { tools } = await client.listTools();
      expectEqual(
        json(tools.map((t) => ({ name: t.name, execution: t.execution }))),
        JSON.parse(outputs['tools-list'] as string),
        'tools/list',
      );
      expectEqual(statuses.join('\n'), outputs.statuses, 'status notifications');

      const required = await client
        .request({ method: 'tools/call', params: { name: 'exportAll', arguments: {} } }, CallToolResultSchema)
        .then(
          () => 'no error',
          (error: Error) => error.message,
        );
      expectEqual(required, outputs.required, 'required without a task');

      // #region client-manual
      const { task } = await client.request(
        { method: 'tools/call', params: { name: 'exportAll', arguments: {}, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      const polled = await client.experimental.tasks.getTask(task.taskId); // { status: 'working', ... }
      const { tasks } = await client.experimental.tasks.listTasks(); // this caller's tasks, oldest first
      const cancelled = await client.experimental.tasks.cancelTask(task.taskId); // the handler's ctx.signal aborts
      const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      // #endregion
      expectEqual([polled.status, tasks.map((t) => t.taskId), cancelled.status], ['working', [taskId, task.taskId], 'cancelled'], 'manual');
      expectEqual(
        json(result.content),
        [{ type: 'text', text: 'The task was cancelled by the client (tasks/cancel)' }],
        'result of a cancelled task',
      );
      expectEqual(exportStopped, ['The task was cancelled by the client (tasks/cancel)'], 'the handler saw the abort');
      const again = await client.experimental.tasks.cancelTask(task.taskId).then(
        () => 'no error',
        (error: Error) => error.message,
      );
      expectEqual(again, (outputs['cancel-twice'] as string).replace('<taskId>', task.taskId), 'cancel twice');
      const missing = await client.experimental.tasks.getTask('00000000-0000-4000-8000-000000000000').then(
        () => 'no error',
        (error: Error) => error.message,
      );
      expectEqual(missing, outputs['not-found'], 'unknown task');
    } finally {
      await client.close();
    }
  } finally {
    await listener.close();
  }
  await showLimits();
  await showCustomStore();
}

/** customStoreApp's store tells a task's watcher of its cancellation; a watcher removed hears nothing. */
async function showCustomStore(): Promise<void> {
  const listener = await customStoreApp.listenHttp({ port: 0 });
  const client = new Client({ name: 'my-client', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    const exportTask = async () =>
      (await client.request({ method: 'tools/call', params: { name: 'exportAll', arguments: {}, task: {} } }, CreateTaskResultSchema)).task
        .taskId;
    const [kept, removed] = [await exportTask(), await exportTask()];
    const heard: string[] = [];
    const hear = (name: string) => (record: TaskRecord) => heard.push(`${name} ${record.status}`);
    const stopKept = store.watch(kept, hear('kept'));
    const stopRemoved = store.watch(removed, hear('removed'));
    stopRemoved();
    stopRemoved(); // again: no effect
    for (const taskId of [kept, removed]) await client.experimental.tasks.cancelTask(taskId);
    stopKept();
    expectEqual(heard, ['kept cancelled'], 'the custom store told only the watcher still added');
  } finally {
    await client.close();
    await listener.close();
  }
}

/** One caller asks limitedApp for a third export while two run: refused, naming the limit. */
async function showLimits(): Promise<void> {
  const listener = await limitedApp.listenHttp({ port: 0 });
  const client = new Client({ name: 'my-client', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    const exportTask = () =>
      client.request({ method: 'tools/call', params: { name: 'exportAll', arguments: {}, task: {} } }, CreateTaskResultSchema);
    const running = [await exportTask(), await exportTask()];
    const refused = await exportTask().then(
      () => 'no error',
      (error: { code: number; message: string; data?: unknown }) =>
        JSON.stringify({ code: error.code, message: error.message, data: error.data }, null, 2),
    );
    expectEqual(refused, outputs['limit-refused'], 'a task over maxRunningTasksPerOwner');
    for (const { task } of running) await client.experimental.tasks.cancelTask(task.taskId);
  } finally {
    await client.close();
    await listener.close();
  }
}
