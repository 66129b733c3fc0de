import { fileURLToPath } from 'node:url';
import type { HttpListener } from '@armature/core';
import { Client, ProtocolError, type StandardSchemaV1, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { CALLS_PER_WINDOW, createEchoApp } from '../src/app.js';
import { ECHO, ECHO_TRACE, echoLife } from '../src/echo-extension.js';

// The third-party extension of src/echo-extension.ts (public interface only), negotiated on both
// revisions and served over stdio (the built server as a child process) and HTTP (127.0.0.1), to
// the official client, under the app's guards and rate limits.

const SERVER = fileURLToPath(new URL('../dist/server.js', import.meta.url));
type Result = Record<string, unknown>;
const anyResult: StandardSchemaV1<Result, Result> = {
  '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value: value as Result }) },
};

const open: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

type Wire = 'stdio' | 'http';
type Revision = '2025-11-25' | '2026-07-28';

async function connect(wire: Wire, revision: Revision, declares: boolean | Record<string, string | number | boolean>) {
  let transport: Transport;
  if (wire === 'stdio') {
    transport = new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' });
  } else {
    const app = createEchoApp();
    const listener: HttpListener = await app.listenHttp({ port: 0 });
    open.push(() => app.close());
    transport = new StreamableHTTPClientTransport(new URL(listener.url));
  }
  const client = new Client(
    { name: 'echo-client', version: '1.0.0' },
    {
      capabilities: declares ? { extensions: { [ECHO]: declares === true ? { echoes: 2 } : declares } } : {},
      ...(revision === '2026-07-28' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    },
  );
  const heard: unknown[] = [];
  client.fallbackNotificationHandler = async (notification) => {
    if (notification.method === 'notifications/echo/heard') heard.push(notification.params);
  };
  await client.connect(transport);
  open.push(() => client.close());
  expect(client.getNegotiatedProtocolVersion()).toBe(revision);
  const call = (method: string, params: Record<string, unknown> = {}) => client.request({ method, params }, anyResult);
  return { client, call, heard };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProtocolError) return { code: error.code, message: error.message, data: error.data };
    throw error;
  }
  throw new Error('expected a JSON-RPC error');
}

const cases: [Wire, Revision][] = [
  ['stdio', '2025-11-25'],
  ['stdio', '2026-07-28'],
  ['http', '2025-11-25'],
  ['http', '2026-07-28'],
];

describe.each(cases)('a third-party extension over %s, %s', (wire, revision) => {
  it('is advertised with its settings, and its method answers a client that declared it', async () => {
    const { client, call, heard } = await connect(wire, revision, true);
    expect(client.getServerCapabilities()?.extensions?.[ECHO]).toEqual({ version: 1 });
    const result = await call('echo/say', { text: 'hello', _meta: { [ECHO_TRACE]: 'abc' } });
    expect(result.said).toBe('hello');
    // What the client declared for the extension, as the handler read it.
    expect(result.client).toEqual({ echoes: 2 });
    // The handler's own _meta key is kept beside the one the extension wrote.
    expect(result._meta).toMatchObject({ 'com.example/kept': true, [ECHO_TRACE]: 'traced:abc' });
    expect(heard).toEqual([{ text: 'hello' }]);
    // Its middleware answers one request itself.
    expect((await call('echo/say', { text: 'short-circuit' })).said).toBe('from middleware');
    // The resource its setup added.
    expect((await client.readResource({ uri: 'echo://about' })).contents).toEqual([
      { uri: 'echo://about', mimeType: 'text/plain', text: `echo ${ECHO}` },
    ]);
  });

  it('refuses a client that did not declare it (-32021), and bad params (-32602 naming the field)', async () => {
    const { call } = await connect(wire, revision, false);
    const missing = await refusal(call('echo/say', { text: 'hello' }));
    expect(missing.code).toBe(-32021);
    expect(missing.data).toEqual({ requiredCapabilities: { extensions: { [ECHO]: {} } } });
    const declared = await connect(wire, revision, true);
    const invalid = await refusal(declared.call('echo/say', { text: 42, extra: true }));
    expect(invalid.code).toBe(-32602);
    expect(invalid.message).toContain('text');
    expect(invalid.message).toContain('extra');
  });

  it('shows its change of the tools to the clients that negotiate it, and the tools as declared to the others', async () => {
    const negotiating = await connect(wire, revision, true);
    const seen = (await negotiating.client.listTools()).tools;
    expect(seen.map((tool) => [tool.name, tool._meta])).toEqual([
      ['ping', { [ECHO]: { echoes: true } }],
      ['echo_back', { [ECHO]: { echoes: true } }],
    ]);
    expect((await negotiating.client.callTool({ name: 'echo_back' })).content).toEqual([{ type: 'text', text: 'back' }]);
    // Not declared, or declared but not accepted by the extension (`muted`): plain tools, and not the one kept to its clients.
    for (const declares of [false, { muted: true }]) {
      const other = await connect(wire, revision, declares);
      expect((await other.client.listTools()).tools.map((tool) => [tool.name, tool._meta])).toEqual([['ping', undefined]]);
      // A call answers as for an unknown tool, naming only the tools this client sees.
      const unknown = await refusal(other.client.callTool({ name: 'echo_back' }));
      expect(unknown.code).toBe(-32602);
      expect(unknown.message).toContain('Unknown tool: "echo_back". Available tools: ping');
      // Gated methods go by the same negotiation.
      expect((await refusal(other.call('echo/say', { text: 'hello' }))).code).toBe(-32021);
    }
  });

  it("runs under the app's guards, rate limits and error masking", async () => {
    const { call } = await connect(wire, revision, true);
    // The app's guard refuses: the method answers as if it did not exist.
    expect((await refusal(call('echo/say', { text: 'x', _meta: { 'com.example/refuse': true } }))).code).toBe(-32601);
    // An unexpected error is masked (its message stays on the server).
    const failed = await refusal(call('echo/fail'));
    expect(failed.code).toBe(-32603);
    expect(failed.message).not.toContain('secret');
    // The app's rate limit counts the method's calls (echo/fail above was one of its own count).
    for (let i = 0; i < CALLS_PER_WINDOW; i++) await call('echo/say', { text: `call ${i}` });
    const limited = await refusal(call('echo/say', { text: 'one too many' }));
    expect(limited.code).toBe(-32029);
  });
});

describe('the extension closing with the app', () => {
  it('has its close hook run once, awaited, when the app closes', async () => {
    const app = createEchoApp();
    await app.listenHttp({ port: 0 });
    const before = echoLife.closed;
    await app.close();
    expect(echoLife.closed).toBe(before + 1);
    await app.close();
    expect(echoLife.closed).toBe(before + 1);
  });
});
