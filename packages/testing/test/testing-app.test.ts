import { ArmatureBuildError, Context, Field, McpError, McpServer, RequestScoped, Tool, TypediContainerAdapter } from '@armature/core';
import { IsInt, IsString, Length, Max, Min } from 'class-validator';
import { Container, Service } from 'typedi';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestingApp, type TestingApp, textOf } from '../src/index.js';

@Service()
class WeatherApi {
  async forecast(city: string, days: number): Promise<string> {
    throw new Error(`the real WeatherApi was called for ${city} (${days} days)`);
  }
}

@Service()
class ForecastFormatter {
  constructor(readonly api: WeatherApi) {}
  async describe(city: string, days: number): Promise<string> {
    return `${city}: ${await this.api.forecast(city, days)}`;
  }
}

class ForecastInput {
  @Field('City name')
  @IsString()
  @Length(1, 64)
  city!: string;

  @Field('How many days ahead')
  @IsInt()
  @Min(1)
  @Max(14)
  days: number = 3;
}

class ForecastOutput {
  @IsString()
  city!: string;

  @IsString()
  summary!: string;
}

@RequestScoped()
class CallInfo {
  constructor(readonly ctx: Context) {}
  tenant(): unknown {
    return this.ctx.meta.tenant;
  }
}

@McpServer({ name: 'weather', version: '1.0.0' })
class WeatherServer {
  constructor(
    private readonly formatter: ForecastFormatter,
    private readonly info: CallInfo,
  ) {}

  @Tool({ description: 'Forecast for a city', annotations: { readOnlyHint: true }, output: () => ForecastOutput })
  async get_forecast(input: ForecastInput, ctx: Context) {
    await ctx.log.info(`forecast for ${input.city}`, { days: input.days });
    for (let day = 1; day <= input.days; day++) await ctx.progress(day, input.days);
    return { city: input.city, summary: await this.formatter.describe(input.city, input.days) };
  }

  @Tool({ description: 'Tenant of the call' })
  tenant() {
    return String(this.info.tenant());
  }

  @Tool({ description: 'Always fails' })
  broken(): string {
    throw new Error('the disk is on fire');
  }

  @Tool({ description: 'Refuses the request' })
  forbidden(): string {
    throw new McpError(-32001, 'not for you');
  }

  @Tool({ description: 'Waits for cancellation' })
  async wait(ctx: Context) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return 'cancelled';
  }
}

let t: TestingApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('createTestingApp', () => {
  it('serves through the production pipeline with a provider replaced, dependants included', async () => {
    const fake = { forecast: async (city: string, days: number) => `sunny for ${days} days in ${city}` };
    t = await createTestingApp({ servers: [WeatherServer] })
      .overrideProvider(WeatherApi)
      .useValue(fake)
      .compile();
    const result = await t.callTool('get_forecast', { city: 'Oslo' });
    expect(result).toEqual({
      content: [{ type: 'text', text: '{"city":"Oslo","summary":"Oslo: sunny for 3 days in Oslo"}' }],
      structuredContent: { city: 'Oslo', summary: 'Oslo: sunny for 3 days in Oslo' },
    });
  });

  it('answers invalid arguments with the production error text', async () => {
    t = await createTestingApp({ servers: WeatherServer }).compile();
    const result = await t.callTool('get_forecast', { city: '', days: 15 });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      [
        'Invalid arguments for tool "get_forecast":',
        'city: must be longer than or equal to 1 characters',
        'days: must not be greater than 14',
      ].join('\n'),
    );
    expect(textOf(await t.callTool('get_forecast', { city: 'Oslo', extra: true }))).toBe(
      'Invalid arguments for tool "get_forecast":\nextra: unknown property; remove it',
    );
  });

  it('accepts useFactory and useClass, and keeps overrides out of the global container', async () => {
    class FakeApi {
      async forecast() {
        return 'fog';
      }
    }
    t = await createTestingApp({ servers: [WeatherServer] })
      .overrideProvider(WeatherApi)
      .useClass(FakeApi)
      .compile();
    expect((await t.callTool('get_forecast', { city: 'Rome', days: 1 })).structuredContent).toEqual({ city: 'Rome', summary: 'Rome: fog' });
    await t.close();
    t = await createTestingApp({ servers: [WeatherServer] })
      .overrideProvider(WeatherApi)
      .useFactory(() => ({ forecast: async () => 'rain' }))
      .compile();
    expect((await t.callTool('get_forecast', { city: 'Rome', days: 1 })).structuredContent).toEqual({
      city: 'Rome',
      summary: 'Rome: rain',
    });
    expect(Container.get(WeatherApi)).toBeInstanceOf(WeatherApi);
  });

  it('records logs, reports progress, and passes _meta to the tool', async () => {
    t = await createTestingApp({ servers: [WeatherServer] })
      .overrideProvider(WeatherApi)
      .useValue({ forecast: async () => 'sun' })
      .compile();
    const progress: unknown[] = [];
    await t.callTool('get_forecast', { city: 'Oslo', days: 2 }, { onprogress: (p) => progress.push(p) });
    expect(progress).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
    expect(t.logs).toEqual([{ level: 'info', data: { message: 'forecast for Oslo', data: { days: 2 } } }]);
    expect(textOf(await t.callTool('tenant', {}, { meta: { tenant: 'acme' } }))).toBe('acme');
  });

  it('records unexpected tool errors instead of printing them; protocol errors reject', async () => {
    t = await createTestingApp({ servers: [WeatherServer] }).compile();
    const result = await t.callTool('broken');
    expect(result).toEqual({ content: [{ type: 'text', text: 'the disk is on fire' }], isError: true });
    expect(t.errors).toHaveLength(1);
    expect(t.errors[0]).toMatchObject({ tool: 'broken', error: new Error('the disk is on fire') });
    await expect(t.callTool('forbidden')).rejects.toMatchObject({ code: -32001, message: expect.stringContaining('not for you') });
    await expect(t.callTool('nope')).rejects.toThrow('Unknown tool: "nope"');
  });

  it('shows the message of an unexpected error (exposeErrors defaults to true here); exposeErrors: false shows what callers read', async () => {
    t = await createTestingApp({ servers: [WeatherServer], exposeErrors: false }).compile();
    const result = await t.callTool('broken');
    expect(result).toEqual({
      content: [
        {
          type: 'text',
          text: expect.stringMatching(
            /^Tool "broken" failed unexpectedly; the error was logged on the server \(request \d+, error [0-9a-f]{8}\)$/,
          ),
        },
      ],
      isError: true,
    });
    expect(t.errors[0]).toMatchObject({
      tool: 'broken',
      error: new Error('the disk is on fire'),
      errorId: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
  });

  it('cancels through the signal', async () => {
    t = await createTestingApp({ servers: [WeatherServer] }).compile();
    const controller = new AbortController();
    const call = t.callTool('wait', {}, { signal: controller.signal });
    setTimeout(() => controller.abort('stop'), 20);
    await expect(call).rejects.toBeDefined();
  });

  it('lists tools as the client sees them', async () => {
    t = await createTestingApp({ servers: [WeatherServer] }).compile();
    const tools = await t.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['get_forecast', 'tenant', 'broken', 'forbidden', 'wait']);
    expect(tools[0]?.inputSchema.properties).toEqual({
      city: { type: 'string', minLength: 1, maxLength: 64, description: 'City name' },
      days: { type: 'integer', minimum: 1, maximum: 14, description: 'How many days ahead', default: 3 },
    });
  });

  it('fails compile() with the same ArmatureBuildError as production start-up', async () => {
    @McpServer({ name: 'bad', version: '1' })
    class BadServer {
      @Tool({ description: '' })
      'bad name'() {}
    }
    const error = await createTestingApp({ servers: [BadServer] })
      .compile()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArmatureBuildError);
    expect((error as ArmatureBuildError).problems.map((p) => p.where)).toEqual(['BadServer.bad name', 'BadServer.bad name']);
  });

  it('refuses overrides on a container adapter that cannot override', async () => {
    const builder = createTestingApp({
      servers: [WeatherServer],
      container: { createScope: () => ({ get: () => undefined as never, dispose: () => undefined }) },
    })
      .overrideProvider(WeatherApi)
      .useValue({ forecast: async () => '' });
    await expect(builder.compile()).rejects.toThrow(
      'overrideProvider(WeatherApi) needs a container adapter with override(token, value), and the one given has none. ' +
        'Fix: leave `container` out (the default typedi adapter can override), or register the fakes in your own container.',
    );
  });

  it('uses a given TypediContainerAdapter and applies overrides to it', async () => {
    const container = new TypediContainerAdapter();
    const override = vi.spyOn(container, 'override');
    t = await createTestingApp({ servers: [WeatherServer], container })
      .overrideProvider(WeatherApi)
      .useValue({ forecast: async () => 'hail' })
      .compile();
    expect(override).toHaveBeenCalledOnce();
  });
});
