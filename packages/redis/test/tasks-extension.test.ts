import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Instance, stopInstance, useCluster } from './support/cluster.js';

// Tasks of the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks) on the shared state:
// created through one instance, polled and cancelled through the others (a strictly alternating
// proxy in front of three real processes), failed once the lease of a killed instance lapses.
// Raw HTTP: the v2 client 2.4.0 refuses `resultType: 'task'`.

const FIXTURE = fileURLToPath(new URL('./fixtures/task-instance.mjs', import.meta.url));

const cluster = useCluster(['a', 'b', 'c'], { fixture: FIXTURE });

const WITH_TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} };

interface Answer {
  result?: Record<string, unknown> & { content?: Array<{ text: string }> };
  error?: { code: number; message: string; data?: unknown };
}

/** One raw 2026-07-28 request through the proxy, from a client that declares the tasks extension. */
async function rpc(method: string, params: Record<string, unknown>): Promise<Answer> {
  const name = params.name ?? params.taskId;
  const response = await fetch(cluster.proxy.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': String(name),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
        },
      },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
  return JSON.parse(json) as Answer;
}

async function until(read: () => Promise<Answer>, done: (answer: Answer) => boolean, what: string): Promise<Answer> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const answer = await read();
    if (done(answer)) return answer;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(answer)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Creates a task of `tool`; returns its id and the instance that runs it. */
async function createTask(tool: string): Promise<{ taskId: string; ranOn: string }> {
  const before = cluster.proxy.routed.length;
  const created = await rpc('tools/call', { name: tool, arguments: {} });
  expect(created.result?.resultType).toBe('task');
  return { taskId: String(created.result?.taskId), ranOn: cluster.proxy.routed[before]?.instance as string };
}

const getTask = (taskId: string) => rpc('tasks/get', { taskId });

/** Skips turns of the proxy (with pings) until the next request goes to an instance other than `name`. */
async function awayFrom(name: string): Promise<void> {
  const next = () => cluster.instances[cluster.proxy.routed.length % cluster.instances.length]?.name;
  while (next() === name) await rpc('ping', {});
}

describe('tasks extension on the Redis state, through three instances', () => {
  it('is created on one instance, polled through all three, and its result inlined by any', async () => {
    const { taskId, ranOn } = await createTask('finish');
    const done = await until(
      () => getTask(taskId),
      (a) => a.result?.status === 'completed',
      'the task to complete',
    );
    expect(done.result?.result).toEqual({ content: [{ type: 'text', text: `finished on ${ranOn}` }] });
    // Once more through each instance: the same answer from Redis, whichever instance ran it.
    for (let i = 0; i < 3; i++) expect((await getTask(taskId)).result?.result).toEqual(done.result?.result);
    expect(new Set(cluster.proxy.servedBy(`"taskId":"${taskId}"`))).toEqual(new Set(['a', 'b', 'c']));
  });

  it('aborts the handler on the instance running it when the cancel lands on another', async () => {
    const { taskId, ranOn } = await createTask('hold');
    await until(
      () => getTask(taskId),
      (a) => a.result?.statusMessage === `1/2: held by ${ranOn}`,
      'the task to report its progress',
    );
    await awayFrom(ranOn);
    const ack = await rpc('tasks/cancel', { taskId });
    expect(ack).toMatchObject({ result: { resultType: 'complete' } });
    expect(cluster.proxy.servedBy('"method":"tasks/cancel"').at(-1)).not.toBe(ranOn);
    // Ask every instance which runs it saw cancelled: only the runner did.
    const answers = new Map<string, string[]>();
    await until(
      async () => {
        const before = cluster.proxy.routed.length;
        const answer = await rpc('tools/call', { name: 'cancelledHere', arguments: {} });
        answers.set(cluster.proxy.routed[before]?.instance as string, JSON.parse(answer.result?.content?.[0]?.text ?? '[]'));
        return answer;
      },
      () => answers.size === 3 && (answers.get(ranOn) ?? []).includes(ranOn),
      'the runner to see its signal aborted',
    );
    expect(Object.fromEntries(answers)).toEqual(Object.fromEntries(['a', 'b', 'c'].map((n) => [n, n === ranOn ? [ranOn] : []])));
    expect((await getTask(taskId)).result).toMatchObject({
      status: 'cancelled',
      statusMessage: 'The task was cancelled by the client (tasks/cancel)',
    });
  });

  it('asks on the instance running the task and takes the answers sent through the others', async () => {
    const { taskId, ranOn } = await createTask('ask');
    const asking = await until(
      () => getTask(taskId),
      (a) => Object.keys(a.result?.inputRequests ?? {}).length === 2,
      'both questions',
    );
    expect(asking.result).toMatchObject({ status: 'input_required', statusMessage: `1/2: asking on ${ranOn}` });
    const requests = asking.result?.inputRequests as Record<string, { method: string; params: { message: string } }>;
    const keyOf = (message: string) => Object.keys(requests).find((key) => requests[key]?.params.message === message) as string;
    expect(Object.values(requests).map((r) => r.method)).toEqual(['elicitation/create', 'elicitation/create']);

    await awayFrom(ranOn);
    const first = await rpc('tasks/update', { taskId, inputResponses: { [keyOf('First?')]: { action: 'accept', content: { n: 1 } } } });
    expect(first.result?.resultType).toBe('complete');
    // One answered, through another instance: the other question is still outstanding, on every instance.
    for (let i = 0; i < 3; i++) {
      const polled = await getTask(taskId);
      expect(polled.result?.status).toBe('input_required');
      expect(Object.keys(polled.result?.inputRequests ?? {})).toEqual([keyOf('Second?')]);
    }
    await awayFrom(ranOn);
    await rpc('tasks/update', { taskId, inputResponses: { [keyOf('Second?')]: { action: 'accept', content: { n: 2 } } } });
    const answeredThrough = cluster.proxy.servedBy('"method":"tasks/update"');
    expect(answeredThrough.every((instance) => instance !== ranOn)).toBe(true);
    const done = await until(
      () => getTask(taskId),
      (a) => a.result?.status === 'completed',
      'the task to complete',
    );
    expect(done.result?.result).toEqual({ content: [{ type: 'text', text: `answered on ${ranOn}: 1 and 2` }] });
  });

  it('sends notifications/tasks on a listen stream opened on another instance than the one running the task', async () => {
    const { taskId, ranOn } = await createTask('hold');
    await until(
      () => getTask(taskId),
      (a) => a.result?.statusMessage === `1/2: held by ${ranOn}`,
      'the task to start',
    );
    await awayFrom(ranOn);
    const listenedOn = cluster.instances[cluster.proxy.routed.length % cluster.instances.length]?.name;
    const response = await fetch(cluster.proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'subscriptions/listen',
        params: {
          notifications: { taskIds: [taskId] },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': WITH_TASKS,
          },
        },
      }),
      signal: AbortSignal.timeout(15_000),
    });
    expect(listenedOn).not.toBe(ranOn);
    const statuses: string[] = [];
    let text = '';
    const read = (async () => {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        text += Buffer.from(chunk).toString('utf8');
        statuses.splice(
          0,
          statuses.length,
          ...[...text.matchAll(/"method":"notifications\/tasks".*?"status":"(\w+)"/g)].map((m) => m[1] as string),
        );
      }
    })();
    await until(
      async () => ({}),
      () => statuses.includes('working'),
      'the first notification',
    );
    // Cancelled through a third route: the change travels through Redis to the listening instance.
    await rpc('tasks/cancel', { taskId });
    await read;
    expect(statuses.at(-1)).toBe('cancelled');
    expect(text).toContain('"result":{"resultType":"complete"');
  });

  // Last: it kills an instance.
  it('fails a task whose instance was killed once its lease lapses, with a JSON-RPC error', async () => {
    const { taskId, ranOn } = await createTask('hold');
    await until(
      () => getTask(taskId),
      (a) => a.result?.statusMessage === `1/2: held by ${ranOn}`,
      'the task to start',
    );
    await stopInstance(cluster.instances.find((instance) => instance.name === ranOn) as Instance, 'SIGKILL');
    const failed = await until(
      () => getTask(taskId),
      (a) => a.result?.status !== 'working',
      'the lease to lapse',
    );
    const message =
      'The server instance running this task stopped answering for it (no lease renewal within 600 ms); the task is failed. Call the tool again to retry';
    expect(failed.result).toMatchObject({ status: 'failed', statusMessage: message, error: { code: -32603, message } });
    expect(failed.result).not.toHaveProperty('result');
  });
});
