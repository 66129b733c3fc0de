import { IsInt } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { ArmatureBuildError, createMcpApp, defineExtension, type Extension, McpServer, Tool } from '../src/index.js';
import { connectInMemory } from './support/clients.js';

function buildError(run: () => unknown): ArmatureBuildError {
  try {
    run();
  } catch (error) {
    if (error instanceof ArmatureBuildError) return error;
    throw error;
  }
  throw new Error('expected an ArmatureBuildError');
}

@McpServer({ name: 'ext', version: '1.0.0' })
class ExtServer {
  @Tool({ description: 'd' })
  ping() {
    return 'pong';
  }
}

class CountParams {
  @IsInt()
  n!: number;
}

const handle = () => ({});

describe('extensions: start-up checks', () => {
  it('reports every bad extension at once: not defined, bad or taken ids, settings, hooks', () => {
    const error = buildError(() =>
      createMcpApp(ExtServer, {
        extensions: [
          'echo' as unknown as Extension,
          defineExtension({ id: 'echo' }),
          defineExtension({ id: 'com.example/a' }),
          defineExtension({ id: 'com.example/a' }),
          defineExtension({ id: 'io.modelcontextprotocol/tasks' }),
          defineExtension({ id: 'com.example/b', settings: [] as unknown as Record<string, unknown> }),
          defineExtension({ id: 'com.example/c', onRequest: 'x' as never }),
        ],
      }),
    );
    expect(error.problems.map((p) => [p.code, p.where])).toEqual([
      ['ARM160', 'createMcpApp extensions[0]'],
      ['ARM161', 'extension echo'],
      ['ARM162', 'extension com.example/a'],
      ['ARM162', 'extension io.modelcontextprotocol/tasks'],
      ['ARM166', 'extension com.example/b'],
      ['ARM165', 'extension com.example/c'],
    ]);
    expect(error.problems[2]?.message).toBe('the extension id com.example/a is already taken by the extension listed at extensions[2]');
  });

  it('refuses method names that are invalid, built in, or taken by another extension, and a method without handle', () => {
    const error = buildError(() =>
      createMcpApp(ExtServer, {
        extensions: [
          defineExtension({
            id: 'com.example/a',
            methods: { 'no-slash': { handle }, 'notifications/x': { handle }, 'tools/list': { handle }, 'a/do': { handle } },
          }),
          defineExtension({ id: 'com.example/b', methods: { 'a/do': { handle }, 'b/do': {} as never } }),
        ],
      }),
    );
    expect(error.problems.map((p) => [p.code, p.where])).toEqual([
      ['ARM163', 'extension com.example/a method no-slash'],
      ['ARM163', 'extension com.example/a method notifications/x'],
      ['ARM164', 'extension com.example/a method tools/list'],
      ['ARM164', 'extension com.example/b method a/do'],
      ['ARM165', 'extension com.example/b method b/do'],
    ]);
    expect(error.problems[3]?.message).toBe('the method "a/do" is already served by extension com.example/a');
  });

  it("lists a setup's problems and throws with the app's others, and refuses a resource URI served twice", () => {
    const error = buildError(() =>
      createMcpApp(ExtServer, {
        extensions: [
          defineExtension({
            id: 'com.example/a',
            setup: (host) => {
              expect(host.catalog.tools).toEqual(['ping']);
              host.resource({ uri: 'a://x', name: 'x', read: () => 'x' });
              host.resource({ uri: 'a://x', name: 'again', read: () => 'x' });
              host.problem('the folder is missing', 'create it');
            },
          }),
          defineExtension({
            id: 'com.example/b',
            setup: () => {
              throw new Error('boom');
            },
          }),
        ],
      }),
    );
    expect(error.problems.map((p) => [p.code, p.where, p.message])).toEqual([
      ['ARM107', 'extension com.example/a resource a://x', expect.stringContaining('a://x')],
      ['ARM168', 'extension com.example/a', 'the folder is missing'],
      ['ARM167', 'extension com.example/b', 'setup threw: boom'],
    ]);
  });
});

describe('extensions: served', () => {
  it('advertises the settings beside the built-in extensions and runs middleware after the app’s', async () => {
    const order: string[] = [];
    const app = createMcpApp(ExtServer, {
      middleware: [
        async (request, next) => {
          order.push(`app ${request.method}`);
          return next();
        },
      ],
      extensions: [
        defineExtension({
          id: 'com.example/count',
          settings: { max: 3 },
          methods: { 'count/add': { params: CountParams, handle: (params: CountParams) => ({ n: params.n + 1 }) } },
          onRequest: async (request, next) => {
            order.push(`extension ${request.method}`);
            return next();
          },
        }),
      ],
    });
    const { client, close } = await connectInMemory(app);
    try {
      expect(client.getServerCapabilities()?.extensions).toEqual({ 'com.example/count': { max: 3 } });
      const schema = { '~standard': { version: 1 as const, vendor: 't', validate: (value: unknown) => ({ value }) } };
      expect(await client.request({ method: 'count/add', params: { n: 1 } }, schema)).toEqual({ n: 2 });
      expect(order).toEqual(['app count/add', 'extension count/add']);
    } finally {
      await close();
    }
  });
});
