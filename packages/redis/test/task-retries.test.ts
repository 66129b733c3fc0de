import { fileURLToPath } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { type Instance, stopInstance, useCluster } from './support/cluster.js';
import { until } from './support/until.js';

// Tasks that outlive their instance: three real processes on one Redis behind a round-robin
// proxy; the instance running a task is SIGKILLed, and the client polls tasks/get through the others.

const FIXTURE = fileURLToPath(new URL('./fixtures/retry-instance.mjs', import.meta.url));

// Four: each test kills one, and three stay for the last.
const cluster = useCluster(['a', 'b', 'c', 'd'], { fixture: FIXTURE });

async function v1(): Promise<V1Client> {
  const client = new V1Client({ name: 'retries-v1', version: '1.0.0' });
  await client.connect(new V1Transport(cluster.proxy.url));
  return client;
}

/** Starts the task tool `name`, waits for its first run to report, and SIGKILLs the instance running it. */
async function killTheRunner(client: V1Client, name: string) {
  const { task } = await client.request({ method: 'tools/call', params: { name, arguments: {}, task: {} } }, CreateTaskResultSchema);
  const first = await until(
    () => client.experimental.tasks.getTask(task.taskId),
    (t) => /^1\/2: attempt 1 on /.test(t.statusMessage ?? ''),
    'the first run to start',
  );
  const [, ranOn, key] = /attempt 1 on (\w+), key (\S+)$/.exec(first.statusMessage ?? '') ?? [];
  const runner = cluster.instances.find((instance) => instance.name === ranOn) as Instance;
  await stopInstance(runner, 'SIGKILL');
  return { taskId: task.taskId, ranOn: ranOn as string, key: key as string };
}

/** A 2026-07-28 request through the proxy, declaring the tasks extension. */
async function extension(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(cluster.proxy.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': String(params.name ?? params.taskId),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'retries-raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
        },
      },
    }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
  return (JSON.parse(json) as { result: Record<string, unknown> }).result;
}

describe('task retries on the Redis state, through several instances', () => {
  it('runs a task of the 2026-07-28 extension again when its instance is SIGKILLed; tasks/get shows the result inline', async () => {
    const created = await extension('tools/call', { name: 'durable', arguments: {} });
    const taskId = created.taskId as string;
    const first = await until(
      () => extension('tasks/get', { taskId }),
      (t) => /^1\/2: attempt 1 on /.test(String(t.statusMessage)),
      'the first run to start',
    );
    const [, ranOn] = /attempt 1 on (\w+),/.exec(String(first.statusMessage)) ?? [];
    await stopInstance(cluster.instances.find((instance) => instance.name === ranOn) as Instance, 'SIGKILL');
    const done = await until(
      () => extension('tasks/get', { taskId }),
      (t) => t.status !== 'working',
      'the task to run again and finish',
    );
    expect(done.status).toBe('completed');
    const text = ((done.result as { content: { text: string }[] }).content[0] as { text: string }).text;
    expect(text).toMatch(/^finished on \w+, attempt 2, key \S+$/);
    expect(text).not.toContain(`finished on ${ranOn},`);
  });

  it('runs a retries: 1 task again on another instance when the one running it is SIGKILLed; polling sees it complete', async () => {
    const client = await v1();
    try {
      const { taskId, ranOn, key } = await killTheRunner(client, 'durable');
      const done = await until(
        () => client.experimental.tasks.getTask(taskId),
        (t) => t.status !== 'working',
        'the task to run again and finish',
      );
      expect(done.status).toBe('completed');
      const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      const text = (result.content as { text: string }[])[0]?.text ?? '';
      const [, finishedOn, attempt, sameKey] = /^finished on (\w+), attempt (\d+), key (\S+)$/.exec(text) ?? [];
      expect(finishedOn).toBeDefined();
      expect(finishedOn).not.toBe(ranOn);
      expect(attempt).toBe('2');
      // The idempotency key is the same in both runs, and it is not the task id (a bearer token on 2026-07-28).
      expect(sameKey).toBe(key);
      expect(key).not.toContain(taskId);
    } finally {
      await client.close();
    }
  });

  it('fails a retries: 0 task with the documented text once the lease of its killed instance lapses', async () => {
    const client = await v1();
    try {
      const { taskId } = await killTheRunner(client, 'fragile');
      const failed = await until(
        () => client.experimental.tasks.getTask(taskId),
        (t) => t.status !== 'working',
        'the lease to lapse',
      );
      expect(failed.status).toBe('failed');
      expect(failed.statusMessage).toBe(
        'The server instance running this task stopped answering for it (no lease renewal within 1000 ms); the task is failed. Call the tool again to retry',
      );
    } finally {
      await client.close();
    }
  });
});
