import { AssertionError } from 'node:assert';
import { Context, Field, McpServer, Tool } from '@armature/core';
import { buildDto, createTestContext, createTestingApp, dtoIssues, expectDtoRejects, textOf } from '@armature/testing';
import { IsInt, IsString, Length, Max, Min } from 'class-validator';
import { Service } from 'typedi';
import { expect } from 'vitest';
import { askingTheUser } from './testing/asking.js';

// #region server
@Service()
export class WeatherApi {
  async forecast(city: string, days: number): Promise<string[]> {
    const response = await fetch(`https://weather.example/${encodeURIComponent(city)}?days=${days}`);
    return (await response.json()) as string[];
  }
}

export class ForecastInput {
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

@McpServer({ name: 'weather', version: '1.0.0' })
export class WeatherServer {
  constructor(private readonly api: WeatherApi) {}

  @Tool({ name: 'get_forecast', description: 'Daily forecast for a city', annotations: { readOnlyHint: true } })
  async forecast(input: ForecastInput, ctx: Context) {
    await ctx.log.info(`forecast for ${input.city}`);
    const days = await this.api.forecast(input.city, input.days);
    await ctx.progress(days.length, input.days);
    return { city: input.city, days };
  }
}
// #endregion

async function plainMethod(): Promise<void> {
  // #region plain-method
  const fakeApi = { forecast: async (_city: string, days: number) => Array(days).fill('sunny') };
  const ctx = createTestContext({ meta: { tenant: 'acme' } });
  const input = Object.assign(new ForecastInput(), { city: 'Oslo', days: 2 });

  const output = await new WeatherServer(fakeApi).forecast(input, ctx);

  expect(output).toEqual({ city: 'Oslo', days: ['sunny', 'sunny'] });
  expect(ctx.logs).toEqual([{ level: 'info', message: 'forecast for Oslo' }]);
  expect(ctx.progressUpdates).toEqual([{ progress: 2, total: 2 }]);
  // #endregion
}

async function dtoLevel(): Promise<void> {
  // #region dto
  const input = await buildDto(ForecastInput, { city: 'Oslo' });
  expect(input).toBeInstanceOf(ForecastInput);
  expect(input.days).toBe(3); // the default, applied as on a real call

  await expectDtoRejects(ForecastInput, { city: '', days: 20 }, [
    'city: must be longer than or equal to 1 characters',
    'days: must not be greater than 14',
  ]);
  expect(await dtoIssues(ForecastInput, { city: 'Oslo', hourly: true })).toEqual(['hourly: unknown property; remove it']);
  // A line (or the whole list) may be one of vitest's asymmetric matchers:
  await expectDtoRejects(ForecastInput, { city: 'Oslo', days: 0 }, [expect.stringMatching(/^days: must not be less than/)]);
  // #endregion

  const mismatch = await expectDtoRejects(ForecastInput, { city: 'Oslo', days: 20 }, ['days: must be at most 14']).catch((e: unknown) => e);
  expect(mismatch).toBeInstanceOf(AssertionError);
  expect(mismatch).toMatchObject({ actual: ['days: must not be greater than 14'], expected: ['days: must be at most 14'] });
}

async function pipeline(): Promise<void> {
  // #region pipeline
  const t = await createTestingApp({ servers: [WeatherServer] })
    .overrideProvider(WeatherApi)
    .useValue({ forecast: async () => ['rain', 'sun'] })
    .compile();

  const result = await t.callTool('get_forecast', { city: 'Oslo', days: 2 });
  expect(result.structuredContent).toEqual({ city: 'Oslo', days: ['rain', 'sun'] });
  expect(t.logs).toEqual([{ level: 'info', data: 'forecast for Oslo' }]);

  const invalid = await t.callTool('get_forecast', { city: '' });
  expect(invalid.isError).toBe(true);
  expect(textOf(invalid)).toBe('Invalid arguments for tool "get_forecast":\ncity: must be longer than or equal to 1 characters');

  await t.close();
  // #endregion
}

export async function main(): Promise<void> {
  await plainMethod();
  await dtoLevel();
  await pipeline();
  await askingTheUser();
}
