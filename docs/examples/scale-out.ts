import { Context, createMcpApp, McpServer, Tool } from '@armature/core';
import { redisState } from '@armature/redis';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { expectEqual } from './support/check.js';
import { startRedis } from './support/redis-server.js';

@McpServer({ name: 'notes', version: '1.0.0' })
export class NotesServer {
  @Tool({ description: 'Rename the notebook, asking the user for the new name' })
  async rename(ctx: Context) {
    await ctx.progress(1, 2, 'asking');
    const answer = await ctx.elicit('New name?', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
    await ctx.progress(2, 2, 'renamed');
    return answer.action === 'accept' ? `Renamed to ${String(answer.content.name)}` : `Not renamed (${answer.action})`;
  }
}

// #region app
/** One instance: every instance runs this same code against the same Redis and key. */
async function instance(redisUrl: string) {
  const app = createMcpApp(NotesServer, {
    state: redisState({ url: redisUrl }), // e.g. process.env.REDIS_URL
    requestStateKey: 'the same secret on every instance', // e.g. process.env.MCP_REQUEST_STATE_KEY
  });
  const { url } = await app.listenHttp({ port: 0 }); // waits until Redis answers
  return { url, close: () => app.close() }; // the app's close ends its listener and its Redis connections
}
// #endregion

/** A client whose requests alternate between two instances, as behind a round-robin load balancer. */
export function roundRobinClient(urls: string[]) {
  let next = 0;
  const fetchRoundRobin = (_url: string | URL | Request, init?: RequestInit) => {
    const url = urls[next++ % urls.length] as string;
    return fetch(url, init);
  };
  const client = new Client({ name: 'notes-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Field notes' } }) as never);
  return { client, transport: new StreamableHTTPClientTransport(new URL(urls[0] as string), { fetch: fetchRoundRobin }) };
}

/**
 * Connects (initialize reaches one instance, every later request alternates: the session is served
 * by both) and renames twice: each elicitation answer and progress crosses instances.
 */
export async function renameTwice(client: Client, transport: StreamableHTTPClientTransport): Promise<void> {
  await client.connect(transport);
  const progress: string[] = [];
  for (let i = 0; i < 2; i++) {
    const result = await client.callTool({ name: 'rename', arguments: {} }, { onprogress: (p) => progress.push(String(p.message)) });
    expectEqual((result.content as { text: string }[])[0]?.text, 'Renamed to Field notes', 'the answer reached the instance that asked');
  }
  expectEqual(progress, ['asking', 'renamed', 'asking', 'renamed'], 'progress from both instances');
}

/** A running instance: its endpoint, and the close that stops it. */
export interface Instance {
  readonly url: string;
  close(): Promise<void>;
}

export const outputs: Record<string, string> = {};

export async function main(): Promise<void> {
  const redis = await startRedis();
  const [a, b] = [await instance(redis.url), await instance(redis.url)] as [Instance, Instance];
  const { client, transport } = roundRobinClient([a.url, b.url]);
  try {
    await renameTwice(client, transport);

    await redis.stop();
    const refused = await client.callTool({ name: 'rename', arguments: {} }).then(
      () => 'served',
      (error: Error) => error.message,
    );
    // The client reports the HTTP 503 with its JSON-RPC body.
    outputs['redis-down'] = `${refused}`;
    expectEqual(
      refused,
      'Error POSTing to endpoint: {"jsonrpc":"2.0","error":{"code":-32000,"message":"Service Unavailable: the redis state store is unreachable, so this session cannot be served; retry later"},"id":3}',
      'Redis down',
    );
  } finally {
    await client.close().catch(() => undefined);
    await Promise.all([a.close(), b.close()]);
    await redis.stop();
  }
}
