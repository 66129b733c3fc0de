import { createMcpApp, defineExtension, type Extension, type McpApp, McpServer, Tool } from '@armature/core';
import { Client, type ProtocolError, type StandardSchemaV1 } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { IsString, MaxLength } from 'class-validator';
import { expectEqual } from './support/check.js';

export const seen: string[] = [];

// #region define
export class SayParams {
  @IsString()
  @MaxLength(200)
  text!: string;
}

export const echo: Extension = defineExtension({
  id: 'com.example/echo',
  settings: { version: 1 }, // advertised at capabilities.extensions['com.example/echo']
  methods: {
    'echo/say': {
      params: SayParams, // validated like a tool's arguments: -32602 naming each bad field
      requiresClientExtension: true, // -32021 unless the client declared com.example/echo
      handle: async (params: SayParams, ctx) => {
        await ctx.notify('notifications/echo/heard', { text: params.text });
        ctx.meta.set('com.example/echo-at', ctx.meta.get('com.example/echo-at') ?? 'now');
        return { said: params.text, loud: ctx.client()?.loud === true };
      },
    },
  },
  // Around every request the app handles, after the app's own middleware.
  onRequest: async (request, next) => {
    seen.push(request.method);
    return next();
  },
  setup: (host) => {
    host.resource({ uri: 'echo://about', name: 'about', mimeType: 'text/plain', read: () => 'The echo extension' });
  },
});
// #endregion

@McpServer({ name: 'echo-app', version: '1.0.0' })
export class EchoAppServer {
  @Tool({ description: 'Answers pong' })
  ping() {
    return 'pong';
  }
}

// #region serve
export const app = createMcpApp(EchoAppServer, { extensions: [echo], rateLimits: [{ limit: 100, windowMs: 60_000 }] });
// #endregion

export const closed: string[] = [];

// #region change
export const badges: Extension = defineExtension({
  id: 'com.example/badges',
  settings: { style: 'emoji' },
  // Which declaring clients take part: not one that declared { badges: false }.
  accepts: (declared) => declared.badges !== false,
  setup: (host) => {
    for (const name of host.catalog.tools) {
      // Clients that negotiated com.example/badges see the badge; the others, the tool as declared.
      host.extendTool(name, { _meta: { 'com.example/badges': { badge: 'fast' } } });
    }
    if (host.catalog.tools.length === 0) host.advertise(undefined); // nothing to badge: not advertised
  },
  // Awaited when the app closes, after its listeners; a failure is logged and blocks no other extension.
  close: async () => {
    closed.push('badges');
  },
});

export const badgedApp = createMcpApp(EchoAppServer, { extensions: [badges] });
// #endregion

// #region revisions
export const notes: Extension = defineExtension({
  id: 'com.example/notes',
  methods: {
    // Served on both revisions, answered by each one's rules.
    'notes/where': {
      handle: (_params, ctx) => ({ revision: ctx.revision, perConnection: ctx.revision === '2025-11-25' ? ctx.connectionId : null }),
    },
    // Served on 2026-07-28 only: -32601 on 2025-11-25.
    'notes/answer': { revisions: ['2026-07-28'], handle: (_params, ctx) => ({ answers: Object.keys(ctx.inputResponses ?? {}) }) },
  },
});

export const notesApp = createMcpApp(EchoAppServer, { extensions: [notes] });
// #endregion

// #region tool-call
export const cache: Extension = defineExtension({
  id: 'com.example/cache',
  // Before each tools/call: an answer in the tool's place, or undefined to let the tool run.
  onToolCall: async (call, ctx) => {
    if (ctx.meta.get('com.example/cache') !== 'use') return undefined; // the tool runs as usual
    if (!(await call.allowed())) return call.refuse(); // the tool's guards, as an ordinary call asks them
    await call.count(); // and its rate limits
    return { content: [{ type: 'text', text: `${call.name}: from the cache` }] };
  },
});

export const cachedApp = createMcpApp(EchoAppServer, { extensions: [cache] });
// #endregion

async function connect(capabilities: Record<string, unknown>, to: McpApp = app) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = to.createServer();
  await server.connect(serverTransport);
  const client = new Client({ name: 'docs-check', version: '1.0.0' }, { capabilities });
  await client.connect(clientTransport);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export async function main(): Promise<void> {
  // #region client
  // Any object as the answer's schema: client.request() checks each answer against the schema it is given.
  const anyResult: StandardSchemaV1<Record<string, unknown>> = {
    '~standard': { version: 1, vendor: 'docs', validate: (value) => ({ value: value as Record<string, unknown> }) },
  };
  const client = new Client(
    { name: 'my-client', version: '1.0.0' },
    { capabilities: { extensions: { 'com.example/echo': { loud: true } } } },
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair(); // or any transport to the app
  const server = app.createServer();
  await server.connect(serverTransport);
  await client.connect(clientTransport);
  const said = await client.request({ method: 'echo/say', params: { text: 'hello' } }, anyResult);
  // #endregion
  const close = async () => {
    await client.close();
    await server.close();
  };
  try {
    expectEqual(client.getServerCapabilities()?.extensions, { 'com.example/echo': { version: 1 } }, 'advertised');
    expectEqual(said, { said: 'hello', loud: true, _meta: { 'com.example/echo-at': 'now' } }, 'echo/say');
    const bad = await client.request({ method: 'echo/say', params: { text: 7 } }, anyResult).catch((e: ProtocolError) => e);
    expectEqual((bad as ProtocolError).code, -32602, 'invalid params');
    expectEqual(seen.includes('echo/say'), true, 'onRequest saw the method');
    const about = await client.readResource({ uri: 'echo://about' });
    expectEqual(about.contents, [{ uri: 'echo://about', mimeType: 'text/plain', text: 'The echo extension' }], 'resource');
  } finally {
    await close();
  }
  const plain = await connect({});
  try {
    const refused = await plain.client.request({ method: 'echo/say', params: { text: 'hi' } }, anyResult).catch((e: ProtocolError) => e);
    expectEqual((refused as ProtocolError).code, -32021, 'a client without the extension');
  } finally {
    await plain.close();
  }
  for (const [capabilities, meta] of [
    [{ 'com.example/badges': {} }, { 'com.example/badges': { badge: 'fast' } }],
    [{ 'com.example/badges': { badges: false } }, undefined],
    [{}, undefined],
  ] as const) {
    const badged = await connect({ extensions: capabilities }, badgedApp);
    try {
      expectEqual(badged.client.getServerCapabilities()?.extensions?.['com.example/badges'], { style: 'emoji' }, 'badges advertised');
      expectEqual((await badged.client.listTools()).tools[0]?._meta, meta, `the tool's _meta for ${JSON.stringify(capabilities)}`);
    } finally {
      await badged.close();
    }
  }
  await badgedApp.close();
  expectEqual(closed, ['badges'], 'closed with the app');
  const cached = await connect({}, cachedApp);
  try {
    const ran = await cached.client.callTool({ name: 'ping', arguments: {} });
    expectEqual(ran.content, [{ type: 'text', text: 'pong' }], 'the tool ran');
    const fromCache = await cached.client.callTool({ name: 'ping', arguments: {}, _meta: { 'com.example/cache': 'use' } });
    expectEqual(fromCache.content, [{ type: 'text', text: 'ping: from the cache' }], 'answered in its place');
  } finally {
    await cached.close();
    await cachedApp.close();
  }
  const noted = await connect({}, notesApp);
  try {
    const anyResult: StandardSchemaV1<Record<string, unknown>> = {
      '~standard': { version: 1, vendor: 'docs', validate: (value) => ({ value: value as Record<string, unknown> }) },
    };
    const where = await noted.client.request({ method: 'notes/where', params: {} }, anyResult);
    expectEqual(where.revision, '2025-11-25', 'the revision the request speaks');
    expectEqual(String(where.perConnection).startsWith('connection:'), true, 'an in-memory connection has its own id');
    const refused = await noted.client.request({ method: 'notes/answer', params: {} }, anyResult).catch((e: ProtocolError) => e);
    expectEqual((refused as ProtocolError).code, -32601, 'a 2026-07-28 method on 2025-11-25');
  } finally {
    await noted.close();
    await notesApp.close();
  }
}
