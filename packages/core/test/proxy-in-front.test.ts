// The app in front of a remote server: its bearer authentication (the caller's token stays with the
// app), its rate limits and its tracing apply to the remote's tools as to its own. The remote is the
// fixture server, a separate process on 127.0.0.1.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp, type HttpListener, mount, remoteServer, type TokenVerifier } from '../src/index.js';
import { connectInMemory } from './support/clients.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/remote-server.mjs', import.meta.url));

let remote: ChildProcess;
let remoteUrl: string;

beforeAll(async () => {
  remote = spawn(process.execPath, [FIXTURE, 'http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  remoteUrl = await new Promise<string>((resolve) => remote.stdout?.once('data', (chunk) => resolve(String(chunk).trim())));
});
afterAll(() => {
  remote?.kill();
});

type Received = { traceparent: string | null; authorization: string | null };

function structured<T>(result: unknown): T {
  return (result as { structuredContent: T }).structuredContent;
}

/** Listens for `app` on a free port with bearer authentication: only the token `accepted` (Ann's) is let in. */
async function listenWithAuth(app: ReturnType<typeof createMcpApp>, accepted: string): Promise<HttpListener> {
  const verifier: TokenVerifier = {
    async verify(token) {
      if (token !== accepted) throw new Error('unknown token');
      return { token, clientId: 'ann', scopes: [], extra: { sub: 'ann' } };
    },
  };
  const probe = await app.listenHttp({ port: 0 });
  const resource = probe.url;
  await probe.close();
  return app.listenHttp({
    port: Number(new URL(resource).port),
    auth: { verifier, resource, authorizationServers: ['https://auth.example.com'] },
  });
}

describe('the app in front of a remote server', () => {
  it.each(['auto', '2025-11-25'] as const)(
    "passes none of the caller's token, headers, cookies or _meta to the remote (protocolVersion %s)",
    async (protocolVersion) => {
      const app = createMcpApp(
        mount('web', remoteServer({ url: remoteUrl, protocolVersion, headers: { 'x-gateway-key': 'gateway-key' } })),
        { logger: false },
      );
      let listener: HttpListener | undefined;
      try {
        listener = await listenWithAuth(app, 'caller-token-secret');
        const client = new Client({ name: 'ann', version: '1.0.0' });
        const headers = {
          authorization: 'Bearer caller-token-secret',
          cookie: 'session=caller-cookie-secret',
          'x-caller-key': 'caller-header-secret',
        };
        await client.connect(new StreamableHTTPClientTransport(new URL(listener.url), { requestInit: { headers } }));
        const received = structured<Received & { headers: Record<string, string>; meta: Record<string, unknown> }>(
          await client.callTool({
            name: 'web_received',
            arguments: {},
            _meta: { secret: 'caller-meta-secret', traceparent: 'caller-trace-secret' },
          }),
        );
        await client.close();
        expect(received.headers['x-gateway-key']).toBe('gateway-key');
        expect(received.authorization).toBeNull();
        expect(received.headers.cookie).toBeUndefined();
        // Nothing the caller sent, under any name: not its token, cookie, header, nor its _meta.
        expect(JSON.stringify(received)).not.toMatch(/caller-/);
      } finally {
        await listener?.close();
        await app.close();
      }
    },
  );

  it("verifies the caller's token itself and sends the remote the app's own credentials, never the caller's", async () => {
    const app = createMcpApp(mount('web', remoteServer({ url: remoteUrl, headers: { authorization: 'Bearer gateway-key' } })), {
      logger: false,
    });
    let listener: HttpListener | undefined;
    try {
      listener = await listenWithAuth(app, 'caller-token');
      const anonymous = new Client({ name: 'anonymous', version: '1.0.0' });
      await expect(anonymous.connect(new StreamableHTTPClientTransport(new URL(listener.url)))).rejects.toThrow();

      const client = new Client({ name: 'ann', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(listener.url), { requestInit: { headers: { authorization: 'Bearer caller-token' } } }),
      );
      const received = structured<Received>(await client.callTool({ name: 'web_received', arguments: {} }));
      expect(received.authorization).toBe('Bearer gateway-key');
      await client.close();
    } finally {
      await listener?.close();
      await app.close();
    }
  });

  it("counts the app's rate limits before a call leaves for the remote", async () => {
    const app = createMcpApp(mount('web', remoteServer({ url: remoteUrl })), {
      logger: false,
      rateLimits: [{ limit: 2, windowMs: 60_000, by: ['tool'] }],
    });
    const { client, close } = await connectInMemory(app);
    try {
      await app.ready();
      const before = structured<{ calls: number }>(await client.callTool({ name: 'web_stats', arguments: {} })).calls;
      for (const text of ['one', 'two']) await client.callTool({ name: 'web_echo', arguments: { text } });
      const third = await client.callTool({ name: 'web_echo', arguments: { text: 'three' } });
      expect(third.isError).toBe(true);
      expect((third.content as { text: string }[])[0]?.text).toMatch(/^Rate limit reached: tool "web_echo"/);
      // Counted per tool: the stats tool has its own count left.
      expect(structured<{ calls: number }>(await client.callTool({ name: 'web_stats', arguments: {} })).calls).toBe(before + 2);
    } finally {
      await close();
      await app.close();
    }
  });

  for (const detail of ['handlers', 'steps'] as const) {
    it(`traces the call (detail: ${detail}): the remote receives the trace context, of the request's CLIENT span with steps, of the handler's span by default`, async () => {
      const spans = new InMemorySpanExporter();
      const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
      trace.setGlobalTracerProvider(provider);
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      const app = createMcpApp(mount('web', remoteServer({ url: remoteUrl })), { logger: false, telemetry: { detail } });
      try {
        await app.ready();
        const { client, close } = await connectInMemory(app);
        const received = structured<Received>(await client.callTool({ name: 'web_received', arguments: {} }));
        await close();
        const finished = spans.getFinishedSpans();
        const server = finished.find((span) => span.name === 'tools/call web_received');
        const outgoing = finished.find((span) => span.name === 'tools/call' && span.kind === 2 /* CLIENT */);
        const handler = finished.find((span) => span.name === 'execute_tool web_received');
        expect(server, finished.map((span) => span.name).join(', ')).toBeDefined();
        const parent = detail === 'steps' ? outgoing : handler;
        if (detail === 'handlers') expect(outgoing).toBeUndefined();
        expect(parent?.spanContext().traceId).toBe(server?.spanContext().traceId);
        expect(received.traceparent).toBe(`00-${parent?.spanContext().traceId}-${parent?.spanContext().spanId}-01`);
      } finally {
        await app.close();
        trace.disable();
        context.disable();
        propagation.disable();
        await provider.shutdown();
      }
    });
  }
});
