import type { AddressInfo } from 'node:net';
import { Context, McpServer, Tool } from '@armature/core';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type INestApplication, Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { describe, expect, it, vi } from 'vitest';
import { ArmatureHost, ArmatureModule } from '../src/index.js';

@McpServer({ name: 'jobs', version: '1.0.0' })
@Injectable()
class JobsServer {
  @Tool({ description: 'Takes a while' })
  async slow(ctx: Context) {
    await slowCall.finish;
    return ctx.signal.aborted ? 'aborted' : 'finished';
  }
}

/** The test finishes the `slow` call itself, once app.close() is under way (no race with a timer). */
const slowCall = { release: (): void => undefined, finish: Promise.resolve() };
slowCall.finish = new Promise((resolve) => {
  slowCall.release = resolve;
});

// A deadline far beyond the test's timeout: a close() that waited it out instead of ending when
// the call finishes fails here, whatever the machine's speed.
@Module({ imports: [ArmatureModule.forRoot({ shutdownDeadlineMs: 60_000 })], providers: [JobsServer] })
class JobsModule {}

describe('Nest lifecycle', () => {
  it('app.close() lets a running call finish, then closes the MCP sessions and the port', async () => {
    const app: INestApplication = await NestFactory.create(JobsModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    const url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}/mcp`;
    const client = new Client({ name: 'lifecycle', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    // A second session, opened by hand, with its standalone SSE stream: open until the server ends the session.
    const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(url, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    const session = { 'mcp-session-id': init.headers.get('mcp-session-id') as string, 'mcp-protocol-version': '2025-11-25' };
    await init.text();
    await fetch(url, {
      method: 'POST',
      headers: { ...json, ...session },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const stream = await fetch(url, { headers: { accept: 'text/event-stream', ...session } });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const ended = (async () => {
      for (;;) if ((await reader.read()).done) return 'ended';
    })();
    const running = client.callTool({ name: 'slow', arguments: {} });
    const host = app.get(ArmatureHost);
    await vi.waitFor(() => expect(host.app.stats.liveScopes).toBe(1), { timeout: 10_000 });
    let closed = false;
    const closing = app.close().then(() => {
      closed = true;
    });
    // Absence after a wait: a slow machine only makes an early close less likely, never more.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed, 'close() waits for the running call').toBe(false);
    slowCall.release();
    await closing;
    expect(await running).toEqual({ content: [{ type: 'text', text: 'finished' }] });
    expect(await ended).toBe('ended');
    expect(host.app.stats.liveScopes).toBe(0);
    await expect(fetch(url, { method: 'POST' })).rejects.toThrow('fetch failed');
    await client.close();
  });

  it('reports every problem of the Nest providers and the builder in one error at start-up', async () => {
    @Injectable()
    class LooseTools {
      @Tool({ description: 'not served' })
      forgotten() {
        return 'x';
      }
    }

    @McpServer({ name: 'twice', version: '1.0.0' })
    @Injectable()
    class SharedServer {
      @Tool({ name: 'bad name!', description: 'invalid name' })
      bad() {
        return 'x';
      }
    }

    @Module({ providers: [LooseTools, SharedServer] })
    class FirstModule {}

    @Module({ providers: [SharedServer] })
    class SecondModule {}

    @Module({ imports: [ArmatureModule.forRoot({ http: false }), FirstModule, SecondModule] })
    class BrokenApp {}

    const failure = await NestFactory.createApplicationContext(BrokenApp, { logger: false, abortOnError: false }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.name).toBe('ArmatureBuildError');
    expect(failure?.message).toBe(
      [
        'Armature cannot start the MCP server of this Nest app: 3 problems in the Nest providers.',
        '  1. LooseTools: is a provider of FirstModule with @Tool, @Resource or @Prompt methods but has no @McpServer, so they are not served',
        "     Fix: add @McpServer({ name: 'LooseTools', version: '1.0.0' }) above @Injectable() on LooseTools",
        '  2. SharedServer: is in the providers of FirstModule and SecondModule: Nest makes one instance per module, so its tools would be registered twice',
        "     Fix: keep SharedServer in the providers of FirstModule only, and add it to that module's exports where other modules need it",
        '  3. SharedServer.bad: the tool name "bad name!" is invalid: a name is 1-128 characters of A-Z a-z 0-9 _ . - [ARM106]',
        "     Fix: @Tool({ name: 'bad_name', ... })",
      ].join('\n'),
    );
  });

  it('says so when no provider carries @McpServer', async () => {
    @Module({ imports: [ArmatureModule.forRoot({ http: false })] })
    class EmptyApp {}

    const failure = await NestFactory.createApplicationContext(EmptyApp, { logger: false, abortOnError: false }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toBe(
      [
        'Armature cannot start the MCP server of this Nest app: 1 problem in the Nest providers.',
        '  1. ArmatureModule: no provider of the Nest app carries @McpServer, so there is nothing to serve',
        "     Fix: decorate a provider with @McpServer({ name: 'notes', version: '1.0.0' }) and add it to the providers of its module",
      ].join('\n'),
    );
  });
});
