import { setTimeout as sleep } from 'node:timers/promises';
import { Context, createMcpApp, McpServer, RequestScoped, Tool } from '@armature/core';
import {
  Client,
  LOG_LEVEL_META_KEY,
  type LoggingMessageNotificationParams,
  type Progress,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { ArrayNotEmpty, IsString } from 'class-validator';
import { connectInMemory, expectEqual, json } from './support/check.js';

// #region context-tool
export class IndexInput {
  @ArrayNotEmpty()
  @IsString({ each: true })
  files!: string[];
}

@McpServer({ name: 'indexer', version: '1.0.0' })
export class IndexerServer {
  @Tool({ description: 'Index the given files' })
  async index(input: IndexInput, ctx: Context) {
    await ctx.log.debug('starting');
    for (const [i, file] of input.files.entries()) {
      ctx.signal.throwIfAborted(); // stop early when the client cancels
      await ctx.progress(i + 1, input.files.length, `indexed ${file}`); // a no-op unless the client asked
    }
    await ctx.log.info('indexed', { files: input.files.length });
    return { requestId: ctx.requestId, meta: ctx.meta };
  }
}
// #endregion

// #region cancellation
@McpServer({ name: 'webhooks', version: '1.0.0' })
export class WebhookServer {
  @Tool({ description: 'Wait up to a minute for the deployment webhook' })
  async waitForDeployment(ctx: Context) {
    // Pass ctx.signal to anything that takes one (fetch, timers, streams): it aborts on cancel.
    await sleep(60_000, undefined, { signal: ctx.signal });
    return 'deployed';
  }
}
// #endregion

// #region request-scoped
@RequestScoped()
export class AuditLog {
  constructor(private readonly ctx: Context) {}

  async record(action: string) {
    await this.ctx.log.notice(`audit: ${action}`, { requestId: this.ctx.requestId });
  }
}

export class DeleteFileInput {
  @IsString()
  path!: string;
}

@McpServer({ name: 'files', version: '1.0.0' })
export class FilesServer {
  constructor(private readonly audit: AuditLog) {}

  @Tool({ description: 'Delete a file', annotations: { destructiveHint: true } })
  async deleteFile(input: DeleteFileInput) {
    await this.audit.record(`deleted ${input.path}`);
    return `Deleted ${input.path}`;
  }
}
// #endregion

async function legacyRevision(): Promise<void> {
  const { client, sent, close } = await connectInMemory(createMcpApp(IndexerServer));
  try {
    // #region client-2025
    const logs: LoggingMessageNotificationParams[] = [];
    client.setNotificationHandler('notifications/message', (notification) => {
      logs.push(notification.params);
    });
    await client.setLoggingLevel('info'); // from now on, debug messages are dropped

    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'index', arguments: { files: ['a.ts', 'b.ts'] }, _meta: { traceId: 'trace-1' } },
      { onprogress: (update) => progress.push(update) },
    );
    // #endregion

    expectEqual(json(logs), [{ level: 'info', data: { message: 'indexed', data: { files: 2 } } }], 'logs at info and above');
    expectEqual(
      progress,
      [
        { progress: 1, total: 2, message: 'indexed a.ts' },
        { progress: 2, total: 2, message: 'indexed b.ts' },
      ],
      'progress',
    );
    const structured = result.structuredContent as { requestId: unknown; meta: Record<string, unknown> };
    expectEqual(typeof structured.requestId, 'number', 'requestId is the JSON-RPC id');
    expectEqual(Object.keys(structured.meta).sort(), ['progressToken', 'traceId'], 'meta keys');
    expectEqual(structured.meta.traceId, 'trace-1', 'meta carries what the client sent');

    // Without onprogress the request has no progress token: progress() sends nothing.
    sent.length = 0;
    const quiet = await client.callTool({ name: 'index', arguments: { files: ['c.ts'] } });
    expectEqual((quiet.structuredContent as { meta: unknown }).meta, {}, 'no _meta: an empty object');
    expectEqual(
      sent.filter((m) => 'method' in m && m.method === 'notifications/progress'),
      [],
      'no progress notifications without a token',
    );
  } finally {
    await close();
  }

  // Before any logging/setLevel, every level is sent.
  const fresh = await connectInMemory(createMcpApp(IndexerServer));
  try {
    const levels: string[] = [];
    fresh.client.setNotificationHandler('notifications/message', (n) => {
      levels.push(n.params.level);
    });
    await fresh.client.callTool({ name: 'index', arguments: { files: ['a.ts'] } });
    expectEqual(levels, ['debug', 'info'], 'no level set: everything is sent');
  } finally {
    await fresh.close();
  }
}

async function modernRevision(): Promise<void> {
  const app = createMcpApp(IndexerServer);
  const listener = await app.listenHttp({ port: 0 });
  const client = new Client({ name: 'my-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
  try {
    expectEqual(client.getNegotiatedProtocolVersion(), '2026-07-28', 'revision');
    const levels: string[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      levels.push(n.params.level);
    });
    await client.callTool({ name: 'index', arguments: { files: ['a.ts'] } });
    expectEqual(levels, [], '2026-07-28 without a level: no logs');

    // #region client-2026
    const result = await client.callTool({
      name: 'index',
      arguments: { files: ['a.ts'] },
      _meta: { [LOG_LEVEL_META_KEY]: 'debug' }, // 'io.modelcontextprotocol/logLevel'
    });
    // #endregion
    expectEqual(levels, ['debug', 'info'], '2026-07-28 with the request level');
    expectEqual((result.structuredContent as { meta: unknown }).meta, {}, 'reserved keys are not in ctx.meta');
  } finally {
    await client.close();
    await listener.close();
  }
}

async function cancellation(): Promise<void> {
  const app = createMcpApp(WebhookServer, { onError: () => undefined });
  const { client, sent, close } = await connectInMemory(app);
  try {
    sent.length = 0;
    // #region client-cancel
    const controller = new AbortController();
    const call = client.callTool({ name: 'waitForDeployment', arguments: {} }, { signal: controller.signal });
    setTimeout(() => controller.abort('the user pressed stop'), 50);
    await call.catch((error: Error) => error.message); // 'the user pressed stop'
    // #endregion
    const message = await call.catch((error: Error) => error.message);
    expectEqual(message, 'the user pressed stop', 'the client call rejects');
    await sleep(50);
    expectEqual(sent, [], 'a cancelled request gets no response at all');
    expectEqual(app.stats.liveScopes, 0, 'the call ended and its scope was disposed');
  } finally {
    await close();
  }
}

async function requestScoped(): Promise<void> {
  const { client, close } = await connectInMemory(createMcpApp(FilesServer));
  try {
    const logs: LoggingMessageNotificationParams[] = [];
    client.setNotificationHandler('notifications/message', (n) => {
      logs.push(n.params);
    });
    const result = await client.callTool({ name: 'deleteFile', arguments: { path: '/tmp/a' } });
    expectEqual(result.content, [{ type: 'text', text: 'Deleted /tmp/a' }], 'tool result');
    expectEqual(logs.length, 1, 'one audit line');
    const data = logs[0]?.data as { message: string; data: { requestId: unknown } };
    expectEqual([logs[0]?.level, data.message, typeof data.data.requestId], ['notice', 'audit: deleted /tmp/a', 'number'], 'audit line');
  } finally {
    await close();
  }
}

export async function main(): Promise<void> {
  await legacyRevision();
  await modernRevision();
  await cancellation();
  await requestScoped();
}
