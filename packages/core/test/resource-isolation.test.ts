import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { IsString } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpApp, type ExecutionContext, type Guard, McpServer, Resource, ResourceTemplate, UseGuards } from '../src/index.js';
import { type Connected, connectInMemory } from './support/clients.js';

class AdminsOnly implements Guard {
  canActivate({ context }: ExecutionContext) {
    return context.meta.role === 'admin';
  }
}

class DocPath {
  @IsString() a!: string;
  @IsString() b!: string;
}

@McpServer({ name: 'isolated-resources', version: '1' })
class Docs {
  @Resource({ uri: 'public://readme', name: 'readme' })
  readme() {
    return 'hello';
  }

  @UseGuards(AdminsOnly)
  @Resource({ uri: 'secret://admin', name: 'admin' })
  admin() {
    return 'the keys';
  }

  @ResourceTemplate({ uriTemplate: 'docs://{+a}/{+b}', name: 'doc' })
  doc(params: DocPath) {
    return `${params.a} | ${params.b}`;
  }
}

let connection: Connected | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

describe('resource subscriptions ask the same guards as reads', () => {
  it('answers a subscription to a hidden resource exactly like one to a missing resource', async () => {
    connection = await connectInMemory(createMcpApp(Docs));
    const refusal = (uri: string) =>
      (connection as Connected).client.subscribeResource({ uri }).then(
        () => ({ code: 0, message: 'subscribed' }),
        (e: Error & { code: number }) => ({ code: e.code, message: e.message }),
      );
    const hidden = await refusal('secret://admin');
    const missing = await refusal('secret://nothing');
    expect([hidden.code, hidden.message.replace('secret://admin', '<uri>')]).toEqual([
      missing.code,
      missing.message.replace('secret://nothing', '<uri>'),
    ]);
    expect(hidden.code).toBe(-32602);
    // An admin may subscribe.
    expect(await connection.client.subscribeResource({ uri: 'secret://admin', _meta: { role: 'admin' } })).toEqual({});
  });

  it('caps the subscriptions of one session', async () => {
    connection = await connectInMemory(createMcpApp(Docs, { maxSubscriptionsPerSession: 2 }));
    await connection.client.subscribeResource({ uri: 'public://readme' });
    await connection.client.subscribeResource({ uri: 'docs://x/y' });
    await connection.client.subscribeResource({ uri: 'docs://x/y' }); // the same one again is no new subscription
    await expect(connection.client.subscribeResource({ uri: 'docs://x/z' })).rejects.toMatchObject({
      code: -32600,
      message: expect.stringContaining('This session already holds 2 resource subscriptions (the limit); unsubscribe from one'),
    });
    await connection.client.unsubscribeResource({ uri: 'docs://x/y' });
    expect(await connection.client.subscribeResource({ uri: 'docs://x/z' })).toEqual({});
  });
});

describe('2026-07-28 listen streams ask the same guards as reads', () => {
  it('refuses a listen filter naming a hidden resource exactly like one naming a missing resource', async () => {
    const listener = await createMcpApp(Docs).listenHttp({ port: 0 });
    const client = new Client({ name: 'listener', version: '1' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const refusal = (uri: string) =>
        client.listen({ resourceSubscriptions: [uri] }).then(
          async (stream) => {
            await stream.close();
            return 'listening';
          },
          (e: Error) => e.message.replace(uri, '<uri>'),
        );
      const hidden = await refusal('secret://admin');
      expect(hidden).toContain('Resource not found: <uri>');
      expect(await refusal('secret://nothing')).toBe(hidden);
      expect(await refusal('public://readme')).toBe('listening');
      expect(await refusal('docs://a/b')).toBe('listening');
    } finally {
      await client.close();
      await listener.close();
    }
  });
});

describe('over-long URIs', () => {
  it('refuses a 128 KiB URI before any template is matched, and keeps serving', async () => {
    connection = await connectInMemory(createMcpApp(Docs));
    const uri = `docs://${'a/'.repeat(64 * 1024)}`;
    await expect(connection.client.readResource({ uri })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(`the URI is ${uri.length} characters long, over the limit of 8192`),
    });
    await expect(connection.client.subscribeResource({ uri })).rejects.toMatchObject({ code: -32602 });
    const read = await connection.client.readResource({ uri: 'docs://guide/intro' });
    expect(read.contents[0]).toMatchObject({ text: 'guide | intro' });
  });
});
