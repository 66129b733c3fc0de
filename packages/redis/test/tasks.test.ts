import { fileURLToPath } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { type Instance, stopInstance, useCluster } from './support/cluster.js';

// Tasks on the shared state: created on one instance, polled, listed, cancelled and read through
// the others (a strictly alternating proxy in front of two real processes).

const FIXTURE = fileURLToPath(new URL('./fixtures/task-instance.mjs', import.meta.url));

const cluster = useCluster(['a', 'b'], { fixture: FIXTURE });

async function v1(): Promise<V1Client> {
  const client = new V1Client({ name: 'tasks-v1', version: '1.0.0' });
  await client.connect(new V1Transport(cluster.proxy.url));
  return client;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The instance the proxy sent the latest tools/call of `taskTool` to. */
function runner(taskTool: string): string {
  const calls = cluster.proxy.routed.filter((r) => r.method === 'POST' && r.body.includes(`"name":"${taskTool}"`));
  return calls[calls.length - 1]?.instance as string;
}

describe('tasks on the Redis state, through two instances', () => {
  it('is created on one instance, polled and listed through both, and its result read on either', async () => {
    const client = await v1();
    try {
      const { task } = await client.request(
        { method: 'tools/call', params: { name: 'finish', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      const done = await until(
        () => client.experimental.tasks.getTask(task.taskId),
        (t) => t.status === 'completed',
        'the task to complete',
      );
      expect(done.taskId).toBe(task.taskId);
      // Once more, so that it is polled through both instances even when the first poll already saw it
      // completed (a loaded machine): the alternating proxy sends this one to the other instance.
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
      // Polled through both instances: the one that did not run it answered from Redis.
      expect(new Set(cluster.proxy.servedBy(`"taskId":"${task.taskId}"`))).toEqual(new Set(['a', 'b']));
      const listed = await client.experimental.tasks.listTasks();
      expect(listed.tasks.map((t) => [t.taskId, t.status])).toEqual([[task.taskId, 'completed']]);
      const first = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      const second = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      expect(first.content).toEqual([{ type: 'text', text: `finished on ${runner('finish')}` }]);
      expect(second.content).toEqual(first.content);
    } finally {
      await client.close();
    }
  });

  it('aborts the handler on the instance running it when the cancel lands on the other', async () => {
    const client = await v1();
    try {
      const { task } = await client.request(
        { method: 'tools/call', params: { name: 'hold', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      const ranOn = runner('hold');
      await until(
        () => client.experimental.tasks.getTask(task.taskId),
        (t) => t.statusMessage === `1/2: held by ${ranOn}`,
        'the task to report its progress',
      );
      // Send the cancel to the other instance: skip a turn of the proxy when it would go to the runner.
      const next = () => cluster.instances[cluster.proxy.routed.length % cluster.instances.length]?.name;
      if (next() === ranOn) await client.ping();
      expect(next()).not.toBe(ranOn);
      const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
      expect(cancelled.status).toBe('cancelled');
      expect(cluster.proxy.servedBy('"method":"tasks/cancel"').at(-1)).not.toBe(ranOn);
      // Ask both instances which runs they saw cancelled: only the runner did.
      const answers = new Map<string, string[]>();
      await until(
        async () => {
          const before = cluster.proxy.routed.length;
          const result = await client.callTool({ name: 'cancelledHere', arguments: {} });
          answers.set(
            cluster.proxy.routed[before]?.instance as string,
            JSON.parse((result.content as { text: string }[])[0]?.text ?? '[]'),
          );
          return answers.get(ranOn) ?? [];
        },
        (seen) => seen.includes(ranOn),
        'the runner to see its signal aborted',
      );
      expect(answers.get(ranOn)).toEqual([ranOn]);
      const other = ranOn === 'a' ? 'b' : 'a';
      expect(answers.get(other) ?? []).toEqual([]);
      expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    } finally {
      await client.close();
    }
  });

  // Last: it kills an instance.
  it('fails a task whose instance was killed once its lease lapses, instead of leaving it working', async () => {
    const client = await v1();
    try {
      const { task } = await client.request(
        { method: 'tools/call', params: { name: 'hold', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      const ranOn = cluster.instances.find((instance) => instance.name === runner('hold')) as Instance;
      await until(
        () => client.experimental.tasks.getTask(task.taskId),
        (t) => t.statusMessage === `1/2: held by ${ranOn.name}`,
        'the task to start',
      );
      await stopInstance(ranOn, 'SIGKILL');
      const failed = await until(
        () => client.experimental.tasks.getTask(task.taskId),
        (t) => t.status !== 'working',
        'the lease to lapse',
      );
      expect(failed.status).toBe('failed');
    } finally {
      await client.close();
    }
  });
});
