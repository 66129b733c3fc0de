// The client side of getting-started.md, as a test file of the reader's project would hold it:
// beside src/, importing the server from ../src/greeter.js.
import { createMcpApp } from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { outputs } from '../../getting-started.js';
import { expectEqual, json } from '../../support/check.js';
import { GreeterServer } from '../src/greeter.js';

/** Connects the official client to a server process over stdio (used by test/getting-started-e2e.test.ts). */
// #region connect-stdio
export async function connectOverStdio(serverEntry: string): Promise<Client> {
  const client = new Client({ name: 'my-client', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: 'node', args: [serverEntry] }));
  return client;
}
// #endregion

export async function inMemory(): Promise<void> {
  // #region connect-in-memory
  const app = createMcpApp(GreeterServer);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await app.createServer().connect(serverTransport);

  const client = new Client({ name: 'my-client', version: '1.0.0' });
  await client.connect(clientTransport);

  const { tools } = await client.listTools();
  const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada', language: 'it' } });
  // result: { content: [{ type: 'text', text: 'Ciao, Ada!' }] }
  // #endregion

  expectEqual(
    tools.map((t) => [t.name, t.description, t.annotations]),
    [
      ['greet', 'Greet someone by name', { readOnlyHint: true }],
      ['greet_person', 'Greet a person given by first and last name', { readOnlyHint: true }],
    ],
    'tools/list',
  );
  expectEqual(json(app.definition.toolList[0]?.inputSchema), JSON.parse(outputs['greet-schema']), 'the schema the server sends');
  expectEqual(JSON.stringify(app.definition.toolList[0]?.inputSchema, null, 2), outputs['greet-schema'], 'the schema as shown');
  expectEqual(json(tools[0]?.inputSchema), JSON.parse(outputs['greet-schema']), 'the schema the client receives');
  expectEqual(result, { content: [{ type: 'text', text: 'Ciao, Ada!' }] }, 'greet');
  expectEqual(
    await client.callTool({ name: 'greet', arguments: { name: 'Ada' } }),
    { content: [{ type: 'text', text: 'Hello, Ada!' }] },
    'greet with the default language',
  );
  expectEqual(
    await client.callTool({ name: 'greet_person', arguments: { person: { first: 'Ada', last: 'Lovelace' } } }),
    { content: [{ type: 'text', text: 'Hello, Ada Lovelace!' }] },
    'greet_person with a nested DTO',
  );
  await client.close();
}

export async function overHttp(): Promise<void> {
  // #region connect-http
  const app = createMcpApp(GreeterServer);
  const listener = await app.listenHttp({ port: 0 }); // 0 picks a free port; the default is 3000
  // listener.url: 'http://127.0.0.1:<port>/mcp'

  // A 2025-11-25 client (initialize handshake, Mcp-Session-Id session):
  const client = new Client({ name: 'my-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));

  // A client that negotiates the stateless 2026-07-28 revision when the server offers it:
  const modern = new Client({ name: 'my-client', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await modern.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
  // modern.getNegotiatedProtocolVersion(): '2026-07-28'
  // #endregion

  try {
    expectEqual(new URL(listener.url).pathname, '/mcp', 'endpoint path');
    expectEqual(new URL(listener.url).hostname, '127.0.0.1', 'loopback by default');
    expectEqual(modern.getNegotiatedProtocolVersion(), '2026-07-28', 'modern revision');
    expectEqual(client.getNegotiatedProtocolVersion(), '2025-11-25', 'legacy revision');
    for (const c of [client, modern]) {
      // 2026-07-28 results also carry the server's identity in `_meta`: compare the content.
      const { content } = await c.callTool({ name: 'greet', arguments: { name: 'Grace' } });
      expectEqual(content, [{ type: 'text', text: 'Hello, Grace!' }], 'greet over HTTP');
    }
  } finally {
    await client.close();
    await modern.close();
    await listener.close();
  }
}
