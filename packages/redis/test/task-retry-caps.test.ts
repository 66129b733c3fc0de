import { fileURLToPath } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { expect, it } from 'vitest';
import { type Instance, stopInstance, useCluster } from './support/cluster.js';
import { until } from './support/until.js';

// A task run again on another instance (retries) counts against the running caps there: its first
// run's share lapsed with the lease of the instance that died, and without counting it again the
// run again escaped maxRunningTasksPerOwner. Two real processes on one Redis behind the proxy.

const FIXTURE = fileURLToPath(new URL('./fixtures/retry-instance.mjs', import.meta.url));
const cluster = useCluster(['a', 'b'], { fixture: FIXTURE, env: { TASK_LIMITS: JSON.stringify({ maxRunningTasksPerOwner: 1 }) } });

it('counts a task run again on another instance against maxRunningTasksPerOwner', { timeout: 60_000 }, async () => {
  const client = new V1Client({ name: 'retry-caps', version: '1.0.0' });
  await client.connect(new V1Transport(cluster.proxy.url));
  const create = () =>
    client.request({ method: 'tools/call', params: { name: 'lingering', arguments: {}, task: {} } }, CreateTaskResultSchema).then(
      ({ task }) => task.taskId,
      (error: { code: number; data?: { limit?: string } }) => ({ code: error.code, limit: error.data?.limit }),
    );
  try {
    const taskId = await create();
    expect(typeof taskId).toBe('string');
    // The caller holds its one running task: a second one is refused.
    expect(await create()).toEqual({ code: -32600, limit: 'maxRunningTasksPerOwner' });
    const first = await until(
      () => client.experimental.tasks.getTask(taskId as string),
      (t) => /^1\/2: attempt 1 on /.test(t.statusMessage ?? ''),
      'the first run',
    );
    const [, ranOn] = /attempt 1 on (\w+)/.exec(first.statusMessage ?? '') ?? [];
    await stopInstance(cluster.instances.find((instance) => instance.name === ranOn) as Instance, 'SIGKILL');
    await until(
      () => client.experimental.tasks.getTask(taskId as string),
      (t) => /^2\/2: attempt 2 on /.test(t.statusMessage ?? ''),
      'the run again on the other instance',
    );
    // Past the dead instance's lease, the task runs again: still the caller's one running task.
    expect(await create()).toEqual({ code: -32600, limit: 'maxRunningTasksPerOwner' });
    await client.experimental.tasks.cancelTask(taskId as string);
    const next = await until(create, (answer) => typeof answer === 'string', 'a task once the run again was cancelled');
    await client.experimental.tasks.cancelTask(next as string);
  } finally {
    await client.close();
  }
});
