import { fileURLToPath } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { stopInstance, useCluster } from './support/cluster.js';

// The task limits on the Redis state: three real instances behind a strictly alternating proxy
// count together, so a cap holds in total, not per instance.

const FIXTURE = fileURLToPath(new URL('./fixtures/task-instance.mjs', import.meta.url));
const LIMITS = { maxOpenTasksPerOwner: 6, maxRunningTasksPerOwner: 4, maxRunningTasks: 6 };

// The instances trust the proxy's X-Forwarded-For: each test's clients come from addresses of their own.
const cluster = useCluster(['a', 'b', 'c'], { fixture: FIXTURE, env: { TASK_LIMITS: JSON.stringify(LIMITS), TRUST_PROXY: '1' } });

const clients: V1Client[] = [];
/** Tasks left running by a test, cancelled after it (the counts live in the shared Redis). */
const running: Array<{ client: V1Client; taskId: string }> = [];

afterEach(async () => {
  for (const { client, taskId } of running.splice(0)) await client.experimental.tasks.cancelTask(taskId).catch(() => undefined);
  for (const client of clients.splice(0)) await client.close();
});

let addresses = 0;
/** A client address no test used before. */
const newAddress = () => `203.0.113.${++addresses}`;

/**
 * A 2025-11-25 session through the proxy, its requests spread over the three instances, from the
 * client address `from` (a new one by default: one caller per session).
 */
async function session(from = newAddress()): Promise<V1Client> {
  const client = new V1Client({ name: 'limits', version: '1.0.0' });
  await client.connect(new V1Transport(cluster.proxy.url, { requestInit: { headers: { 'x-forwarded-for': from } } }));
  clients.push(client);
  return client;
}

type Answer = { taskId: string } | { code: number; message: string; limit?: string };

async function create(client: V1Client, name: string, ttl?: number): Promise<Answer> {
  try {
    const { task } = await client.request(
      { method: 'tools/call', params: { name, arguments: {}, task: ttl === undefined ? {} : { ttl } } },
      CreateTaskResultSchema,
    );
    if (name === 'hold') running.push({ client, taskId: task.taskId });
    return { taskId: task.taskId };
  } catch (error) {
    const { code, message, data } = error as { code: number; message: string; data?: { limit?: string } };
    return { code, message, ...(data?.limit ? { limit: data.limit } : {}) };
  }
}

const accepted = (answers: Answer[]) => answers.filter((a) => 'taskId' in a).length;
const refusedBy = (answers: Answer[]) => answers.flatMap((a) => ('limit' in a ? [a.limit] : []));

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('task limits on the Redis state, through three instances', () => {
  it('admits one owner’s running tasks up to its cap in total, whichever instances its calls reach', async () => {
    const client = await session();
    const before = cluster.proxy.routed.length;
    const answers = await Promise.all(Array.from({ length: 30 }, () => create(client, 'hold')));
    // Counted per instance, each of the three would have admitted 4.
    expect(accepted(answers)).toBe(4);
    expect(refusedBy(answers)).toEqual(Array(26).fill('maxRunningTasksPerOwner'));
    expect(answers.find((a) => 'code' in a)).toEqual({
      code: -32600,
      message:
        'MCP error -32600: Task refused: 4 tasks of this caller are already running (tasks.limits.maxRunningTasksPerOwner). Wait for one to finish (poll tasks/get) or cancel one (tasks/cancel), then call again',
      limit: 'maxRunningTasksPerOwner',
    });
    const calls = cluster.proxy.routed.slice(before).filter((r) => r.body.includes('"tools/call"'));
    expect(new Set(calls.map((r) => r.instance))).toEqual(new Set(['a', 'b', 'c']));
  });

  it('caps the running tasks of all owners together', async () => {
    const [ann, bob, cat] = [await session(), await session(), await session()];
    const anns = await Promise.all(Array.from({ length: 4 }, () => create(ann, 'hold')));
    expect(accepted(anns)).toBe(4);
    const bobs = await Promise.all(Array.from({ length: 4 }, () => create(bob, 'hold')));
    expect(accepted(bobs)).toBe(2);
    expect(refusedBy(bobs)).toEqual(['maxRunningTasks', 'maxRunningTasks']);
    expect(refusedBy([await create(cat, 'hold')])).toEqual(['maxRunningTasks']);

    const first = anns.find((a) => 'taskId' in a) as { taskId: string };
    await ann.experimental.tasks.cancelTask(first.taskId);
    expect('taskId' in (await create(cat, 'hold'))).toBe(true);
  });

  it('counts a client once across its sessions and the instances they reach; another client is unaffected', async () => {
    const from = newAddress();
    const first = await session(from);
    const finished = await Promise.all(Array.from({ length: 4 }, () => create(first, 'finish')));
    expect(accepted(finished)).toBe(4);
    // Finished, so that only the open cap is in the way (the running one counts the caller too).
    for (const { taskId } of finished as Array<{ taskId: string }>) {
      await until(
        () => first.experimental.tasks.getTask(taskId),
        (t) => t.status === 'completed',
        'a task to complete',
      );
    }
    await first.close();
    // A new session from the same address: the caller already holds 4 of its 6 (maxOpenTasksPerOwner).
    const second = await session(from);
    const more = await Promise.all(Array.from({ length: 4 }, () => create(second, 'finish')));
    expect(accepted(more)).toBe(2);
    expect(refusedBy(more)).toEqual(['maxOpenTasksPerOwner', 'maxOpenTasksPerOwner']);
    const other = await session();
    expect('taskId' in (await create(other, 'finish'))).toBe(true);
  });

  it('frees the shares of a task cancelled through any instance at once', async () => {
    const client = await session();
    // Two finished tasks and four running ones: the owner holds its 6 (maxOpenTasksPerOwner).
    for (const answer of await Promise.all([create(client, 'finish'), create(client, 'finish')])) {
      const { taskId } = answer as { taskId: string };
      await until(
        () => client.experimental.tasks.getTask(taskId),
        (t) => t.status === 'completed',
        'a task to complete',
      );
    }
    const holds = await Promise.all(Array.from({ length: 4 }, () => create(client, 'hold')));
    expect(accepted(holds)).toBe(4);
    expect(refusedBy([await create(client, 'finish')])).toEqual(['maxOpenTasksPerOwner']);
    const { taskId } = holds[0] as { taskId: string };
    await client.experimental.tasks.cancelTask(taskId);
    expect('taskId' in (await create(client, 'finish'))).toBe(true);
    // The cancelled task is kept one to two minutes more, in Redis too: its ttl and its hash's expiry are cut.
    expect((await client.experimental.tasks.getTask(taskId)).ttl).toBe(120_000);
    const redis = new Redis(cluster.redis.url);
    try {
      const left = await redis.pttl(`{armature:tasks}:task:${taskId}`);
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(120_000);
    } finally {
      redis.disconnect();
    }
  });

  it('caps the tasks one owner holds in total; an expired task frees its share when its ttl passes', async () => {
    const client = await session();
    // `finish` runs 300 ms: four at once (the running cap), then two more, all kept afterwards. The
    // first four are kept 4 s, so that none expires before the next three are asked for, however
    // slowly a loaded machine completes and polls them.
    const firsts = await Promise.all(Array.from({ length: 4 }, () => create(client, 'finish', 4_000)));
    expect(accepted(firsts)).toBe(4);
    for (const task of firsts as Array<{ taskId: string }>) {
      await until(
        () => client.experimental.tasks.getTask(task.taskId),
        (t) => t.status === 'completed',
        'a task to complete',
      );
    }
    const more = await Promise.all([create(client, 'finish', 60_000), create(client, 'finish', 60_000), create(client, 'finish')]);
    expect(accepted(more)).toBe(2);
    expect(refusedBy(more)).toEqual(['maxOpenTasksPerOwner']);

    const { taskId } = firsts[0] as { taskId: string };
    await until(
      () =>
        client.experimental.tasks.getTask(taskId).then(
          () => 'kept',
          () => 'gone',
        ),
      (state) => state === 'gone',
      'the first task to expire',
    );
    expect('taskId' in (await create(client, 'finish'))).toBe(true);
  });

  // Last: it kills an instance.
  it('frees the running shares of an instance that dies when their leases lapse', async () => {
    const client = await session();
    const before = cluster.proxy.routed.length;
    // One after the other through the alternating proxy: the four land on all three instances.
    const holds: Answer[] = [];
    for (let i = 0; i < 4; i++) holds.push(await create(client, 'hold'));
    expect(accepted(holds)).toBe(4);
    const ranOn = cluster.proxy.routed.slice(before).filter((r) => r.body.includes('"name":"hold"'));
    expect(ranOn.some((r) => r.instance === 'c')).toBe(true);
    expect(refusedBy([await create(client, 'hold')])).toEqual(['maxRunningTasksPerOwner']);

    await stopInstance(cluster.instances[2] as (typeof cluster.instances)[number], 'SIGKILL');
    // Nobody renews the dead instance's leases (leaseMs 600): their shares lapse and a task fits again.
    const admitted = await until(
      () => create(client, 'hold'),
      (answer) => 'taskId' in answer,
      'a running share of the dead instance to lapse',
    );
    expect('taskId' in admitted).toBe(true);
  });
});
