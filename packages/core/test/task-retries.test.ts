import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { Context, createMcpApp, type HttpListener, McpServer, Tool } from '../src/index.js';

// What a task's handler learns of its run, on one instance (in memory: a task runs once); the
// runs again across instances are tested on Redis (packages/redis/test/task-retries.test.ts).

@McpServer({ name: 'retries-test', version: '1.0.0' })
class RunServer {
  @Tool({ description: 'Says which run it is', task: { support: 'optional', retries: 2 } })
  run(ctx: Context) {
    return JSON.stringify({ attempt: ctx.attempt, key: ctx.idempotencyKey ?? null });
  }
}

const listeners: HttpListener[] = [];
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((listener) => listener.close()));
});

async function client(): Promise<V1Client> {
  const listener = await createMcpApp(RunServer, { tasks: { pollIntervalMs: 20 } }).listenHttp({ port: 0 });
  listeners.push(listener);
  const v1 = new V1Client({ name: 'retries-v1', version: '1.0.0' });
  await v1.connect(new V1Transport(new URL(listener.url)));
  return v1;
}

async function runAsTask(v1: V1Client): Promise<{ taskId: string; seen: { attempt: number; key: string | null } }> {
  const { task } = await v1.request({ method: 'tools/call', params: { name: 'run', arguments: {}, task: {} } }, CreateTaskResultSchema);
  const result = await v1.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
  return { taskId: task.taskId, seen: JSON.parse((result.content as { text: string }[])[0]?.text ?? '{}') };
}

describe('a task handler knows its run (ctx.attempt, ctx.idempotencyKey)', () => {
  it('gives a task attempt 1 and a key of its own that is not its id; an ordinary call attempt 1 and no key', async () => {
    const v1 = await client();
    try {
      const first = await runAsTask(v1);
      const second = await runAsTask(v1);
      expect(first.seen.attempt).toBe(1);
      expect(first.seen.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // Not the task id: on 2026-07-28 an anonymous task's id is a bearer token, and the key goes to other services.
      expect(first.seen.key).not.toContain(first.taskId);
      expect(second.seen.key).not.toBe(first.seen.key);
      const plain = await v1.callTool({ name: 'run', arguments: {} });
      expect(JSON.parse((plain.content as { text: string }[])[0]?.text ?? '{}')).toEqual({ attempt: 1, key: null });
    } finally {
      await v1.close();
    }
  });

  it('refuses retries that are not a whole number from 0 to 10 at start-up, naming the method [ARM155]', () => {
    for (const retries of [-1, 1.5, 11, '1']) {
      @McpServer({ name: 'bad-retries', version: '1.0.0' })
      class BadRetries {
        @Tool({ description: 'x', task: { support: 'required', retries: retries as number } })
        x() {
          return 'x';
        }
      }
      expect(() => createMcpApp(BadRetries)).toThrow(
        `BadRetries.x: task.retries is ${JSON.stringify(retries)}; it must be a whole number from 0 (run once, the default) to 10 [ARM155]\n     Fix: @Tool({ description: '...', task: { support: 'required', retries: 1 } })`,
      );
    }
  });

  it('refuses a spelled-out task option whose support is not optional or required [ARM120]', () => {
    @McpServer({ name: 'bad-support', version: '1.0.0' })
    class BadSupport {
      @Tool({ description: 'x', task: { support: 'always' as never } })
      x() {
        return 'x';
      }
    }
    expect(() => createMcpApp(BadSupport)).toThrow('BadSupport.x: task is {"support":"always"}; it must be');
  });
});
