import { afterEach, describe, expect, it, vi } from 'vitest';
import { Context, createMcpApp, McpServer, serveOnWorkers, Tool } from '../src/index.js';

@McpServer({ name: 'edge', version: '1.0.0' })
class Edge {
  @Tool({ description: 'd' })
  ping() {
    return 'pong';
  }
}

@McpServer({ name: 'edge-tasks', version: '1.0.0' })
class EdgeTasks {
  @Tool({ description: 'Takes minutes', task: 'required' })
  exportAll() {
    return 'exported';
  }

  @Tool({ description: 'Quick enough to run inline', task: 'optional' })
  reindex(ctx: Context) {
    return `reindexed (attempt ${ctx.attempt})`;
  }
}

/** A 2026-07-28 request to the Worker's fetch, declaring the tasks extension or not. */
function modern(method: string, params: Record<string, unknown>, tasks: boolean): Request {
  const capabilities = tasks ? { extensions: { 'io.modelcontextprotocol/tasks': {} } } : {};
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      host: '127.0.0.1',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'edge-client', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
}

describe('tasks on Cloudflare Workers (serveOnWorkers)', () => {
  const REASON =
    "on Cloudflare Workers: a task outlives the request that starts it, and a Worker's isolates share no task store, so its tasks/get could reach an isolate that never heard of it (and ctx.waitUntil keeps work alive only 30 s after the response). Call an 'optional' task tool without declaring the tasks extension to run it inline, or serve task tools from Node.js with redisState";

  it('refuses what would run as a task with the reason; an optional task tool called without the extension runs inline', async () => {
    const worker = serveOnWorkers(() => createMcpApp(EdgeTasks));
    const refusal = async (request: Request) => {
      const response = await worker.fetch(request);
      return [response.status, ((await response.json()) as { error?: { code: number; message: string } }).error];
    };
    const task = (tool: string) => [
      400,
      { code: -32600, message: `Invalid Request: tool "${tool}" runs as a task, which is not served ${REASON}` },
    ];
    expect(await refusal(modern('tools/call', { name: 'exportAll', arguments: {} }, true))).toEqual(task('exportAll'));
    expect(await refusal(modern('tools/call', { name: 'exportAll', arguments: {} }, false))).toEqual(task('exportAll'));
    expect(await refusal(modern('tools/call', { name: 'reindex', arguments: {} }, true))).toEqual(task('reindex'));
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      expect(await refusal(modern(method, { taskId: '00000000-0000-4000-8000-000000000000' }, true))).toEqual([
        400,
        { code: -32600, message: `Invalid Request: ${method} is not served ${REASON}` },
      ]);
    }
    const inline = await worker.fetch(modern('tools/call', { name: 'reindex', arguments: {} }, false));
    expect(await inline.text()).toContain('reindexed (attempt 1)');
  });
});

// The Worker itself is served by workerd in apps/runtimes/test/workers.test.ts; here, what is
// refused at start-up there, under workerd's documented user agent.
describe('on Cloudflare Workers', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('refuses listenStdio and listenHttp with the reason and the fix', async () => {
    vi.stubGlobal('navigator', { userAgent: 'Cloudflare-Workers' });
    const app = createMcpApp(Edge);
    expect(() => app.listenStdio()).toThrow(
      'listenStdio() cannot run on Cloudflare Workers: a Worker has no stdin or stdout, only requests',
    );
    await expect(app.listenHttp()).rejects.toThrow(
      "listenHttp() cannot run on Cloudflare Workers: a Worker listens on no port; Cloudflare hands it each request. Fix: export default serveOnWorkers(() => createMcpApp(MyServer)) from the Worker's entry",
    );
    await app.shutdown();
  });

  it('serveOnWorkers takes a function that makes the app (a Worker may not make one at its top level)', async () => {
    const app = createMcpApp(Edge);
    expect(() => serveOnWorkers(app as never)).toThrow(
      'serveOnWorkers needs a function that makes the app, got McpApp. Fix: export default serveOnWorkers(() => createMcpApp(MyServer))',
    );
    await app.shutdown();
  });
});
