import type { StandardSchemaV1 } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createMcpApp, defineExtension, McpServer, Resource, type ServerEvent, Tool } from '../src/index.js';
import { buildError } from './support/build-error.js';
import { connectInMemory } from './support/clients.js';

// What an extension's setup may change (its advertised settings, a resource's `_meta`, what it
// reports) and its close hook, through the public interface only.

@McpServer({ name: 'host', version: '1.0.0' })
class HostServer {
  @Tool({ description: 'd' })
  ping() {
    return 'pong';
  }

  @Resource({ uri: 'config://app', name: 'config', mimeType: 'text/plain' })
  config() {
    return 'on';
  }
}

const ID = 'com.example/marks';
const anyResult: StandardSchemaV1<Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value: value as Record<string, unknown> }) },
};

describe('extension setup: advertising, resources, problems', () => {
  it('advertises what setup says, and nothing once it withdraws', async () => {
    const replaced = createMcpApp(HostServer, {
      extensions: [defineExtension({ id: ID, settings: { v: 1 }, setup: (host) => host.advertise({ v: 2, tools: host.catalog.tools }) })],
    });
    const withdrawn = createMcpApp(HostServer, {
      extensions: [defineExtension({ id: ID, settings: { v: 1 }, setup: (host) => host.advertise(undefined) })],
    });
    for (const [app, expected] of [
      [replaced, { v: 2, tools: ['ping'] }],
      [withdrawn, undefined],
    ] as const) {
      const { client, close } = await connectInMemory(app);
      expect(client.getServerCapabilities()?.extensions?.[ID]).toEqual(expected);
      await close();
    }
  });

  it("puts a resource's added _meta on its listing and on what reading it returns, for every client", async () => {
    const app = createMcpApp(HostServer, {
      extensions: [
        defineExtension({ id: ID, setup: (host) => host.extendResource('config://app', { _meta: { [ID]: { marked: true } } }) }),
      ],
    });
    const { client, close } = await connectInMemory(app);
    expect((await client.listResources()).resources[0]?._meta).toEqual({ [ID]: { marked: true } });
    expect((await client.readResource({ uri: 'config://app' })).contents).toEqual([
      { uri: 'config://app', mimeType: 'text/plain', _meta: { [ID]: { marked: true } }, text: 'on' },
    ]);
    await close();
  });

  it('refuses an accepts or close that is not a function', () => {
    const error = buildError(() =>
      createMcpApp(HostServer, {
        extensions: [defineExtension({ id: ID, accepts: 'yes' as never, close: true as never })],
      }),
    );
    expect(error.problems.map((p) => [p.code, p.where, p.message])).toEqual([
      ['ARM165', `extension ${ID}`, 'accepts is a string ("yes"); it must be a function'],
      ['ARM165', `extension ${ID}`, 'close is true; it must be a function'],
    ]);
  });

  it('reports changes of what the app does not serve, bad changes and bad settings, and problems where and as the extension says', () => {
    const setupProblems = buildError(() =>
      createMcpApp(HostServer, {
        extensions: [
          defineExtension({
            id: ID,
            setup: (host) => {
              host.extendTool('nope', { _meta: {} });
              host.extendResource('config://nope', { _meta: {} });
              host.extendTool('ping', { _meta: [] as unknown as Record<string, unknown> });
              host.extendTool('ping', { onlyForExtensionClients: 'yes' as unknown as boolean });
              host.extendResource('config://app', {} as never);
              host.advertise('on' as unknown as Record<string, unknown>);
              host.problem('ping is not marked', 'mark it', { where: host.tool('ping')?.where, code: 'MARKS1' });
            },
          }),
        ],
      }),
    ).problems;
    expect(setupProblems.map((p) => [p.code, p.where])).toEqual([
      ['ARM175', `extension ${ID} extendTool("nope")`],
      ['ARM175', `extension ${ID} extendResource("config://nope")`],
      ['ARM176', `extension ${ID} extendTool("ping")`],
      ['ARM176', `extension ${ID} extendTool("ping")`],
      ['ARM176', `extension ${ID} extendResource("config://app")`],
      ['ARM166', `extension ${ID} advertise`],
      ['MARKS1', 'HostServer.ping'],
    ]);
    expect(setupProblems[0]?.message).toBe('the app serves no tool "nope" to change');
    expect(setupProblems[3]?.message).toBe('onlyForExtensionClients is a string ("yes"); it must be true or false');
  });

  it('lets setup read a tool and a resource as the classes declared them', () => {
    let seen: unknown;
    createMcpApp(HostServer, {
      extensions: [
        defineExtension({
          id: ID,
          setup: (host) => {
            const tool = host.tool('ping');
            const resource = host.resourceOf('config://app');
            seen = { tool: tool && { ...tool, servedUri: tool.servedUri('x://y') }, resource, none: host.tool('nope') };
          },
        }),
      ],
    });
    expect(seen).toEqual({
      tool: {
        name: 'ping',
        where: 'HostServer.ping',
        descriptor: expect.objectContaining({ name: 'ping', description: 'd' }),
        options: { description: 'd' },
        servedUri: 'x://y',
      },
      resource: {
        uri: 'config://app',
        where: 'HostServer.config',
        mimeType: 'text/plain',
        options: { uri: 'config://app', name: 'config', mimeType: 'text/plain' },
      },
      none: undefined,
    });
  });
});

describe('extension negotiation: hostile declarations', () => {
  // A declaration that is not an object is refused by the SDK at initialize; objects reach accepts.
  it('takes a declaration accepts throws on as not negotiated, and keeps serving', async () => {
    const app = createMcpApp(HostServer, {
      extensions: [
        defineExtension({
          id: ID,
          accepts: (declared) => {
            if ('boom' in declared) throw new Error('accepts blew up');
            return true;
          },
          setup: (host) => host.extendTool('ping', { _meta: { [ID]: true }, onlyForExtensionClients: true }),
          methods: { 'marks/get': { requiresClientExtension: true, handle: () => ({ ok: true }) } },
        }),
      ],
    });
    const hostile: Record<string, unknown>[] = [{ boom: 1 }, JSON.parse('{"__proto__": {"boom": 1}}'), { big: 'x'.repeat(100_000) }, {}];
    for (const declared of hostile) {
      const { client, close } = await connectInMemory(app, { extensions: { [ID]: declared } });
      const negotiated = !('boom' in declared);
      expect((await client.listTools()).tools.map((tool) => tool._meta)).toEqual(negotiated ? [{ [ID]: true }] : []);
      const answer = await client.request({ method: 'marks/get', params: {} }, anyResult).catch((error: { code: number }) => error.code);
      expect(answer).toEqual(negotiated ? { ok: true } : -32021);
      await close();
    }
  });
});

describe('extension close hook', () => {
  it('runs each close once when the app closes, awaited; a failing one is reported and the others still close', async () => {
    const closed: string[] = [];
    const app = createMcpApp(HostServer, {
      logger: false,
      extensions: [
        defineExtension({
          id: 'com.example/slow',
          close: async () => {
            await new Promise((resolve) => setTimeout(resolve, 30));
            closed.push('slow');
          },
        }),
        defineExtension({
          id: 'com.example/broken',
          close: () => {
            throw new Error('the store is gone');
          },
        }),
        defineExtension({ id: 'com.example/rejects', close: () => Promise.reject(new Error('late')) }),
        defineExtension({ id: 'com.example/fine', close: () => void closed.push('fine') }),
      ],
    });
    const events: ServerEvent[] = [];
    app.onEvent((event) => events.push(event));
    await app.close();
    expect(closed.sort()).toEqual(['fine', 'slow']);
    const failures = events.flatMap((event) =>
      event.event === 'extension-close-failed' ? [[event.extension, (event.error as Error).message]] : [],
    );
    expect(failures.sort()).toEqual([
      ['com.example/broken', 'the store is gone'],
      ['com.example/rejects', 'late'],
    ]);
    // The extensions closed before the app said it stopped.
    expect(events.at(-1)).toEqual({ event: 'stopped' });
    await app.close();
    expect(closed).toHaveLength(2);
  });

  it('logs a failed close on stderr by default', async () => {
    const lines: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const app = createMcpApp(HostServer, {
        extensions: [defineExtension({ id: 'com.example/broken', close: () => Promise.reject(new Error('the store is gone')) })],
      });
      await app.close();
    } finally {
      process.stderr.write = write;
    }
    expect(lines.join('')).toContain('extension com.example/broken failed to close: Error: the store is gone');
  });
});
