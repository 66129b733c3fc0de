import { Context, createMcpApp, Field, McpServer, Tool } from '@armature/core';
import { IsString } from 'class-validator';
import { expectEqual } from './support/check.js';
import { type Answer, mcp, shown } from './tasks-extension.js';

// A tool that asks first, in the tools/call rounds of 2026-07-28 (input_required), then goes on as
// a task: ctx.continueAsTask(). Called through the tasks extension with a plain fetch (`mcp` of
// examples/tasks-extension.ts): the official v2 client (2.4.0) does not speak the extension yet.

// #region server
class ReportOwner {
  @Field('Whose report to build')
  @IsString()
  name!: string;
}

@McpServer({ name: 'reports', version: '1.0.0' })
export class ReportServer {
  @Tool({
    description: 'Build the yearly report of someone (asks whose, then takes minutes)',
    task: { support: 'required', start: 'continueAsTask' },
  })
  async yearlyReport(ctx: Context) {
    // Asked in the call itself: the client answers and calls again (2026-07-28 rounds).
    const owner = await ctx.elicit('Whose report?', ReportOwner, { key: 'owner' });
    if (owner.action !== 'accept') return 'No report built.';
    // From here the call is answered with a task; the rest runs in the background.
    await ctx.continueAsTask();
    for (const quarter of [1, 2, 3, 4]) {
      ctx.signal.throwIfAborted(); // tasks/cancel aborts it
      await ctx.progress(quarter, 4, `quarter ${quarter}`); // the task's statusMessage
      await buildQuarter(owner.content.name, quarter);
    }
    return `The yearly report of ${owner.content.name} is ready`;
  }
}
// #endregion

/** Stands in for real work. */
export function buildQuarter(_name: string, _quarter: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 10));
}

export const app = createMcpApp(ReportServer, { tasks: { pollIntervalMs: 50 } });

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'reports', version: '1.0.0' } };

export const outputs: Record<string, string> = {
  asking: JSON.stringify(
    {
      resultType: 'input_required',
      inputRequests: {
        owner: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: 'Whose report?',
            requestedSchema: {
              type: 'object',
              properties: { name: { type: 'string', description: 'Whose report to build' } },
              required: ['name'],
            },
          },
        },
      },
      requestState: '<signed state>',
      _meta: SERVER_INFO,
    },
    null,
    2,
  ),
  created: JSON.stringify(
    {
      content: [],
      resultType: 'task',
      taskId: '<taskId>',
      status: 'working',
      statusMessage: 'The task is running',
      createdAt: '<time>',
      lastUpdatedAt: '<time>',
      ttlMs: 3_600_000,
      pollIntervalMs: 50,
      _meta: SERVER_INFO,
    },
    null,
    2,
  ),
  completed: JSON.stringify({ content: [{ type: 'text', text: 'The yearly report of Ada is ready' }] }, null, 2),
};

export async function main(): Promise<void> {
  // #region client
  const listener = await app.listenHttp({ port: 0 });
  const url = listener.url;
  const ASKING = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: { form: {} } };
  const call = { name: 'yearlyReport', arguments: {} };
  // Round 1: the tool asks (resultType: 'input_required'), no task yet.
  const asking = await mcp(url, 'tools/call', call, ASKING);
  // Round 2: the answer, with the signed state of round 1; the answer is the task.
  const created = await mcp(
    url,
    'tools/call',
    {
      ...call,
      inputResponses: { owner: { action: 'accept', content: { name: 'Ada' } } },
      requestState: asking.result?.requestState,
    },
    ASKING,
  );
  const { taskId, pollIntervalMs } = created.result ?? {}; // resultType: 'task'
  let task: Answer['result'] = created.result ?? {};
  while (task.status === 'working' || task.status === 'input_required') {
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
    task = (await mcp(url, 'tasks/get', { taskId })).result ?? {};
  }
  // #endregion
  try {
    expectEqual(shown(asking.result), JSON.parse(outputs.asking as string), 'round 1');
    expectEqual(shown(created.result), JSON.parse(outputs.created as string), 'round 2: the task');
    expectEqual(task.status, 'completed', 'the task status');
    expectEqual(task.result, JSON.parse(outputs.completed as string), 'the task result');
  } finally {
    await listener.close();
  }
}
