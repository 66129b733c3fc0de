import { IsIn, IsNumberString, IsOptional, IsString } from 'class-validator';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ArmatureBuildError,
  Complete,
  type CompletionRequestContext,
  Context,
  createMcpApp,
  embeddedResource,
  Field,
  image,
  McpServer,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
} from '../src/index.js';
import { connectHttp, connectInMemory, connectV1Http } from './support/clients.js';
import { rawSession } from './support/raw-session.js';

const CITIES = ['Oslo', 'Osaka', 'Ottawa', 'Paris'];

class UserParams {
  @Field('Numeric user id')
  @IsNumberString()
  id!: string;
}

class ForecastArgs {
  @Field('City to forecast')
  @Complete((value) => CITIES.filter((c) => c.toLowerCase().startsWith(value.toLowerCase())))
  @IsString()
  city!: string;

  @Field('Temperature unit')
  @Complete('suggestUnits')
  @IsOptional()
  @IsIn(['celsius', 'fahrenheit'])
  units?: string;
}

@McpServer({ name: 'catalogue', version: '1.0.0' })
class CatalogueServer {
  @Resource({ uri: 'test://static-text', name: 'static-text', title: 'Static text', description: 'A fixed text', mimeType: 'text/plain' })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @Resource({ uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png' })
  staticBinary() {
    return new Uint8Array([137, 80, 78, 71]);
  }

  @Resource({ uri: 'test://failing', name: 'failing' })
  failing() {
    throw new Error('disk on fire');
  }

  @ResourceTemplate({ uriTemplate: 'users://{id}/profile', name: 'user-profile', mimeType: 'application/json' })
  profile(params: UserParams, ctx: Context) {
    return JSON.stringify({ id: params.id, isDto: params instanceof UserParams, hasCtx: ctx instanceof Context });
  }

  @Prompt({ description: 'A fixed prompt' })
  simple() {
    return 'This is a simple prompt for testing.';
  }

  @Prompt({ name: 'forecast', title: 'Forecast', description: 'Ask for a forecast' })
  forecastPrompt(args: ForecastArgs) {
    return `Forecast for ${args.city} in ${args.units ?? 'celsius'}`;
  }

  @Prompt({ description: 'Messages with an image and an embedded resource' })
  rich() {
    return [
      { role: 'user', content: embeddedResource('test://doc', 'Embedded resource content for testing.', { mimeType: 'text/plain' }) },
      image(new Uint8Array([1, 2]), 'image/png'),
      { role: 'assistant', content: { type: 'text', text: 'Noted.' } },
    ];
  }

  suggestUnits(value: string, context: CompletionRequestContext) {
    return ['celsius', 'fahrenheit']
      .filter((u) => u.startsWith(value))
      .map((u) => (context.arguments.city === 'Ottawa' ? u.toUpperCase() : u));
  }

  @Tool({ description: 'noop' })
  noop() {
    return 'ok';
  }
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Failures reported nowhere, their messages sent as they are (masking is pipeline.test's). */
const quiet = { onError: () => undefined, exposeErrors: true };

describe('resources', () => {
  it('lists and reads fixed resources as text and base64 blob; unknown URIs are an error', async () => {
    const c = await connectInMemory(createMcpApp(CatalogueServer, quiet));
    close = c.close;
    const { resources } = await c.client.listResources();
    expect(resources).toEqual([
      { uri: 'test://static-text', name: 'static-text', title: 'Static text', description: 'A fixed text', mimeType: 'text/plain' },
      { uri: 'test://static-binary', name: 'static-binary', mimeType: 'image/png' },
      { uri: 'test://failing', name: 'failing' },
    ]);
    expect(await c.client.readResource({ uri: 'test://static-text' })).toEqual({
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    });
    expect(await c.client.readResource({ uri: 'test://static-binary' })).toEqual({
      contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: 'iVBORw==' }],
    });
    await expect(c.client.readResource({ uri: 'test://nope' })).rejects.toThrow(/Resource not found/);
    await expect(c.client.readResource({ uri: 'test://failing' })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('disk on fire'),
    });
  });

  it('reads templates with the variables validated into the params DTO', async () => {
    const c = await connectInMemory(createMcpApp(CatalogueServer, quiet));
    close = c.close;
    expect((await c.client.listResourceTemplates()).resourceTemplates).toEqual([
      { uriTemplate: 'users://{id}/profile', name: 'user-profile', mimeType: 'application/json' },
    ]);
    expect(await c.client.readResource({ uri: 'users://42/profile' })).toEqual({
      contents: [{ uri: 'users://42/profile', mimeType: 'application/json', text: '{"id":"42","isDto":true,"hasCtx":true}' }],
    });
    await expect(c.client.readResource({ uri: 'users://abc/profile' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Invalid arguments for resource template "user-profile":\nid: must be a number string'),
    });
  });

  it('subscriptions (2025-11-25): only subscribed connections get notifications/resources/updated', async () => {
    const app = createMcpApp(CatalogueServer);
    const subscribed = await connectInMemory(app);
    const bystander = await connectInMemory(app);
    close = async () => {
      await subscribed.close();
      await bystander.close();
    };
    const got: Record<string, string[]> = { subscribed: [], bystander: [] };
    subscribed.client.setNotificationHandler('notifications/resources/updated', (n) => {
      got.subscribed?.push(n.params.uri);
    });
    bystander.client.setNotificationHandler('notifications/resources/updated', (n) => {
      got.bystander?.push(n.params.uri);
    });
    expect(await subscribed.client.subscribeResource({ uri: 'test://static-text' })).toEqual({});
    app.notifyResourceUpdated('test://static-text');
    app.notifyResourceUpdated('test://static-binary');
    await vi.waitFor(() => expect(got.subscribed).toHaveLength(1), { timeout: 10_000 });
    // Then absence after a wait (what should not arrive): a slow machine cannot make it arrive.
    await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual({ subscribed: ['test://static-text'], bystander: [] });
    expect(await subscribed.client.unsubscribeResource({ uri: 'test://static-text' })).toEqual({});
    app.notifyResourceUpdated('test://static-text');
    await new Promise((r) => setTimeout(r, 50));
    expect(got.subscribed).toEqual(['test://static-text']);
    await expect(subscribed.client.subscribeResource({ uri: 'test://unknown' })).rejects.toThrow(/Resource not found/);
  });

  it('resources work over HTTP for the v1 client and the 2026-07-28 v2 client', async () => {
    const app = createMcpApp(CatalogueServer);
    const modern = await connectHttp(app, { modern: true });
    const v1 = await connectV1Http(modern.url);
    close = async () => {
      await v1.close();
      await modern.close();
    };
    for (const client of [modern.client, v1.client]) {
      const read = await client.readResource({ uri: 'users://7/profile' });
      expect(read.contents).toEqual([
        { uri: 'users://7/profile', mimeType: 'application/json', text: '{"id":"7","isDto":true,"hasCtx":true}' },
      ]);
      expect((await client.listResources()).resources).toHaveLength(3);
    }
  });
});

describe('prompts', () => {
  it('lists prompts with arguments from the DTO (description, required)', async () => {
    const c = await connectInMemory(createMcpApp(CatalogueServer, quiet));
    close = c.close;
    const { prompts } = await c.client.listPrompts();
    expect(prompts).toEqual([
      { name: 'simple', description: 'A fixed prompt' },
      {
        name: 'forecast',
        title: 'Forecast',
        description: 'Ask for a forecast',
        arguments: [
          { name: 'city', description: 'City to forecast', required: true },
          { name: 'units', description: 'Temperature unit', required: false },
        ],
      },
      { name: 'rich', description: 'Messages with an image and an embedded resource' },
    ]);
  });

  it('a string becomes one user message; messages and content blocks are kept in order', async () => {
    const c = await connectInMemory(createMcpApp(CatalogueServer, quiet));
    close = c.close;
    expect(await c.client.getPrompt({ name: 'simple' })).toEqual({
      description: 'A fixed prompt',
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    });
    expect((await c.client.getPrompt({ name: 'forecast', arguments: { city: 'Oslo' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Forecast for Oslo in celsius' } },
    ]);
    expect((await c.client.getPrompt({ name: 'rich' })).messages).toEqual([
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'test://doc', text: 'Embedded resource content for testing.', mimeType: 'text/plain' },
        },
      },
      { role: 'user', content: { type: 'image', data: 'AQI=', mimeType: 'image/png' } },
      { role: 'assistant', content: { type: 'text', text: 'Noted.' } },
    ]);
  });

  it('invalid or unknown arguments are -32602 with the field lines', async () => {
    const c = await connectInMemory(createMcpApp(CatalogueServer, quiet));
    close = c.close;
    await expect(c.client.getPrompt({ name: 'forecast', arguments: { units: 'kelvin' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        'Invalid arguments for prompt "forecast":\ncity: is required\nunits: must be one of the following values: celsius, fahrenheit',
      ),
    });
    await expect(c.client.getPrompt({ name: 'nope' })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('completions', () => {
  it('completes prompt arguments from a function or a server method that sees the other arguments', async () => {
    const c = await connectInMemory(createMcpApp(CatalogueServer, quiet));
    close = c.close;
    const city = await c.client.complete({ ref: { type: 'ref/prompt', name: 'forecast' }, argument: { name: 'city', value: 'o' } });
    expect(city.completion).toEqual({ values: ['Oslo', 'Osaka', 'Ottawa'], total: 3, hasMore: false });
    const units = await c.client.complete({
      ref: { type: 'ref/prompt', name: 'forecast' },
      argument: { name: 'units', value: 'c' },
      context: { arguments: { city: 'Ottawa' } },
    });
    expect(units.completion.values).toEqual(['CELSIUS']);
    const none = await c.client.complete({
      ref: { type: 'ref/resource', uri: 'users://{id}/profile' },
      argument: { name: 'id', value: '' },
    });
    expect(none.completion.values).toEqual([]);
  });
});

describe('dynamic registration and pagination', () => {
  it('disables, enables and removes tools, prompts and resources with list_changed notifications', async () => {
    const app = createMcpApp(CatalogueServer);
    const c = await connectInMemory(app);
    close = c.close;
    const changes: string[] = [];
    for (const method of [
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ] as const) {
      c.client.setNotificationHandler(method, () => {
        changes.push(method);
      });
    }
    app.tools.disable('noop');
    expect((await c.client.listTools()).tools).toEqual([]);
    await expect(c.client.callTool({ name: 'noop', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    app.tools.enable('noop');
    expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(['noop']);
    app.prompts.remove('rich');
    app.resources.disable('test://failing');
    expect((await c.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['simple', 'forecast']);
    expect((await c.client.listResources()).resources.map((r) => r.uri)).toEqual(['test://static-text', 'test://static-binary']);
    await vi.waitFor(() => expect(changes.length).toBeGreaterThanOrEqual(4), { timeout: 10_000 });
    expect(changes).toEqual([
      'notifications/tools/list_changed',
      'notifications/tools/list_changed',
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ]);
    expect(() => app.tools.disable('nope')).toThrow('nothing named "nope" is registered');
  });

  it('paginates every list with opaque cursors; a bad cursor is -32602', async () => {
    // The v2 client follows nextCursor by itself, so pages are checked on raw JSON-RPC.
    const session = await rawSession(createMcpApp(CatalogueServer, { pageSize: 2 }));
    close = session.close;
    const first = await session.request('resources/list');
    const firstPage = (first.result?.resources ?? []) as Array<{ uri: string }>;
    expect(firstPage.map((r) => r.uri)).toEqual(['test://static-text', 'test://static-binary']);
    expect(typeof first.result?.nextCursor).toBe('string');
    const second = await session.request('resources/list', { cursor: first.result?.nextCursor });
    const secondPage = (second.result?.resources ?? []) as Array<{ uri: string }>;
    expect(secondPage.map((r) => r.uri)).toEqual(['test://failing']);
    expect(second.result?.nextCursor).toBeUndefined();
    const prompts = await session.request('prompts/list');
    expect(prompts.result?.prompts).toHaveLength(2);
    const bad = await session.request('tools/list', { cursor: 'garbage' });
    expect(bad.error).toEqual({ code: -32602, message: 'Invalid cursor: pass back the nextCursor of a previous page unchanged' });
    // The v2 client walks every page for the user.
    const c = await connectInMemory(createMcpApp(CatalogueServer, { pageSize: 1 }));
    expect((await c.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['simple', 'forecast', 'rich']);
    await c.close();
  });
});

describe('start-up checks for resources and prompts', () => {
  it('reports bad URIs, template variables without a DTO property, non-string prompt args and unknown completion methods', () => {
    class Numbers {
      @IsString()
      other!: string;
    }
    class BadArgs {
      @Complete('nowhere')
      @IsString()
      a!: string;
      @IsIn([1, 2])
      n!: number;
    }
    @McpServer({ name: 'bad', version: '1' })
    class BadServer {
      @Resource({ uri: 'no-scheme', name: 'x' })
      relative() {
        return '';
      }
      @ResourceTemplate({ uriTemplate: 'items://{id}', name: 'item' })
      item(params: Numbers) {
        return params.other;
      }
      @Prompt({ description: 'd' })
      bad(args: BadArgs) {
        return args.a;
      }
    }
    let error: ArmatureBuildError | undefined;
    try {
      createMcpApp(BadServer);
    } catch (e) {
      error = e as ArmatureBuildError;
    }
    expect(error?.problems.map((p) => `${p.where}: ${p.message}`)).toEqual([
      'BadServer.relative: the resource URI "no-scheme" is not an absolute URI (scheme:rest)',
      'BadServer.item: the URI template variable {id} has no property in Numbers',
      'BadServer.bad: BadArgs.n is an integer, but prompt arguments are strings',
      "BadServer.bad: @Complete('nowhere') on BadArgs.a names no method of BadServer",
    ]);
  });
});
