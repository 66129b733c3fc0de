import type { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpApp, type ExecutionContext, type Guard, McpServer, RATE_LIMITED, Tool } from '../src/index.js';
import { connectHttp } from './support/clients.js';
import { modernRpc, WITH_TASKS } from './support/modern-rpc.js';

// The task methods are the tasks extension's methods: the app's guards and rate limits apply to
// tasks/get as to any other request, over real HTTP with the official client, on both revisions.

const TASKS = 'io.modelcontextprotocol/tasks';
const DENY = 'com.example/deny';

/** Refuses a tasks/get whose request `_meta` asks to be refused; lets everything else through. */
const refuseMarkedTaskGets: Guard = {
  canActivate: (context: ExecutionContext) =>
    !(context.kind === 'method' && context.name === 'tasks/get' && context.context.meta[DENY] === true),
};

@McpServer({ name: 'guarded-tasks', version: '1.0.0' })
class GuardedTaskServer {
  @Tool({ description: 'Runs as a task and answers at once', task: 'required' })
  quick() {
    return 'done';
  }
}

/** Any result, as it is: the task methods have no result schema in the v2 client. */
const asIs = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } } as const;

interface Refusal {
  code: number;
  message: string;
}

async function refusal(request: Promise<unknown>): Promise<Refusal> {
  try {
    await request;
  } catch (error) {
    return error as Refusal;
  }
  throw new Error('the request was answered, not refused');
}

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((close) => close()));
});

/** The app with the guard and an app-wide limit of 3 calls a minute per method (tools/call counts apart). */
async function serve(modern: boolean): Promise<{ client: Client; url: string }> {
  const app = createMcpApp(GuardedTaskServer, {
    guards: [refuseMarkedTaskGets],
    rateLimits: [{ limit: 3, windowMs: 60_000, by: ['tool'] }],
  });
  const connected = await connectHttp(app, { modern, ...(modern ? { capabilities: { extensions: { [TASKS]: {} } } } : {}) });
  open.push(async () => {
    await connected.close();
    await app.close();
  });
  return connected;
}

/**
 * Starts `quick` as a task and returns its id: on 2025-11-25 with the `task` param; on 2026-07-28
 * as a raw request declaring the extension (the v2 client, 2.4.0, cannot decode a task answer to
 * tools/call; an anonymous caller's task is polled by its id).
 */
async function startTask(client: Client, url: string, modern: boolean): Promise<string> {
  if (modern) {
    const { body } = await modernRpc(url, 'tools/call', { name: 'quick', arguments: {} }, WITH_TASKS);
    expect(body.result?.resultType).toBe('task');
    return body.result?.taskId as string;
  }
  const params = { name: 'quick', arguments: {}, task: {} };
  const created = (await client.request({ method: 'tools/call', params } as never, asIs as never)) as { task: { taskId: string } };
  return created.task.taskId;
}

describe.each([
  ['2025-11-25', false],
  ['2026-07-28', true],
])('tasks/get under the app guards and rate limits (%s over HTTP)', (_revision, modern) => {
  it('refuses a tasks/get the guard refuses as if the method did not exist, and rate-limits tasks/get', async () => {
    const { client, url } = await serve(modern);
    const taskId = await startTask(client, url, modern);
    const get = (meta?: Record<string, unknown>) =>
      client.request({ method: 'tasks/get', params: { taskId, ...(meta ? { _meta: meta } : {}) } } as never, asIs as never);

    // The guard refuses this one: -32601, as for a method the caller may not see.
    const refused = await refusal(get({ [DENY]: true }));
    expect(refused.code).toBe(-32601);
    expect(refused.message).toMatch(/tasks\/get/);

    // Three calls a minute: the refused call was not counted (guards come first), the fourth is limited.
    for (let i = 0; i < 3; i++) expect(((await get()) as { taskId?: string }).taskId).toBe(taskId);
    const limited = await refusal(get());
    expect(limited.code).toBe(RATE_LIMITED);
    expect(limited.message).toMatch(/Rate limit reached: method "tasks\/get" allows 3 calls per 60 s/);
  });
});
