import { AppResource, createMcpApp, Field, McpServer, Tool } from '@armature/core';
import { Client } from '@modelcontextprotocol/client';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { IsInt, Max, Min } from 'class-validator';
import { Service } from 'typedi';
import { COUNTER_HTML } from './mcp-apps/counter.view.js';
import { expectEqual, json } from './support/check.js';

// #region server
export class AddInput {
  @Field('How much to add')
  @IsInt()
  @Min(1)
  @Max(100)
  by!: number;
}

@Service() // one counter for the process: the server class itself is made per call
export class Counter {
  total = 0;
}

@McpServer({ name: 'counter', version: '1.0.0' })
export class CounterServer {
  constructor(private readonly counter: Counter) {}

  @Tool({
    description: 'Adds to the counter and shows it',
    outputSchema: { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'] },
    ui: { resource: 'ui://counter/view.html' },
  })
  add(input: AddInput) {
    this.counter.total += input.by;
    return { total: this.counter.total }; // structuredContent: what the app reads
  }

  @Tool({
    description: 'Sets the counter back to 0',
    outputSchema: { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'] },
    ui: { resource: 'ui://counter/view.html', visibility: ['app'] }, // only the app may call it
  })
  reset() {
    this.counter.total = 0;
    return { total: 0 };
  }

  @AppResource({ uri: 'ui://counter/view.html', name: 'counter-view', description: 'The counter', prefersBorder: true })
  view() {
    return COUNTER_HTML; // the app's HTML, from a module (./mcp-apps/counter.view.ts)
  }
}
// #endregion

/** The official v2 client with `capabilities`, over the SDK's in-memory transport. */
async function connect(capabilities: Record<string, unknown>) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = createMcpApp(CounterServer).createServer();
  await server.connect(serverTransport);
  const client = new Client({ name: 'my-host', version: '1.0.0' }, { capabilities });
  await client.connect(clientTransport);
  const close = async () => {
    await client.close();
    await server.close();
  };
  return { client, close };
}

export async function main(): Promise<void> {
  // #region host-capabilities
  const capabilities = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
  // #endregion
  // The names the page shows are the extension's own constants.
  expectEqual(capabilities, { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } }, 'host capabilities');
  const host = await connect(capabilities);
  const { client } = host;
  expectEqual(
    client.getServerCapabilities()?.extensions?.[EXTENSION_ID],
    { mimeTypes: [RESOURCE_MIME_TYPE] },
    'server advertises MCP Apps',
  );
  expectEqual(
    json((await client.listTools()).tools.map((t) => [t.name, t._meta?.ui])),
    [
      ['add', { resourceUri: 'ui://counter/view.html' }],
      ['reset', { resourceUri: 'ui://counter/view.html', visibility: ['app'] }],
    ],
    'a host sees each tool with its app',
  );
  const [view] = (await client.readResource({ uri: 'ui://counter/view.html' })).contents;
  expectEqual([view?.mimeType, view?._meta], [RESOURCE_MIME_TYPE, { ui: { prefersBorder: true } }], 'the app resource');
  expectEqual((await client.callTool({ name: 'reset', arguments: {} })).structuredContent, { total: 0 }, 'reset');
  expectEqual((await client.callTool({ name: 'add', arguments: { by: 2 } })).structuredContent, { total: 2 }, 'add');
  await host.close();

  const plain = await connect({});
  expectEqual(
    (await plain.client.listTools()).tools.map((t) => [t.name, t._meta]),
    [['add', undefined]],
    'a client without MCP Apps sees the plain tool',
  );
  await plain.close();
}
