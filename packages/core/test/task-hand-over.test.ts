import { IsOptional, IsString } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ArmatureBuildError,
  Context,
  createMcpApp,
  Field,
  type HttpListener,
  McpError,
  McpServer,
  type TaskOptions,
  Tool,
} from '../src/index.js';
import { connectInMemory } from './support/clients.js';
import { gate } from './support/gate.js';
import { modernRpc, WITH_TASKS } from './support/modern-rpc.js';
import { until } from './support/until.js';

// ctx.continueAsTask() (tools declared `task: { start: 'continueAsTask' }`): on 2026-07-28 the call
// asks in its input_required rounds (SEP-2322), then is answered with a task (SEP-2663) and the
// handler goes on as one. Raw HTTP for 2026-07-28: the v2 client 2.4.0 refuses `resultType: 'task'`;
// the official client for 2025-11-25.

class Who {
  @Field('Your name')
  @IsOptional()
  @IsString()
  name?: string;
}

let release = gate();
const events: string[] = [];

@McpServer({ name: 'hand-over', version: '1.0.0' })
class HandOver {
  @Tool({ description: 'Asks a name, goes on as a task, asks again inside it', task: { support: 'required', start: 'continueAsTask' } })
  async greet(ctx: Context) {
    const signal = ctx.signal; // read before the hand-over: must follow the task after it
    signal.addEventListener('abort', () => events.push('aborted'));
    const who = await ctx.elicit('Who are you?', Who);
    const name = who.action === 'accept' ? (who.content.name ?? '?') : who.action;
    await ctx.continueAsTask();
    events.push('handed over');
    await ctx.progress(1, 2, `greeting ${name}`);
    await release.opened;
    signal.throwIfAborted();
    const again = await ctx.elicit('Are you sure?', Who);
    return `Hello, ${name}! (${again.action === 'accept' ? (again.content.name ?? '?') : again.action})`;
  }

  @Tool({ description: 'Goes on as a task when it can, else as a call', task: { support: 'optional', start: 'continueAsTask' } })
  async maybe(ctx: Context) {
    await ctx.continueAsTask();
    await ctx.continueAsTask(); // a second call changes nothing
    return 'done';
  }

  @Tool({ description: 'Fails once it is a task', task: { support: 'required', start: 'continueAsTask' } })
  async breaks(ctx: Context) {
    await ctx.continueAsTask();
    throw new McpError(-32603, 'broke in the background');
  }

  @Tool({ description: 'Does not wait for the hand-over', task: { support: 'required', start: 'continueAsTask' } })
  hasty(ctx: Context) {
    void ctx.continueAsTask();
    return 'returned at once';
  }

  @Tool({ description: 'Not declared for it, calls it anyway', task: 'optional' })
  async misuses(ctx: Context) {
    await ctx.continueAsTask();
    return 'unreachable';
  }

  destroy() {
    events.push('disposed');
  }
}

/** What createMcpApp threw for `server`: an ArmatureBuildError. */
function startUpError(server: new () => object): Error {
  try {
    createMcpApp(server);
  } catch (error) {
    expect(error).toBeInstanceOf(ArmatureBuildError);
    return error as Error;
  }
  throw new Error('createMcpApp did not throw');
}

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
  events.length = 0;
  release = gate();
});

async function listen(tasks: TaskOptions = {}, errors: unknown[] = []): Promise<HttpListener> {
  const app = createMcpApp(HandOver, { onError: (error) => errors.push(error), tasks: { pollIntervalMs: 20, ...tasks } });
  const listener = await app.listenHttp({ port: 0 });
  open.push(() => listener.close());
  return listener;
}

const ASKING = { ...WITH_TASKS, elicitation: { form: {} } };
const call = (url: string, name: string, extra: Record<string, unknown> = {}, capabilities: Record<string, unknown> = ASKING) =>
  modernRpc(url, 'tools/call', { name, arguments: {}, ...extra }, capabilities);
/** Takes a result as it comes (the v2 client has no schema for 2025-11-25 tasks/result). */
const asIs = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } } as const;
const getTask = (url: string, taskId: string) => modernRpc(url, 'tasks/get', { taskId }, WITH_TASKS);

const statusIs = (url: string, taskId: string, ...statuses: string[]) =>
  until(
    () => getTask(url, taskId),
    (a) => statuses.includes(String(a.body.result?.status)),
    statuses.join(' or '),
  );

/** Round 1 (input_required) and round 2 (the task) of `greet`, answering `name`. */
async function handOver(url: string, name: string): Promise<string> {
  const first = await call(url, 'greet');
  expect(first.body.result).toMatchObject({ resultType: 'input_required' });
  expect(first.body.result).not.toHaveProperty('taskId');
  const [key] = Object.keys(first.body.result?.inputRequests ?? {});
  const second = await call(url, 'greet', {
    inputResponses: { [String(key)]: { action: 'accept', content: { name } } },
    requestState: first.body.result?.requestState,
  });
  expect(second.body.result).toMatchObject({ resultType: 'task', status: 'working' });
  expect(second.body.result).not.toHaveProperty('requestState');
  expect(second.body.result).not.toHaveProperty('inputRequests');
  return String(second.body.result?.taskId);
}

describe('ctx.continueAsTask() on 2026-07-28 with the tasks extension', () => {
  it('asks in the call rounds, answers the last round with a task, and goes on in the background with the same scope', async () => {
    const { url } = await listen();
    const taskId = await handOver(url, 'Alice');
    // The handler runs on: its progress is the task's status, its scope is not disposed yet.
    const working = await until(
      () => getTask(url, taskId),
      (a) => a.body.result?.statusMessage === '1/2: greeting Alice',
      'the progress',
    );
    expect(working.body.result?.status).toBe('working');
    // Round 1 ended with input_required (its scope disposed); round 2's scope is still open.
    expect(events).toEqual(['disposed', 'handed over']);
    release.open();
    // A question after the hand-over goes through the task's inputRequests, answered by tasks/update.
    const asking = await statusIs(url, taskId, 'input_required');
    const [key] = Object.keys(asking.body.result?.inputRequests ?? {});
    expect(asking.body.result?.inputRequests).toMatchObject({ [String(key)]: { method: 'elicitation/create' } });
    await modernRpc(
      url,
      'tasks/update',
      { taskId, inputResponses: { [String(key)]: { action: 'accept', content: { name: 'yes' } } } },
      WITH_TASKS,
    );
    const done = await statusIs(url, taskId, 'completed', 'failed');
    expect(done.body.result).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Hello, Alice! (yes)' }] } });
    // The DI scope of the call was disposed once the task ended, not when the call was answered.
    // (The task's signal aborts once it is terminal, as any task's: not counted here.)
    expect(events.filter((e) => e !== 'aborted')).toEqual(['disposed', 'handed over', 'disposed']);
  });

  it('cancels the handed-over handler through tasks/cancel, aborting the signal it read before the hand-over', async () => {
    const { url } = await listen();
    const taskId = await handOver(url, 'Bob');
    await until(
      () => getTask(url, taskId),
      () => events.includes('handed over'),
      'the hand-over',
    );
    expect(events).not.toContain('aborted'); // the call's answer did not abort the handler
    const cancelled = await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS);
    expect(cancelled.body.error).toBeUndefined();
    await until(
      () => getTask(url, taskId),
      () => events.includes('aborted'),
      'the abort',
    );
    release.open();
    expect((await statusIs(url, taskId, 'cancelled')).body.result?.status).toBe('cancelled');
  });

  it('fails the task with the JSON-RPC error the handler raised after the hand-over', async () => {
    const { url } = await listen();
    const created = await call(url, 'breaks');
    expect(created.body.result).toMatchObject({ resultType: 'task' });
    const failed = await statusIs(url, String(created.body.result?.taskId), 'failed', 'completed');
    expect(failed.body.result).toMatchObject({ status: 'failed', error: { code: -32603, message: 'broke in the background' } });
  });

  it('answers with the task a handler that asked for it without waiting, and settles it with what the handler returned', async () => {
    const { url } = await listen();
    const created = await call(url, 'hasty');
    expect(created.body.result).toMatchObject({ resultType: 'task' });
    const done = await statusIs(url, String(created.body.result?.taskId), 'completed', 'failed');
    expect(done.body.result).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'returned at once' }] } });
  });

  it('refuses the task at a limit with its -32600 error, and creates none', async () => {
    const { url } = await listen({ limits: { maxRunningTasksPerOwner: 1 } });
    const first = await handOver(url, 'Carol');
    const refused = await call(url, 'breaks');
    expect(refused.body.error).toMatchObject({ code: -32600, data: { limit: 'maxRunningTasksPerOwner', max: 1 } });
    release.open();
    await statusIs(url, first, 'input_required');
  });

  it('refuses a forged or foreign requestState before the handler runs: no task is created', async () => {
    const { url } = await listen();
    const first = await call(url, 'greet');
    const [key] = Object.keys(first.body.result?.inputRequests ?? {});
    const forged = await call(url, 'greet', {
      inputResponses: { [String(key)]: { action: 'accept', content: { name: 'Mallory' } } },
      requestState: `${String(first.body.result?.requestState)}x`,
    });
    expect(forged.body.error?.code).toBe(-32602);
    const unasked = await call(url, 'greet', { inputResponses: { [String(key)]: { action: 'accept', content: { name: 'Mallory' } } } });
    expect(unasked.body.error?.code).toBe(-32602);
    expect(events).not.toContain('handed over');
  });
});

describe('ctx.continueAsTask() where the call cannot become a task', () => {
  it('2026-07-28 without the extension: an optional tool goes on as an ordinary call, a required one answers -32021 before it runs', async () => {
    const { url } = await listen();
    const inline = await call(url, 'maybe', {}, {});
    expect(inline.body.result).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
    const required = await call(url, 'greet', {}, { elicitation: { form: {} } });
    expect(required.body.error?.code).toBe(-32021);
    expect(events).not.toContain('handed over');
  });

  it('2025-11-25: an ordinary call goes on synchronously; a task-augmented call is a task from the start', async () => {
    const app = createMcpApp(HandOver, { onError: () => undefined, tasks: { pollIntervalMs: 20 } });
    const { client, close } = await connectInMemory(app);
    open.push(close);
    const result = await client.callTool({ name: 'maybe', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'done' }]);
    const created = (await client.callTool({ name: 'maybe', arguments: {}, task: {} } as never)) as unknown as { task: { taskId: string } };
    const ended = await client.request({ method: 'tasks/result', params: { taskId: created.task.taskId } } as never, asIs as never);
    expect(ended).toMatchObject({ content: [{ type: 'text', text: 'done' }] });
  });

  it('a tool not declared with start: continueAsTask gets an error naming the fix, reported to onError', async () => {
    const errors: unknown[] = [];
    const { url } = await listen({}, errors);
    const answer = await call(url, 'misuses', {}, {});
    expect(answer.body.result).toMatchObject({ isError: true });
    expect(String(errors[0])).toContain("@Tool({ task: { support: 'optional' | 'required', start: 'continueAsTask' } })");
  });

  it('refuses at start-up a tool that goes on as a task and has retries (ARM152): a run again could not ask again', () => {
    @McpServer({ name: 'retried-start', version: '1.0.0' })
    class RetriedStart {
      @Tool({ description: 'Retried', task: { support: 'required', start: 'continueAsTask', retries: 1 } })
      retried() {
        return 'x';
      }
    }
    const thrown = startUpError(RetriedStart);
    expect(thrown.message).toContain("RetriedStart.retried: task.start is 'continueAsTask' and task.retries is 1");
    expect(thrown.message).toContain('[ARM152]');
  });

  it('refuses at start-up a task start that is not one of its values (ARM151)', () => {
    @McpServer({ name: 'bad-start', version: '1.0.0' })
    class BadStart {
      @Tool({ description: 'Bad', task: { support: 'optional', start: 'later' as never } })
      bad() {
        return 'x';
      }
    }
    const thrown = startUpError(BadStart);
    expect(thrown.message).toContain('BadStart.bad: task.start is "later"');
    expect(thrown.message).toContain('[ARM151]');
  });
});
