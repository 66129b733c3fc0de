import { Context, createMcpApp, Field, type McpApp, McpServer, Tool } from '@armature/core';
import { Client, type ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsString } from 'class-validator';
import { expectEqual } from './support/check.js';

// #region tags
@McpServer({ name: 'ops', version: '1.0.0' })
export class OpsServer {
  @Tool({ description: 'Whether the service is up' })
  status() {
    return 'up';
  }

  @Tool({ description: 'Restart the service', tags: ['admin'] })
  restart() {
    return 'restarted';
  }

  @Tool({ description: 'Show the admin tools to this session' })
  unlock(ctx: Context) {
    app.tools.showFor(ctx, { tags: ['admin'] }); // this session only: it alone gets list_changed
    return 'admin tools unlocked';
  }
}

const app: McpApp = createMcpApp(OpsServer, { hiddenTags: ['admin'] }); // hidden until shown
// #endregion

// #region search
export class SearchInput {
  @Field('Words to look for in tool names and descriptions')
  @IsString()
  query!: string;
}

/** A large catalogue: everything tagged `catalog` is hidden until a search finds it. */
@McpServer({ name: 'crm', version: '1.0.0' })
export class CrmServer {
  @Tool({ description: 'Find tools by what they do; the ones found become callable in this session' })
  search_tools({ query }: SearchInput, ctx: Context) {
    const words = query.toLowerCase().split(/\s+/);
    const found = [...crm.definition.tools.values()]
      .filter((tool) => tool.plan.tags.includes('catalog'))
      .filter((tool) => words.every((word) => `${tool.name} ${tool.descriptor.description}`.toLowerCase().includes(word)))
      .slice(0, 5)
      .map((tool) => tool.name);
    if (found.length > 0) crm.tools.showFor(ctx, { names: found });
    return { found };
  }

  @Tool({ description: 'Create an invoice for a customer', tags: ['catalog'] })
  create_invoice() {
    return 'invoice created';
  }

  @Tool({ description: 'Merge two customer records', tags: ['catalog'] })
  merge_customers() {
    return 'merged';
  }
}

const crm: McpApp = createMcpApp(CrmServer, { hiddenTags: ['catalog'] });
// #endregion

/** A 2025-11-25 session of the official client, counting the tools list_changed it hears. */
async function session(url: string): Promise<{ client: Client; heard: () => number }> {
  const client = new Client({ name: 'docs-check', version: '1.0.0' });
  let heard = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    heard++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, heard: () => heard };
}

/** Resolves once `check` holds (notifications arrive on their own stream); fails after 10 s. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 10_000) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

async function perSession(): Promise<void> {
  const listener = await app.listenHttp({ port: 0 });
  const alice = await session(listener.url);
  const bob = await session(listener.url);
  try {
    expectEqual(await names(alice.client), ['status', 'unlock'], 'hidden from everyone');
    expectEqual(await names(bob.client), ['status', 'unlock'], 'hidden from everyone');
    await alice.client.callTool({ name: 'unlock', arguments: {} });
    await eventually(() => alice.heard() === 1, 'alice hears list_changed');
    expectEqual(await names(alice.client), ['status', 'restart', 'unlock'], 'alice sees restart');
    // A change made for everyone, after: once bob hears it, he would have heard alice's first.
    app.tools.disable('status');
    await eventually(() => bob.heard() === 1 && alice.heard() === 2, 'both hear the change made for all');
    expectEqual(await names(bob.client), ['unlock'], 'bob still does not see restart');
    const denied = await bob.client.callTool({ name: 'restart', arguments: {} }).catch((error: ProtocolError) => error.message);
    expectEqual(denied, 'Unknown tool: "restart". Available tools: unlock', 'bob cannot call it');
  } finally {
    app.tools.enable('status');
    await alice.client.close();
    await bob.client.close();
    await listener.close();
  }
}

async function search(): Promise<void> {
  const listener = await crm.listenHttp({ port: 0 });
  const { client, heard } = await session(listener.url);
  try {
    expectEqual(await names(client), ['search_tools'], 'only the search tool at first');
    const result = await client.callTool({ name: 'search_tools', arguments: { query: 'invoice' } });
    expectEqual(result.structuredContent, { found: ['create_invoice'] }, 'found by description');
    await eventually(() => heard() === 1, 'list_changed after the search');
    expectEqual(await names(client), ['search_tools', 'create_invoice'], 'the found tool is listed and callable');
    const invoice = await client.callTool({ name: 'create_invoice', arguments: {} });
    expectEqual((invoice.content as Array<{ text: string }>)[0]?.text, 'invoice created', 'called');
  } finally {
    await client.close();
    await listener.close();
  }
}

export async function main(): Promise<void> {
  await perSession();
  await search();
}
