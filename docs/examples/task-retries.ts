import { Context, createMcpApp, McpServer, Tool } from '@armature/core';
import { redisState } from '@armature/redis';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expectEqual } from './support/check.js';

/** Stands in for a payment provider that deduplicates by idempotency key (as most do). */
const charged = new Map<string, number>();
export async function chargeCard(amount: number, idempotencyKey: string): Promise<string> {
  if (!charged.has(idempotencyKey)) charged.set(idempotencyKey, amount);
  return `charge-${charged.size}`;
}

// #region durable
@McpServer({ name: 'billing', version: '1.0.0' })
export class BillingServer {
  @Tool({
    description: 'Bill every customer of the month (takes minutes: runs as a task)',
    task: { support: 'required', retries: 2 }, // runs again, twice at most, if its instance dies
  })
  async billMonth(ctx: Context) {
    await ctx.progress(0, 1, `attempt ${ctx.attempt}`);
    // The same key in every attempt: the provider charges once however many times this runs.
    const charge = await chargeCard(4_200, ctx.idempotencyKey ?? 'not a task');
    return `billed (${charge}, attempt ${ctx.attempt})`;
  }
}

export const durableApp = (redisUrl: string) =>
  createMcpApp(BillingServer, {
    state: redisState({ url: redisUrl }), // retries need a shared state: another instance runs the task again
    requestStateKey: process.env.MCP_REQUEST_STATE_KEY,
    tasks: { leaseMs: 30_000 }, // an instance silent this long has stopped; its tasks run again elsewhere
  });
// #endregion

// #region caps
export const cappedApp = createMcpApp(BillingServer, {
  tasks: {
    limits: {
      maxOpenTasksPerOwner: 100, // per caller: its principal, else its client address (trustProxy honoured)
      maxResultBytesPerOwner: 16 * 1024 * 1024,
      maxOpenTasks: 10_000, // the whole server (with redisState: all instances together)
      maxResultBytes: 256 * 1024 * 1024,
    },
  },
});
// #endregion

// #region fallback
export const fallbackApp = createMcpApp(BillingServer, {
  tasks: {
    // Off by default: tools that stand in for tasks/get, tasks/result and tasks/cancel.
    fallbackTools: { status: 'task_status', result: 'task_result', cancel: 'task_cancel' },
  },
});
// #endregion

export const outputs: Record<string, string> = {
  'fallback-started':
    'Started task <taskId>: it runs in the background. Call the tool "task_status" with {"taskId": "<taskId>"} to see how it goes, "task_result" with the same arguments for its result once it is completed, or "task_cancel" to stop it',
};

export async function main(): Promise<void> {
  // #region fallback-client
  const listener = await fallbackApp.listenHttp({ port: 0 });
  // A client that knows nothing of tasks (no tasks capability, no polling).
  const client = new Client({ name: 'plain-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
  const started = await client.callTool({ name: 'billMonth', arguments: {} }); // answers at once
  const { taskId } = started.structuredContent as { taskId: string };
  // ... later, as the answer says:
  const status = await client.callTool({ name: 'task_status', arguments: { taskId } });
  const result = await client.callTool({ name: 'task_result', arguments: { taskId } });
  // #endregion
  try {
    const textOf = (r: { content?: unknown }) => (r.content as { text: string }[])[0]?.text.replaceAll(taskId, '<taskId>') ?? '';
    expectEqual(textOf(started), outputs['fallback-started'], 'the started answer');
    expectEqual(/^Task <taskId> is (working|completed)/.test(textOf(status)), true, 'the status answer');
    let final = result;
    for (let i = 0; i < 100 && textOf(final).includes('still'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      final = await client.callTool({ name: 'task_result', arguments: { taskId } });
    }
    // In memory a task runs once: attempt 1.
    expectEqual(textOf(final), 'billed (charge-1, attempt 1)', 'the result through task_result');
    await client.close();
  } finally {
    await listener.close();
  }
  await cappedApp.close();
}
