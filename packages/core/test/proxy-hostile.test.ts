// A hostile remote: a server built with the official SDK (its low-level Server, on 127.0.0.1 in
// this process) whose catalogue and results are drawn by fast-check: hostile names, URIs and
// URI templates, descriptions, schemas and _meta, `__proto__` keys, invalid content blocks, huge
// and deeply nested results. Whatever it sends, the gateway does not crash, serves each remote
// entry under its prefix only, never shadows another part, and answers every caller.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { IsString } from 'class-validator';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp, McpServer, mount, Resource, ResourceTemplate, remoteServer, Tool } from '../src/index.js';
import { connectInMemory } from './support/clients.js';

type Json = Record<string, unknown>;

/** What the hostile remote lists and answers, set by each property run. */
const remote = {
  tools: [] as unknown[],
  prompts: [] as unknown[],
  resources: [] as unknown[],
  resourceTemplates: [] as unknown[],
  result: {} as unknown,
};

function hostileServer(): Server {
  const server = new Server({ name: 'hostile', version: '1.0.0' }, { capabilities: { tools: {}, prompts: {}, resources: {} } });
  server.setRequestHandler('tools/list', async () => ({ tools: remote.tools }) as never);
  server.setRequestHandler('prompts/list', async () => ({ prompts: remote.prompts }) as never);
  server.setRequestHandler('resources/list', async () => ({ resources: remote.resources }) as never);
  server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: remote.resourceTemplates }) as never);
  server.setRequestHandler('tools/call', async () => remote.result as never);
  server.setRequestHandler('prompts/get', async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hostile' } }] }));
  server.setRequestHandler('resources/read', async (request) => ({ contents: [{ uri: request.params.uri, text: 'hostile' }] }));
  return server;
}

@McpServer({ name: 'gateway', version: '1.0.0' })
class GatewayServer {
  @Tool({ description: "The gateway's own" })
  hello() {
    return 'hello from the gateway';
  }
}

class ItemParams {
  @IsString()
  id!: string;
}

@McpServer({ name: 'other', version: '1.0.0' })
class OtherPart {
  @Tool({ description: 'Another part' })
  ping() {
    return 'pong from the other part';
  }
  @Resource({ uri: 'mem://readme', name: 'readme' })
  readme() {
    return 'the other part readme';
  }
  @ResourceTemplate({ uriTemplate: 'mem://items/{id}', name: 'item' })
  item({ id }: ItemParams) {
    return `the other part item ${id}`;
  }
}

/** Names a remote might use to shadow or confuse: other parts' names, prototype keys, controls, long. */
const hostileName = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'hello',
    'other_ping',
    'ping',
    '',
    'a b',
    'x\u0000y',
    '\u202eevil',
    'ev_x',
    '../x',
  ),
  fc.constant('n'.repeat(300)),
);
/** URIs and URI templates a remote might list to escape its prefix or break the parser. */
const hostileUri = fc.oneof(
  fc.constantFrom(
    'mem://readme',
    'mem://other/readme',
    'mem://{+rest}',
    'mem://items/{id}',
    '{scheme}://x',
    'x://{a}{b}',
    'x://{+rest}',
    'x:/{#frag}',
    'x://{',
    'x://}{',
    'javascript:alert(1)',
    'file:///etc/passwd',
    'ui://widget',
    '://',
    'demo://ev/../other/readme',
  ),
  fc.webUrl(),
  fc.string({ maxLength: 16 }).map((rest) => `x://${rest}`),
  fc.string({ maxLength: 16 }),
  fc.constant(`x://${'{a}'.repeat(200)}`),
);
const pollution = fc.constantFrom<Json>(
  JSON.parse('{"__proto__": {"polluted": "yes"}}'),
  JSON.parse('{"constructor": {"prototype": {"polluted": "yes"}}}'),
  JSON.parse('{"type": "object", "properties": {"__proto__": {"type": "string"}}}'),
);
const hostileObject = fc.oneof(fc.object({ maxDepth: 3, maxKeys: 4 }) as fc.Arbitrary<Json>, pollution);
const description = fc.option(
  fc.oneof(fc.string({ maxLength: 40 }), fc.constant('<script>alert(1)</script>'), fc.constant('d'.repeat(20_000))),
  {
    nil: undefined,
  },
);
const schema = fc.oneof(
  fc.constant<Json>({ type: 'object' }),
  pollution,
  hostileObject.map((extra) => ({ type: 'object', ...extra })),
);
const meta = fc.option(
  fc.oneof(
    hostileObject,
    fc.constant<Json>({ 'io.modelcontextprotocol/related-task': { taskId: 'x' }, ui: { resourceUri: 'ui://widget' } }),
  ),
  {
    nil: undefined,
  },
);
const withoutUndefined = (entry: Json) => Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined));

const catalogue = fc.record({
  tools: fc.array(fc.record({ name: hostileName, description, inputSchema: schema, _meta: meta }).map(withoutUndefined), { maxLength: 5 }),
  prompts: fc.array(fc.record({ name: hostileName, description, _meta: meta }).map(withoutUndefined), { maxLength: 3 }),
  resources: fc.array(fc.record({ uri: hostileUri, name: hostileName, description, _meta: meta }).map(withoutUndefined), { maxLength: 4 }),
  resourceTemplates: fc.array(fc.record({ uriTemplate: hostileUri, name: hostileName, description, _meta: meta }).map(withoutUndefined), {
    maxLength: 4,
  }),
});

/** A URI (or template) served for the `ev` part: the prefix right after the scheme. */
const UNDER_EV = /^[A-Za-z][A-Za-z0-9+.-]*:(\/\/)?ev\//;
const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

function textOf(result: unknown): string {
  return ((result as { content?: { text?: string }[] }).content ?? []).map((block) => block.text ?? '').join('');
}

/** The other parts answer as themselves: no remote entry shadows them. */
async function othersIntact(client: Client): Promise<void> {
  expect(textOf(await client.callTool({ name: 'hello', arguments: {} }))).toBe('hello from the gateway');
  expect(textOf(await client.callTool({ name: 'other_ping', arguments: {} }))).toBe('pong from the other part');
  expect((await client.readResource({ uri: 'mem://other/readme' })).contents[0]).toMatchObject({ text: 'the other part readme' });
  expect((await client.readResource({ uri: 'mem://other/items/7' })).contents[0]).toMatchObject({ text: 'the other part item 7' });
}

describe('a gateway in front of a hostile remote', () => {
  let http: HttpServer;
  let url: string;

  beforeAll(async () => {
    const handler = toNodeHandler(createMcpHandler(() => hostileServer()));
    http = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  });

  afterAll(async () => {
    await new Promise((resolve) => http.close(resolve));
  });

  it('serves any catalogue under its prefix only, never over another part, and stays up', async () => {
    await fc.assert(
      fc.asyncProperty(catalogue, async (lists) => {
        Object.assign(remote, lists);
        const app = createMcpApp([GatewayServer, mount('other', OtherPart), mount('ev', remoteServer({ url, timeoutMs: 15_000 }))], {
          logger: false,
        });
        try {
          await app.ready();
          const { client, close } = await connectInMemory(app);
          try {
            const tools = (await client.listTools()).tools;
            for (const tool of tools) {
              expect(tool.name).toMatch(NAME);
              if (!['hello', 'other_ping'].includes(tool.name)) expect(tool.name.startsWith('ev_')).toBe(true);
            }
            expect(tools.filter((tool) => tool.name === 'hello' || tool.name === 'other_ping')).toHaveLength(2);
            for (const prompt of (await client.listPrompts()).prompts) {
              expect(prompt.name).toMatch(/^ev_/);
              expect(prompt.name).toMatch(NAME);
            }
            const resources = (await client.listResources()).resources.filter((r) => r.uri !== 'mem://other/readme');
            const templates = (await client.listResourceTemplates()).resourceTemplates.filter(
              (t) => t.uriTemplate !== 'mem://other/items/{id}',
            );
            for (const resource of resources) expect(resource.uri).toMatch(UNDER_EV);
            for (const template of templates) {
              expect(template.uriTemplate).toMatch(UNDER_EV);
              expect(template.name.startsWith('ev_')).toBe(true);
            }
            // Each remote entry answers (its content, or a clear error), and the rest of the app is untouched.
            for (const tool of tools.filter((t) => t.name.startsWith('ev_')).slice(0, 2)) {
              remote.result = { content: [{ type: 'text', text: 'ok' }] };
              expect(textOf(await client.callTool({ name: tool.name, arguments: {} }))).toBe('ok');
            }
            for (const uri of [...resources.map((r) => r.uri), ...templates.map((t) => t.uriTemplate.replace(/\{[^}]*\}/g, 'v'))].slice(
              0,
              3,
            )) {
              await client.readResource({ uri }).then(
                (read) => expect(read.contents.every((item) => UNDER_EV.test(item.uri) || item.uri === uri)).toBe(true),
                (error: Error) => expect(error.message.length).toBeGreaterThan(0),
              );
            }
            await othersIntact(client);
            expect(({} as Json).polluted).toBeUndefined();
          } finally {
            await close();
          }
        } finally {
          await app.close();
        }
      }),
      { numRuns: 40 },
    );
  }, 240_000);

  it('does not serve a template whose match would take minutes, and every read still answers at once', async () => {
    const slow = `x://${'{a}'.repeat(30)}`;
    Object.assign(remote, { tools: [], prompts: [], resources: [], resourceTemplates: [{ uriTemplate: slow, name: 'slow' }] });
    const app = createMcpApp([GatewayServer, mount('other', OtherPart), mount('ev', remoteServer({ url, timeoutMs: 15_000 }))], {
      logger: false,
    });
    const skipped: unknown[] = [];
    app.onEvent((event) => {
      if (event.event === 'remote-skipped') skipped.push(event);
    });
    try {
      await app.ready();
      const { client, close } = await connectInMemory(app);
      try {
        expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.name)).toEqual(['other_item']);
        // Matched against the 30 variables, this URI took minutes with the event loop blocked.
        await expect(client.readResource({ uri: `x://ev/${'v'.repeat(60)}/x` })).rejects.toThrow(/not found/i);
        await othersIntact(client);
      } finally {
        await close();
      }
      expect(skipped).toEqual([
        {
          event: 'remote-skipped',
          part: "mount('ev')",
          name: slow,
          reason: 'its URI template is not served: two variables share a path segment, so a URI can be split between them in many ways',
        },
      ]);
    } finally {
      await app.close();
    }
  }, 60_000);

  describe('its results', () => {
    let app: ReturnType<typeof createMcpApp>;
    let client: Client;
    let close: () => Promise<void>;

    beforeAll(async () => {
      Object.assign(remote, {
        tools: [{ name: 'result', inputSchema: { type: 'object' } }],
        prompts: [],
        resources: [],
        resourceTemplates: [],
      });
      app = createMcpApp([GatewayServer, mount('other', OtherPart), mount('ev', remoteServer({ url, timeoutMs: 15_000 }))], {
        logger: false,
      });
      await app.ready();
      ({ client, close } = await connectInMemory(app));
    }, 30_000);

    afterAll(async () => {
      await close?.();
      await app?.close();
    });

    const block = fc.oneof(
      fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 30 }) }),
      fc.record({ type: fc.constant('resource_link'), uri: hostileUri, name: hostileName }),
      fc.record({ type: fc.constant('resource'), resource: fc.record({ uri: hostileUri, text: fc.string({ maxLength: 10 }) }) }),
      fc.record({ type: fc.constantFrom('image', 'audio'), data: fc.string({ maxLength: 10 }), mimeType: fc.string({ maxLength: 10 }) }),
      fc.record({ type: fc.string({ maxLength: 8 }) }),
      hostileObject,
    );
    const result = fc.record(
      {
        content: fc.oneof({ arbitrary: fc.array(block, { maxLength: 4 }), weight: 6 }, hostileObject, fc.constant(null)),
        structuredContent: hostileObject,
        isError: fc.oneof(fc.boolean(), fc.string({ maxLength: 4 })),
        _meta: fc.oneof(hostileObject, fc.constant<Json>({ 'io.modelcontextprotocol/related-task': { taskId: 'forged' }, own: 1 })),
        resultType: fc.oneof({ arbitrary: fc.constant('complete'), weight: 6 }, fc.constantFrom('input_required', 'bogus')),
      },
      { requiredKeys: [] },
    );

    it('answers every caller with the sanitised result or a clear error, and stays up', async () => {
      await fc.assert(
        fc.asyncProperty(result, async (answer) => {
          remote.result = answer;
          const outcome = await client.callTool({ name: 'ev_result', arguments: {} }).then(
            (value) => ({ value }),
            (error: Error) => ({ error }),
          );
          // Refused: by the gateway's check of what it sends, or by the remote itself (its own error, passed on).
          if ('error' in outcome)
            expect(outcome.error.message).toMatch(
              /^(Invalid tools\/call result: |Handler for tools\/call returned an input-required result)/,
            );
          else {
            const value = outcome.value as { content: Json[]; _meta?: Json };
            expect(Object.keys(value._meta ?? {}).filter((key) => key.startsWith('io.modelcontextprotocol/related-task'))).toEqual([]);
            for (const item of value.content) {
              const uri = item.type === 'resource_link' ? item.uri : item.type === 'resource' ? (item.resource as Json)?.uri : undefined;
              // A URI the gateway can put its prefix in is moved under it; one it cannot stays as it was.
              if (typeof uri === 'string' && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) expect(uri).toMatch(UNDER_EV);
            }
          }
          expect(textOf(await client.callTool({ name: 'hello', arguments: {} }))).toBe('hello from the gateway');
          expect(({} as Json).polluted).toBeUndefined();
        }),
        { numRuns: 150 },
      );
    }, 240_000);

    it.each([
      ['a 16 MB text', () => ({ content: [{ type: 'text', text: 'x'.repeat(16 * 1024 * 1024) }] })],
      ['structured content nested 1,000 deep', () => ({ content: [], structuredContent: nested(1_000) })],
      ['100,000 content blocks', () => ({ content: Array.from({ length: 100_000 }, () => ({ type: 'text', text: 'x' })) })],
    ])(
      'answers %s, or a clear error, and stays up',
      async (_label, make) => {
        remote.result = make();
        const outcome = await client.callTool({ name: 'ev_result', arguments: {} }).then(
          (value) => `result: ${textOf(value).length} chars`,
          (error: Error) => `error: ${error.message}`,
        );
        expect(outcome.length).toBeGreaterThan(7);
        expect(textOf(await client.callTool({ name: 'hello', arguments: {} }))).toBe('hello from the gateway');
      },
      60_000,
    );
  });
});

function nested(depth: number): Json {
  let value: Json = { leaf: true };
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}
