import { Context, createMcpApp, Field, McpServer, Tool } from '@armature/core';
import { IsBoolean, IsOptional, IsString } from 'class-validator';
import { expectEqual } from './support/check.js';
import { type Answer, mcp } from './tasks-extension.js';

// The example docs/tasks.md is built around: a task that reports progress and asks a question
// mid-task, run on 2026-07-28 through the tasks extension (the client is a plain fetch: the
// official v2 client 2.4.0 does not speak the extension yet).

// #region server
export class ReleaseInput {
  @Field('The version to release, e.g. 2.1.0')
  @IsString()
  version!: string;
}

/** What the task asks before it publishes: the form is this DTO, and the answer comes back validated. */
export class Approval {
  @Field('Publish the release?')
  @IsBoolean()
  publish!: boolean;

  @Field('Release notes')
  @IsOptional()
  @IsString()
  notes?: string;
}

@McpServer({ name: 'releases', version: '1.0.0' })
export class ReleaseServer {
  @Tool({ description: 'Build, test and publish a release (asks before publishing)', task: 'required' })
  async release(input: ReleaseInput, ctx: Context) {
    await ctx.progress(1, 3, `building ${input.version}`);
    await build(input.version, ctx.signal);
    await ctx.progress(2, 3, 'testing');
    await build('tests', ctx.signal);
    // The task is input_required until the client answers (tasks/update), then working again.
    const answer = await ctx.elicit(`Publish ${input.version}?`, Approval);
    if (answer.action !== 'accept' || !answer.content.publish) return `${input.version} built, not published`;
    await ctx.progress(3, 3, 'publishing');
    return `${input.version} published${answer.content.notes ? `: ${answer.content.notes}` : ''}`;
  }
}
// #endregion

/** Stands in for real work: a short pause that stops when the task is cancelled. */
export function build(_what: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, 30);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

// #region app
export const app = createMcpApp(ReleaseServer, {
  tasks: {
    pollIntervalMs: 50, // what clients are told to wait between two tasks/get
    inputTimeoutMs: 10 * 60_000, // a question not answered within 10 minutes fails the task (the default)
  },
});
// #endregion

/** The wire JSON with what changes from run to run replaced, as the guide shows it. */
function shown(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/"taskId":"[0-9a-f-]{36}"/g, '"taskId":"<taskId>"')
      .replace(/"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}":/g, '"<key>":')
      .replace(/"(createdAt|lastUpdatedAt)":"[^"]+"/g, '"$1":"<time>"'),
  );
}

/** Reads a listen stream's `notifications/tasks` until the server ends it; returns the statuses seen. */
async function statusesOf(response: Response): Promise<string[]> {
  const statuses: string[] = [];
  let text = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    text += new TextDecoder().decode(chunk);
  }
  for (const [, data] of text.matchAll(/^data: (.*)$/gm)) {
    const message = JSON.parse(data as string) as { method?: string; params?: { status: string } };
    // One line per change of status (progress changes the statusMessage only).
    if (message.method === 'notifications/tasks' && statuses.at(-1) !== message.params?.status)
      statuses.push(message.params?.status as string);
  }
  return statuses;
}

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'releases', version: '1.0.0' } };

export const outputs: Record<string, string> = {
  asking: JSON.stringify(
    {
      taskId: '<taskId>',
      status: 'input_required',
      statusMessage: '2/3: testing',
      createdAt: '<time>',
      lastUpdatedAt: '<time>',
      ttlMs: 3_600_000,
      pollIntervalMs: 50,
      inputRequests: {
        '<key>': {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Publish 2.1.0?',
            requestedSchema: {
              type: 'object',
              properties: {
                publish: { type: 'boolean', description: 'Publish the release?' },
                notes: { type: 'string', description: 'Release notes' },
              },
              required: ['publish'],
            },
          },
        },
      },
      resultType: 'complete',
      _meta: SERVER_INFO,
    },
    null,
    2,
  ),
  completed: JSON.stringify({ content: [{ type: 'text', text: '2.1.0 published: faster builds' }] }, null, 2),
  notifications: ['working', 'input_required', 'working', 'completed'].join('\n'),
  timeout: JSON.stringify(
    {
      code: -32603,
      message:
        "The client did not answer this task's question (inputRequests) within 200 ms (tasks.inputTimeoutMs); the task is failed. Answer with tasks/update while the task is input_required, or call the tool again",
    },
    null,
    2,
  ),
};

export async function main(): Promise<void> {
  const unanswered = createMcpApp(ReleaseServer, { tasks: { pollIntervalMs: 50, inputTimeoutMs: 200 } });
  const quiet = await unanswered.listenHttp({ port: 0 });
  // #region client
  // The client's capabilities, declared on every request: the tasks extension, and form elicitation.
  const CLIENT = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
  const listener = await app.listenHttp({ port: 0 });
  const url = listener.url;
  const created = await mcp(url, 'tools/call', { name: 'release', arguments: { version: '2.1.0' } }, CLIENT);
  const { taskId, pollIntervalMs } = created.result ?? {}; // resultType: 'task'
  const answered = new Set<string>();
  let task: Answer['result'] = created.result ?? {};
  while (task.status === 'working' || task.status === 'input_required') {
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
    task = (await mcp(url, 'tasks/get', { taskId }, CLIENT)).result ?? {};
    if (task.status !== 'input_required') continue;
    // Each key is one question (here an elicitation/create); the same key is shown until it is answered.
    const questions = Object.keys(task.inputRequests as object).filter((key) => !answered.has(key));
    for (const key of questions) answered.add(key);
    const inputResponses = Object.fromEntries(
      questions.map((key) => [key, { action: 'accept', content: { publish: true, notes: 'faster builds' } }]),
    );
    await mcp(url, 'tasks/update', { taskId, inputResponses }, CLIENT); // {}: the task resumes
  }
  // completed: task.result is what the tools/call would have answered; failed: task.error
  // #endregion
  try {
    expectEqual(task.result, JSON.parse(outputs.completed as string), 'the completed task');
    if (answered.size !== 1) throw new Error(`the task asked ${answered.size} questions, expected 1`);

    // #region listen
    const next = await mcp(url, 'tools/call', { name: 'release', arguments: { version: '2.1.0' } }, CLIENT);
    const stream = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'subscriptions/listen',
        params: {
          notifications: { taskIds: [next.result?.taskId] },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'my-client', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': CLIENT,
          },
        },
      }),
    });
    // notifications/tasks arrive on the stream: the task as tasks/get shows it, at each change;
    // the stream ends once the task is terminal.
    // #endregion
    const statuses = statusesOf(stream);
    let asked: Answer['result'] = {};
    while (asked.status !== 'input_required') asked = (await mcp(url, 'tasks/get', { taskId: next.result?.taskId }, CLIENT)).result ?? {};
    expectEqual(shown(asked), JSON.parse(outputs.asking as string), 'the task asking');
    const [key] = Object.keys(asked.inputRequests as object);
    await mcp(
      url,
      'tasks/update',
      { taskId: next.result?.taskId, inputResponses: { [key as string]: { action: 'accept', content: { publish: true } } } },
      CLIENT,
    );
    expectEqual((await statuses).join('\n'), outputs.notifications, 'the statuses on the listen stream');

    // Nobody answers: the task fails once inputTimeoutMs passes.
    const lonely = await mcp(quiet.url, 'tools/call', { name: 'release', arguments: { version: '2.1.0' } }, CLIENT);
    let failed: Answer['result'] = {};
    while (failed.status !== 'failed') failed = (await mcp(quiet.url, 'tasks/get', { taskId: lonely.result?.taskId }, CLIENT)).result ?? {};
    expectEqual(failed.error, JSON.parse(outputs.timeout as string), 'the unanswered task');
  } finally {
    await listener.close();
    await quiet.close();
  }
}
