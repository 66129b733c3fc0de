import { createMcpApp } from '@armature/core';
import { expectEqual } from './support/check.js';
import { SearchIndexServer } from './tasks.js';

// The tools of examples/tasks.ts, served unchanged, called as tasks on 2026-07-28 through the
// tasks extension. The official v2 client (2.4.0) does not speak the extension yet, so the
// client here is a plain fetch.

export const app = createMcpApp(SearchIndexServer, { tasks: { pollIntervalMs: 50 } });

// #region request
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** An answer: a task, the empty acknowledgement of tasks/cancel, or an error. */
export interface Answer {
  result?: { taskId?: string; status?: string; pollIntervalMs?: number; [field: string]: unknown };
  error?: { code: number; message: string };
}

/** One 2026-07-28 request over HTTP; `capabilities` are the client's, declared on every request. */
export async function mcp(url: string, method: string, params: Record<string, unknown>, capabilities: object = TASKS): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'mcp-name': String(params.name ?? params.taskId), // the tool, or the task: what load balancers route on
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'my-client', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  return (await response.json()) as Answer;
}
// #endregion

/** The wire JSON with what changes from run to run replaced, as the guides show it. */
export function shown(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/"taskId":"[0-9a-f-]{36}"/g, '"taskId":"<taskId>"')
      .replace(/"requestState":"[^"]+"/g, '"requestState":"<signed state>"')
      .replace(/"(createdAt|lastUpdatedAt)":"[^"]+"/g, '"$1":"<time>"'),
  );
}

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'search-index', version: '1.0.0' } };

export const outputs: Record<string, string> = {
  created: JSON.stringify(
    {
      resultType: 'task',
      content: [],
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
  completed: JSON.stringify(
    {
      taskId: '<taskId>',
      status: 'completed',
      createdAt: '<time>',
      lastUpdatedAt: '<time>',
      ttlMs: 3_600_000,
      pollIntervalMs: 50,
      result: { content: [{ type: 'text', text: 'indexed 2 folders' }] },
      resultType: 'complete',
      _meta: SERVER_INFO,
    },
    null,
    2,
  ),
  'not-declared': JSON.stringify(
    {
      code: -32021,
      message:
        'Tool "exportAll" runs only as a task: declare the tasks extension in the request\'s client capabilities (_meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"] = {}), then poll tasks/get',
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    },
    null,
    2,
  ),
  cancelled: JSON.stringify(
    {
      taskId: '<taskId>',
      status: 'cancelled',
      statusMessage: 'The task was cancelled by the client (tasks/cancel)',
      createdAt: '<time>',
      lastUpdatedAt: '<time>',
      ttlMs: 120_000, // cut at the cancel: kept one to two minutes more
      pollIntervalMs: 50,
      resultType: 'complete',
      _meta: SERVER_INFO,
    },
    null,
    2,
  ),
};

export async function main(): Promise<void> {
  // #region poll
  const listener = await app.listenHttp({ port: 0 });
  const url = listener.url;
  const created = await mcp(url, 'tools/call', { name: 'reindex', arguments: { folders: ['src', 'docs'] } });
  const { taskId, pollIntervalMs } = created.result ?? {}; // resultType: 'task'
  let task: Answer['result'] = created.result ?? {};
  while (task.status === 'working' || task.status === 'input_required') {
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
    task = (await mcp(url, 'tasks/get', { taskId })).result ?? {};
  }
  // completed: task.result is what the tools/call would have answered; failed: task.error
  // #endregion
  try {
    expectEqual(shown(created.result), JSON.parse(outputs.created as string), 'the created task');
    expectEqual(shown(task), JSON.parse(outputs.completed as string), 'the completed task');

    const refused = await mcp(url, 'tools/call', { name: 'exportAll', arguments: {} }, {});
    expectEqual(refused.error, JSON.parse(outputs['not-declared'] as string), 'a required tool, extension not declared');

    // #region cancel
    const exporting = await mcp(url, 'tools/call', { name: 'exportAll', arguments: {} });
    await mcp(url, 'tasks/cancel', { taskId: exporting.result?.taskId }); // {} at once; the handler's ctx.signal aborts
    const cancelled = await mcp(url, 'tasks/get', { taskId: exporting.result?.taskId }); // status: 'cancelled'
    // #endregion
    expectEqual(shown(cancelled.result), JSON.parse(outputs.cancelled as string), 'the cancelled task');
  } finally {
    await listener.close();
  }
}
