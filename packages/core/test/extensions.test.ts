import { IsInt } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { createMcpApp, defineExtension, type Extension, McpServer, RateLimit, Tool, UseGuards } from '../src/index.js';
import { buildError } from './support/build-error.js';
import { connectHttp, connectInMemory } from './support/clients.js';

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
          defineExtension({ id: 'com.example/d', onToolCall: 'x' as never }),
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
      ['ARM165', 'extension com.example/d'],
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
          defineExtension({
            id: 'com.example/c',
            methods: {
              'tasks/get': { handle },
              'c/none': { revisions: [], handle },
              'c/old': { revisions: ['2024-11-05'] as never, handle },
            },
          }),
        ],
      }),
    );
    expect(error.problems.map((p) => [p.code, p.where])).toEqual([
      ['ARM163', 'extension com.example/a method no-slash'],
      ['ARM163', 'extension com.example/a method notifications/x'],
      ['ARM164', 'extension com.example/a method tools/list'],
      ['ARM164', 'extension com.example/b method a/do'],
      ['ARM165', 'extension com.example/b method b/do'],
      ['ARM164', 'extension com.example/c method tasks/get'],
      ['ARM165', 'extension com.example/c method c/none'],
      ['ARM165', 'extension com.example/c method c/old'],
    ]);
    expect(error.problems[3]?.message).toBe('the method "a/do" is already served by extension com.example/a');
    // The task methods are the tasks extension's, set up before the app's.
    expect(error.problems[5]?.message).toBe('the method "tasks/get" is already served by extension io.modelcontextprotocol/tasks');
    expect(error.problems[7]?.message).toBe(
      `methods['c/old'].revisions is ["2024-11-05"]; it must be a non-empty list of '2025-11-25' and '2026-07-28'`,
    );
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

describe.each([false, true])('extensions: methods by revision over HTTP (2026-07-28: %s)', (modern) => {
  it('serves a method only on its revisions, and tells the handler the revision and connection', async () => {
    const app = createMcpApp(ExtServer, {
      extensions: [
        defineExtension({
          id: 'com.example/rev',
          methods: {
            'rev/any': { handle: (_params, ctx) => ({ revision: ctx.revision, connection: ctx.connectionId }) },
            'rev/new': { revisions: ['2026-07-28'], handle },
            'rev/old': { revisions: ['2025-11-25'], handle },
          },
        }),
        // Advertises nothing: its method is not served either.
        defineExtension({ id: 'com.example/off', methods: { 'off/do': { handle } }, setup: (host) => host.advertise(undefined) }),
      ],
    });
    const { client, close } = await connectHttp(app, { modern });
    try {
      const call = (method: string) =>
        client.request({ method, params: {} } as never, anySchema as never) as Promise<Record<string, unknown>>;
      const refusal = (method: string) =>
        call(method).then(
          () => undefined,
          (error: { code: number }) => error.code,
        );
      const first = await call('rev/any');
      expect(first.revision).toBe(modern ? '2026-07-28' : '2025-11-25');
      // A 2025-11-25 session is one connection; a 2026-07-28 HTTP request has none but its own.
      expect(first.connection).toMatch(modern ? /^connection:/ : /^session:/);
      if (modern) expect((await call('rev/any')).connection).not.toBe(first.connection);
      else expect((await call('rev/any')).connection).toBe(first.connection);
      expect(await refusal(modern ? 'rev/old' : 'rev/new')).toBe(-32601);
      await expect(call(modern ? 'rev/new' : 'rev/old')).resolves.toBeDefined();
      // Not served: answered as any method the server does not have (on 2026-07-28 HTTP, by the SDK's entry).
      expect(await refusal('off/do')).toBe(await refusal('nothing/here'));
      expect(await refusal('off/do')).toBeDefined();
    } finally {
      await close();
      await app.close();
    }
  });
});

@McpServer({ name: 'hooked', version: '1.0.0' })
class HookedServer {
  @RateLimit({ limit: 1, windowMs: 60_000 })
  @Tool({ description: 'Looks something up' })
  lookup() {
    return 'looked up';
  }

  @UseGuards({ canActivate: () => false })
  @Tool({ description: 'Nobody may call it' })
  secret() {
    return 'secret';
  }
}

describe.each([false, true])('extensions: onToolCall over HTTP (2026-07-28: %s)', (modern) => {
  it('answers in the tool’s place or lets it run, with the checks of an ordinary call', async () => {
    const seen: string[] = [];
    const app = createMcpApp(HookedServer, {
      extensions: [
        defineExtension({
          id: 'com.example/cache',
          onToolCall: async (call, ctx) => {
            seen.push(`${call.name} ${String(call.descriptor.name)} ${ctx.revision}`);
            if (call.params._meta === undefined || !(call.params._meta as Record<string, unknown>)['com.example/cached']) return undefined;
            if (!(await call.allowed())) return call.refuse();
            await call.count();
            return { content: [{ type: 'text', text: 'from the cache' }] };
          },
        }),
      ],
    });
    const { client, close } = await connectHttp(app, { modern });
    const cached = { 'com.example/cached': true };
    const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]?.text;
    const refusal = (request: Promise<unknown>) =>
      request.then(
        () => undefined,
        (error: { code: number; message: string }) => error,
      );
    try {
      // Undefined: the tool runs.
      expect(text(await client.callTool({ name: 'lookup', arguments: {} }))).toBe('looked up');
      // An answer in its place, counted against the tool's limit of one a minute (already spent).
      const limited = await refusal(client.callTool({ name: 'lookup', arguments: {}, _meta: cached }));
      expect(limited?.message).toMatch(/Rate limit reached: tool "lookup"/);
      // A caller the guards refuse is answered as by an ordinary call: the unknown-tool error.
      const ordinary = await refusal(client.callTool({ name: 'secret', arguments: {} }));
      const hooked = await refusal(client.callTool({ name: 'secret', arguments: {}, _meta: cached }));
      expect(hooked).toEqual(ordinary);
      expect(ordinary?.message).toMatch(/secret/);
      expect(seen).toEqual(
        ['lookup', 'lookup', 'secret', 'secret'].map((name) => `${name} ${name} ${modern ? '2026-07-28' : '2025-11-25'}`),
      );
    } finally {
      await close();
      await app.close();
    }
  });
});

const anySchema = { '~standard': { version: 1 as const, vendor: 't', validate: (value: unknown) => ({ value }) } };

/** An app whose `wait/long` (long-lived) and `wait/short` wait for their signal, then record `params.name`. */
function waitingApp(ended: string[]) {
  const untilAborted = async (params: Record<string, unknown>, ctx: { signal: AbortSignal; notify: (m: string) => Promise<void> }) => {
    await ctx.notify('notifications/wait/started');
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    ended.push(String(params.name));
    return {};
  };
  return createMcpApp(ExtServer, {
    timeoutMs: 200,
    extensions: [
      defineExtension({
        id: 'com.example/wait',
        methods: { 'wait/short': { handle: untilAborted }, 'wait/long': { longLived: true, handle: untilAborted } },
      }),
    ],
  });
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('extensions: long-lived methods', () => {
  it('run past the app’s timeout until the client cancels them; other methods are still cut at the timeout', async () => {
    const ended: string[] = [];
    const { client, close } = await connectInMemory(waitingApp(ended));
    try {
      await expect(client.request({ method: 'wait/short', params: { name: 'short' } }, anySchema, { timeout: 10_000 })).rejects.toThrow(
        /200 ms/,
      );
      const cancel = new AbortController();
      const long = client.request({ method: 'wait/long', params: { name: 'long' } }, anySchema, { signal: cancel.signal, timeout: 60_000 });
      long.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(ended).toEqual(['short']);
      cancel.abort('done');
      await expect(long).rejects.toThrow();
      await until(() => ended.length === 2);
      expect(ended).toEqual(['short', 'long']);
    } finally {
      await close();
    }
  });
});

describe.each([false, true])('extensions: a long-lived method over HTTP (2026-07-28: %s)', (modern) => {
  it('ends when the client cancels it, when the client goes away, and when the app closes', async () => {
    const ended: string[] = [];
    const app = waitingApp(ended);
    const { client, close } = await connectHttp(app, { modern });
    const call = (on: Awaited<ReturnType<typeof connectHttp>>['client'], name: string, signal?: AbortSignal) => {
      const answer = on.request({ method: 'wait/long', params: { name } }, anySchema, { timeout: 60_000, ...(signal ? { signal } : {}) });
      answer.catch(() => undefined);
    };
    try {
      const cancel = new AbortController();
      call(client, 'cancelled', cancel.signal);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(ended).toEqual([]);
      cancel.abort('enough');
      await until(() => ended.length === 1);
      expect(ended).toEqual(['cancelled']);
      call(client, 'dropped');
      await new Promise((resolve) => setTimeout(resolve, 600));
      await client.close();
      await until(() => ended.length === 2);
      expect(ended).toEqual(['cancelled', 'dropped']);
      const other = await connectHttp(app, { modern });
      call(other.client, 'closed');
      await new Promise((resolve) => setTimeout(resolve, 600));
      await app.close();
      await until(() => ended.length === 3);
      expect(ended).toEqual(['cancelled', 'dropped', 'closed']);
      await other.client.close().catch(() => undefined);
    } finally {
      await close();
      await app.close();
    }
  });
});
