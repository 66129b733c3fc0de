import { IsBoolean, IsString } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { Context, createMcpApp, Field, type HttpListener, McpServer, type TaskOptions, Tool } from '../src/index.js';
import { modernRpc, type RpcAnswer, WITH_TASKS } from './support/modern-rpc.js';
import { tokenAuth } from './support/token-auth.js';

// Questions asked inside a running task on 2026-07-28 (tasks extension, SEP-2663): the task is
// input_required with the question in tasks/get's inputRequests, tasks/update's inputResponses
// resume it, and a question never answered fails it once tasks.inputTimeoutMs passes. Raw HTTP:
// the v2 client 2.4.0 refuses `resultType: 'task'`.

class Release {
  @Field('Whether to publish')
  @IsBoolean()
  publish!: boolean;

  @Field('The release notes')
  @IsString()
  notes!: string;
}

const aborted: string[] = [];

@McpServer({ name: 'questions', version: '1.0.0' })
class Questions {
  @Tool({ description: 'Builds, asks whether to publish, then publishes', task: 'required' })
  async release(ctx: Context) {
    await ctx.progress(1, 2, 'built');
    const answer = await ctx.elicit('Publish the build?', Release);
    if (answer.action !== 'accept') return `not published (${answer.action})`;
    await ctx.progress(2, 2, 'publishing');
    return answer.content.publish ? `published: ${answer.content.notes}` : 'kept';
  }

  @Tool({ description: 'Asks the model, the roots and a URL in turn', task: 'required' })
  async survey(ctx: Context) {
    const sampled = await ctx.sample('Name a colour', { maxTokens: 5 });
    const roots = await ctx.roots();
    const visited = await ctx.elicitUrl('Sign in', 'https://example.com/sign-in');
    const text = sampled.content.type === 'text' ? sampled.content.text : '?';
    return `${text}; ${roots.map((r) => r.uri).join(',')}; ${visited.action}`;
  }

  @Tool({ description: 'Asks two questions at once', task: 'required' })
  async pair(ctx: Context) {
    const schema = { type: 'object' as const, properties: { n: { type: 'number' as const } } };
    const [a, b] = await Promise.all([ctx.elicit('First?', schema), ctx.elicit('Second?', schema)]);
    return `${a.action === 'accept' ? a.content.n : a.action} and ${b.action === 'accept' ? b.content.n : b.action}`;
  }

  @Tool({ description: 'Asks, and tells the test when its signal aborts', task: 'required' })
  async hold(ctx: Context) {
    ctx.signal.addEventListener('abort', () => aborted.push('hold'));
    await ctx.elicit('Anything?', { type: 'object', properties: {} });
    return 'answered';
  }
}

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
  aborted.length = 0;
});

async function listen(tasks: TaskOptions = {}, auth = false): Promise<HttpListener> {
  const app = createMcpApp(Questions, { onError: () => undefined, tasks: { pollIntervalMs: 20, ...tasks } });
  const listener = await app.listenHttp({
    port: 0,
    ...(auth ? tokenAuth() : {}),
  });
  open.push(() => listener.close());
  return listener;
}

/** A client that declares the tasks extension and can answer elicitations, sampling and roots. */
const ASKABLE = { ...WITH_TASKS, elicitation: { form: {}, url: {} }, sampling: {}, roots: {} };

async function createTask(url: string, name: string, capabilities: Record<string, unknown> = ASKABLE, token?: string): Promise<string> {
  const { body } = await modernRpc(url, 'tools/call', { name, arguments: {} }, capabilities, token);
  expect(body.result?.resultType).toBe('task');
  return String(body.result?.taskId);
}

const getTask = (url: string, taskId: string, token?: string) => modernRpc(url, 'tasks/get', { taskId }, WITH_TASKS, token);
const update = (url: string, taskId: string, inputResponses: unknown, token?: string) =>
  modernRpc(url, 'tasks/update', { taskId, inputResponses }, WITH_TASKS, token);

async function until(read: () => Promise<RpcAnswer>, done: (answer: RpcAnswer) => boolean, what: string): Promise<RpcAnswer> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const answer = await read();
    if (done(answer)) return answer;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(answer.body)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until the task asks `count` questions at once; returns tasks/get's answer. */
const asking = (url: string, taskId: string, count = 1, token?: string) =>
  until(
    () => getTask(url, taskId, token),
    (a) => a.body.result?.status === 'input_required' && Object.keys(a.body.result?.inputRequests ?? {}).length === count,
    `${count} question(s)`,
  );

const ended = (url: string, taskId: string) =>
  until(
    () => getTask(url, taskId),
    (a) => ['completed', 'failed', 'cancelled'].includes(String(a.body.result?.status)),
    'the end of the task',
  );

const keysOf = (answer: RpcAnswer) => Object.keys(answer.body.result?.inputRequests ?? {});
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('questions inside a task (2026-07-28)', () => {
  it('shows the question in tasks/get while input_required, and resumes with the answer sent through tasks/update', async () => {
    const { url } = await listen();
    const taskId = await createTask(url, 'release');
    const waiting = await asking(url, taskId);
    const [key] = keysOf(waiting);
    expect(key).toMatch(UUID);
    expect(waiting.body.result).toMatchObject({
      status: 'input_required',
      statusMessage: '1/2: built',
      inputRequests: {
        [key as string]: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Publish the build?',
            requestedSchema: {
              type: 'object',
              properties: { publish: { type: 'boolean' }, notes: { type: 'string' } },
              required: ['publish', 'notes'],
            },
          },
        },
      },
    });
    const ack = await update(url, taskId, { [key as string]: { action: 'accept', content: { publish: true, notes: 'fixes' } } });
    expect(ack.body.result).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    const done = await ended(url, taskId);
    expect(done.body.result).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'published: fixes' }] } });
    expect(done.body.result).not.toHaveProperty('inputRequests');
  });

  it('asks for sampling, roots and a URL elicitation in turn, each with a new key', async () => {
    const { url } = await listen();
    const taskId = await createTask(url, 'survey');
    const answers = [
      { role: 'assistant', content: { type: 'text', text: 'teal' }, model: 'm' },
      { roots: [{ uri: 'file:///work' }] },
      { action: 'accept' },
    ];
    const methods: string[] = [];
    const keys = new Set<string>();
    for (const answer of answers) {
      const waiting = await until(
        () => getTask(url, taskId),
        (a) => a.body.result?.status === 'input_required' && !keys.has(keysOf(a)[0] as string),
        'the next question',
      );
      const [key] = keysOf(waiting) as [string];
      keys.add(key);
      const requests = (waiting.body.result?.inputRequests ?? {}) as Record<string, { method: string }>;
      methods.push(requests[key]?.method as string);
      await update(url, taskId, { [key]: answer });
    }
    expect(methods).toEqual(['sampling/createMessage', 'roots/list', 'elicitation/create']);
    expect((await ended(url, taskId)).body.result?.result).toEqual({ content: [{ type: 'text', text: 'teal; file:///work; accept' }] });
  });

  it('keeps the task input_required, showing only the unanswered key, until every question at once is answered', async () => {
    const { url } = await listen();
    const taskId = await createTask(url, 'pair');
    const both = (await asking(url, taskId, 2)).body.result?.inputRequests as Record<string, { params: { message: string } }>;
    const keyOf = (message: string) => Object.keys(both).find((key) => both[key]?.params.message === message) as string;
    const [first, second] = [keyOf('First?'), keyOf('Second?')];
    await update(url, taskId, { [first]: { action: 'accept', content: { n: 1 } } });
    const after = await getTask(url, taskId);
    expect(after.body.result?.status).toBe('input_required');
    expect(keysOf(after)).toEqual([second]);
    // An answer to a key already answered is ignored, as the extension asks.
    await update(url, taskId, { [first]: { action: 'accept', content: { n: 9 } } });
    expect(keysOf(await getTask(url, taskId))).toEqual([second]);
    await update(url, taskId, { [second]: { action: 'decline' } });
    const text = (await ended(url, taskId)).body.result?.result as { content: Array<{ text: string }> };
    expect(text.content[0]?.text).toBe('1 and decline');
  });

  it('fails a task whose question is never answered once inputTimeoutMs passes, with a JSON-RPC error saying so', async () => {
    const { url } = await listen({ inputTimeoutMs: 300 });
    const taskId = await createTask(url, 'release');
    await asking(url, taskId);
    const failed = await ended(url, taskId);
    const message =
      "The client did not answer this task's question (inputRequests) within 300 ms (tasks.inputTimeoutMs); the task is failed. Answer with tasks/update while the task is input_required, or call the tool again";
    expect(failed.body.result).toMatchObject({ status: 'failed', statusMessage: message, error: { code: -32603, message } });
    expect(failed.body.result).not.toHaveProperty('inputRequests');
  });

  it('aborts the handler when the task is cancelled while it waits for an answer', async () => {
    const { url } = await listen();
    const taskId = await createTask(url, 'hold');
    const [key] = keysOf(await asking(url, taskId)) as [string];
    await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS);
    await until(
      async () => getTask(url, taskId),
      () => aborted.length === 1,
      'the handler to see its signal abort',
    );
    // Too late: the task is cancelled and stays so.
    await update(url, taskId, { [key]: { action: 'accept', content: {} } });
    expect((await getTask(url, taskId)).body.result).toMatchObject({ status: 'cancelled' });
  });

  it('fails the task with -32021 when the client that created it cannot answer that kind of question', async () => {
    const { url } = await listen();
    const taskId = await createTask(url, 'release', WITH_TASKS);
    const failed = await ended(url, taskId);
    expect(failed.body.result).toMatchObject({
      status: 'failed',
      error: {
        code: -32021,
        message: 'This tool needs form elicitation, which the client did not declare in its capabilities',
        data: { requiredCapabilities: { elicitation: { form: {} } } },
      },
    });
  });
});

describe('tasks.inputTimeoutMs', () => {
  it('refuses at start-up a timeout that is not a whole number of milliseconds, 1 or more, naming the fix', () => {
    for (const [bad, shown] of [
      [0, '0'],
      [-5, '-5'],
      [1.5, '1.5'],
      [Number.NaN, 'NaN'],
      ['60000', '"60000"'],
    ] as const) {
      expect(() => createMcpApp(Questions, { tasks: { inputTimeoutMs: bad as number } })).toThrow(
        [
          'Armature cannot start the MCP server: 1 problem in its options.',
          `  1. createMcpApp options: tasks.inputTimeoutMs is ${shown}; it must be a whole number of milliseconds, 1 or more (how long a task waits for the answer to a question) [ARM150]`,
          '     Fix: createMcpApp(Server, { tasks: { inputTimeoutMs: 10 * 60_000 } }), or leave it out for its default (10 minutes)',
        ].join('\n'),
      );
    }
  });
});

describe('tasks/update with hostile input', () => {
  it('takes malformed inputResponses (not a map, answers that are not objects) as no answer, and keeps waiting', async () => {
    const { url } = await listen();
    const taskId = await createTask(url, 'release');
    const [key] = keysOf(await asking(url, taskId)) as [string];
    for (const bad of [[1, 2], 'yes', 42, null, { [key]: 'accept' }, { [key]: [{ action: 'accept' }] }, { ['k'.repeat(5000)]: {} }]) {
      expect((await update(url, taskId, bad)).body.result?.resultType).toBe('complete');
    }
    const still = await getTask(url, taskId);
    expect(still.body.result?.status).toBe('input_required');
    expect(keysOf(still)).toEqual([key]);
    // The question is unharmed: a good answer still resumes the task.
    await update(url, taskId, { [key]: { action: 'accept', content: { publish: false, notes: '-' } } });
    expect((await ended(url, taskId)).body.result?.result).toEqual({ content: [{ type: 'text', text: 'kept' }] });
  });

  it('ignores answers to keys that are not outstanding (never asked, constructor, toString) and keeps waiting', async () => {
    const { url } = await listen();
    const taskId = await createTask(url, 'release');
    const [key] = keysOf(await asking(url, taskId)) as [string];
    const ack = await update(url, taskId, {
      constructor: { action: 'accept' },
      toString: { action: 'accept' },
      other: { action: 'accept' },
    });
    expect(ack.body.result?.resultType).toBe('complete');
    // A "__proto__" key never gets this far: the transport refuses the message (-32600).
    const proto = await update(url, taskId, JSON.parse('{"__proto__":{"action":"accept"}}'));
    expect(proto.body.error?.code).toBe(-32600);
    const still = await getTask(url, taskId);
    expect(still.body.result?.status).toBe('input_required');
    expect(keysOf(still)).toEqual([key]);
    await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS);
  });

  it('ends the call with a tool error when the answer is of the wrong kind or does not fit the form', async () => {
    const { url } = await listen();
    const wrongKind = await createTask(url, 'release');
    const [k1] = keysOf(await asking(url, wrongKind)) as [string];
    await update(url, wrongKind, { [k1]: { roots: [] } });
    expect((await ended(url, wrongKind)).body.result).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'The client answered the elicitation with a roots response' }], isError: true },
    });
    const invalid = await createTask(url, 'release');
    const [k2] = keysOf(await asking(url, invalid)) as [string];
    await update(url, invalid, { [k2]: { action: 'accept', content: { publish: 'yes' } } });
    const result = (await ended(url, invalid)).body.result?.result as { content: Array<{ text: string }> } | undefined;
    expect(result?.content[0]?.text).toMatch(/^The answer to "Publish the build\?" is invalid:/);
  });

  it("lets no other principal see or answer a task's question", async () => {
    const { url } = await listen({}, true);
    const taskId = await createTask(url, 'release', ASKABLE, 'token-ann');
    const [key] = keysOf(await asking(url, taskId, 1, 'token-ann')) as [string];
    const foreign = await update(url, taskId, { [key]: { action: 'accept', content: { publish: true, notes: 'x' } } }, 'token-bob');
    expect(foreign.body.error).toEqual({
      code: -32602,
      message: `Task not found: ${taskId} (it never existed, its ttl has passed, or it belongs to another caller)`,
    });
    expect((await getTask(url, taskId, 'token-ann')).body.result?.status).toBe('input_required');
    await modernRpc(url, 'tasks/cancel', { taskId }, WITH_TASKS, 'token-ann');
  });
});
