import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { IsInt, Min } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { AppResource, ArmatureBuildError, createMcpApp, Field, McpServer, Resource, Tool } from '../src/index.js';
import { type Connected, connectHttp, connectInMemory } from './support/clients.js';

// MCP Apps (io.modelcontextprotocol/ui, ext-apps specification 2026-01-26) from decorators: the
// tool's `_meta.ui`, the ui:// resource with its MIME type and metadata, and capability
// negotiation (a client without the extension gets plain tools), through the official v2 client.

const VIEW = 'ui://counter/view.html';
const HOST = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

class AddInput {
  @Field('How much to add')
  @IsInt()
  @Min(1)
  by!: number;
}

@McpServer({ name: 'counter', version: '1.0.0' })
class CounterServer {
  @Tool({
    description: 'Adds to the counter and shows it',
    outputSchema: { type: 'object', properties: { total: { type: 'integer' } }, required: ['total'] },
    ui: { resource: VIEW },
  })
  add(input: AddInput) {
    return { total: input.by };
  }

  @Tool({ description: 'Resets the counter (from its app only)', ui: { resource: VIEW, visibility: ['app'] } })
  reset() {
    return 'reset';
  }

  @AppResource({
    uri: VIEW,
    name: 'counter-view',
    description: 'The counter',
    csp: { connectDomains: ['https://api.example.com'] },
    permissions: { clipboardWrite: {} },
    prefersBorder: true,
  })
  view() {
    return '<!doctype html><html><body><p id="total">0</p></body></html>';
  }
}

const UI_META = { csp: { connectDomains: ['https://api.example.com'] }, permissions: { clipboardWrite: {} }, prefersBorder: true };

let connected: Connected | undefined;
afterEach(async () => {
  await connected?.close();
  connected = undefined;
});

const transports = [
  ['2025-11-25 in memory', (capabilities: object) => connectInMemory(createMcpApp(CounterServer), capabilities as Record<string, unknown>)],
  [
    '2025-11-25 HTTP session',
    (capabilities: object) =>
      connectHttp(createMcpApp(CounterServer), { modern: false, capabilities: capabilities as Record<string, unknown> }),
  ],
  [
    '2026-07-28 over HTTP',
    (capabilities: object) =>
      connectHttp(createMcpApp(CounterServer), { modern: true, capabilities: capabilities as Record<string, unknown> }),
  ],
] as const;

describe.each(transports)('MCP Apps, %s', (_name, connect) => {
  it('a host with the extension sees each tool with its app, the app-only tool, and the app resource with its metadata', async () => {
    connected = await connect(HOST);
    const { client } = connected;
    expect(client.getServerCapabilities()?.extensions?.[EXTENSION_ID]).toEqual({ mimeTypes: [RESOURCE_MIME_TYPE] });

    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t._meta])).toEqual([
      ['add', { ui: { resourceUri: VIEW }, [RESOURCE_URI_META_KEY]: VIEW }],
      ['reset', { ui: { resourceUri: VIEW, visibility: ['app'] }, [RESOURCE_URI_META_KEY]: VIEW }],
    ]);
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      { uri: VIEW, name: 'counter-view', description: 'The counter', mimeType: RESOURCE_MIME_TYPE, _meta: { ui: UI_META } },
    ]);
    const read = await client.readResource({ uri: VIEW });
    expect(read.contents).toEqual([
      {
        uri: VIEW,
        mimeType: RESOURCE_MIME_TYPE,
        _meta: { ui: UI_META },
        text: '<!doctype html><html><body><p id="total">0</p></body></html>',
      },
    ]);

    const added = await client.callTool({ name: 'add', arguments: { by: 2 } });
    expect(added.structuredContent).toEqual({ total: 2 });
    const reset = await client.callTool({ name: 'reset', arguments: {} });
    expect(reset.isError).toBeFalsy();
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Available tools: add, reset$/);
  });

  it('a client without the extension sees plain tools: no _meta.ui, and not the app-only tool', async () => {
    connected = await connect({});
    const { client } = connected;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add']);
    expect(tools[0]?._meta).toBeUndefined();
    expect(tools[0]?.outputSchema).toEqual({ type: 'object', properties: { total: { type: 'integer' } }, required: ['total'] });
    // The plain tool still answers with its structured result; the app-only tool is unknown to it.
    expect((await client.callTool({ name: 'add', arguments: { by: 1 } })).structuredContent).toEqual({ total: 1 });
    // Unknown to it, and not named among the tools it may call.
    await expect(client.callTool({ name: 'reset', arguments: {} })).rejects.toThrow(/Unknown tool.*Available tools: add$/is);
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Available tools: add$/);
  });

  it('a client declaring the extension without the app MIME type is not a host of apps', async () => {
    connected = await connect({ extensions: { [EXTENSION_ID]: { mimeTypes: ['text/uri-list'] } } });
    expect((await connected.client.listTools()).tools.map((t) => [t.name, t._meta])).toEqual([['add', undefined]]);
  });
});

describe('MCP Apps: start-up checks', () => {
  function problemsOf(...classes: (new () => object)[]) {
    try {
      createMcpApp(classes);
    } catch (error) {
      if (error instanceof ArmatureBuildError) return error.problems.map((p) => [p.code, p.where, p.message, p.fix]);
      throw error;
    }
    throw new Error('expected an ArmatureBuildError');
  }

  it('reports a bad ui URI, bad visibility, an unserved app, a resource of another MIME type and a non-ui @AppResource, all at once', () => {
    @McpServer({ name: 'broken', version: '1.0.0' })
    class Broken {
      @Tool({ description: 'd', ui: { resource: 'https://example.com/view.html' } })
      web() {}
      @Tool({ description: 'd', ui: { resource: VIEW, visibility: ['user' as 'app'] } })
      who() {}
      @Tool({ description: 'd', ui: { resource: 'ui://nobody/serves.html' } })
      orphan() {}
      @Tool({ description: 'd', ui: { resource: 'ui://plain/page.html' } })
      plain() {}
      @Resource({ uri: 'ui://plain/page.html', name: 'page', mimeType: 'text/html' })
      page() {
        return '<p>';
      }
      @AppResource({ uri: 'file:///view.html', name: 'file-view' })
      fileView() {
        return '<p>';
      }
    }
    const problems = problemsOf(Broken);
    expect(problems.map(([code, where]) => [code, where])).toEqual([
      ['ARM140', 'Broken.web'],
      ['ARM141', 'Broken.who'],
      ['ARM144', 'Broken.fileView'],
      ['ARM142', 'Broken.orphan'],
      ['ARM143', 'Broken.plain'],
    ]);
    expect(problems[3]?.[3]).toContain("@AppResource({ uri: 'ui://nobody/serves.html'");
    expect(problems[4]?.[2]).toContain('Broken.page serves as text/html');
  });

  it('accepts a plain @Resource with the MCP App MIME type as the app', () => {
    @McpServer({ name: 'by-hand', version: '1.0.0' })
    class ByHand {
      @Tool({ description: 'd', ui: { resource: 'ui://hand/view.html' } })
      show() {}
      @Resource({ uri: 'ui://hand/view.html', name: 'view', mimeType: RESOURCE_MIME_TYPE })
      view() {
        return '<p>';
      }
    }
    expect(() => createMcpApp(ByHand)).not.toThrow();
  });
});
