import {
  ArmatureBuildError,
  Complete,
  type CompletionRequestContext,
  createMcpApp,
  Field,
  McpServer,
  Prompt,
  Resource,
  ResourceTemplate,
} from '@armature/core';
import type { ProtocolError } from '@modelcontextprotocol/client';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { Service } from 'typedi';
import { connectInMemory, expectEqual } from './support/check.js';

// #region sources
const CITIES = ['Oslo', 'Osaka', 'Ottawa', 'Paris', 'Porto'];

@Service()
export class UnitCatalogue {
  unitsFor(city: string | undefined): string[] {
    return city === 'Ottawa' ? ['celsius', 'fahrenheit'] : ['celsius'];
  }
}

export class ForecastArgs {
  @Field('City to forecast')
  @Complete((value) => CITIES.filter((city) => city.toLowerCase().startsWith(value.toLowerCase())))
  @IsString()
  city!: string;

  @Field('Temperature unit')
  @Complete('suggestUnits') // the name of a method of the server class
  @IsOptional()
  @IsIn(['celsius', 'fahrenheit'])
  units?: string;
}

@McpServer({ name: 'weather', version: '1.0.0' })
export class WeatherServer {
  constructor(private readonly catalogue: UnitCatalogue) {}

  @Prompt({ description: 'Ask for a forecast' })
  forecast(args: ForecastArgs) {
    return `What is the forecast for ${args.city}, in ${args.units ?? 'celsius'}?`;
  }

  @ResourceTemplate({ uriTemplate: 'weather://{city}/today', name: 'today', mimeType: 'text/plain' })
  today(params: ForecastArgs) {
    return `Sunny in ${params.city}`;
  }

  /** Resolved per request through DI, so it can use injected services. */
  suggestUnits(value: string, context: CompletionRequestContext) {
    // context.arguments: what the user already filled in for the other arguments.
    return this.catalogue.unitsFor(context.arguments.city).filter((unit) => unit.startsWith(value));
  }
}
// #endregion

export const outputs: Record<string, string> = {
  'missing-method': `Armature cannot start the MCP server: 1 problem in the decorated classes.
  1. TypoServer.forecast: @Complete('suggestUnit') on TypoArgs.units names no method of TypoServer [ARM119]
     Fix: add \`suggestUnit(value: string, context: CompletionRequestContext) { return [...] }\` to TypoServer`,
};

async function completions(): Promise<void> {
  const app = createMcpApp(WeatherServer);
  const { client, close } = await connectInMemory(app);
  try {
    expectEqual(client.getServerCapabilities()?.completions, {}, 'completions capability');
    // #region client-complete
    const cities = await client.complete({
      ref: { type: 'ref/prompt', name: 'forecast' },
      argument: { name: 'city', value: 'o' },
    });
    // cities.completion: { values: ['Oslo', 'Osaka', 'Ottawa'], total: 3, hasMore: false }

    const units = await client.complete({
      ref: { type: 'ref/prompt', name: 'forecast' },
      argument: { name: 'units', value: '' },
      context: { arguments: { city: 'Ottawa' } }, // the value the user already chose
    });
    // units.completion.values: ['celsius', 'fahrenheit']

    const fromTemplate = await client.complete({
      ref: { type: 'ref/resource', uri: 'weather://{city}/today' },
      argument: { name: 'city', value: 'P' },
    });
    // fromTemplate.completion.values: ['Paris', 'Porto']
    // #endregion
    expectEqual(cities.completion, { values: ['Oslo', 'Osaka', 'Ottawa'], total: 3, hasMore: false }, 'function source');
    expectEqual(units.completion, { values: ['celsius', 'fahrenheit'], total: 2, hasMore: false }, 'method source, with context');
    const alone = await client.complete({ ref: { type: 'ref/prompt', name: 'forecast' }, argument: { name: 'units', value: '' } });
    expectEqual(alone.completion.values, ['celsius'], 'without context.arguments');
    expectEqual(fromTemplate.completion, { values: ['Paris', 'Porto'], total: 2, hasMore: false }, 'template variable');
    expectEqual(app.stats.liveScopes, 0, 'the scope of suggestUnits was disposed');

    const nothing = await client.complete({ ref: { type: 'ref/prompt', name: 'forecast' }, argument: { name: 'day', value: 'M' } });
    expectEqual(nothing.completion, { values: [] }, 'an argument without a source');
    const unknown = await client
      .complete({ ref: { type: 'ref/prompt', name: 'forcast' }, argument: { name: 'city', value: '' } })
      .catch((error: ProtocolError) => error);
    expectEqual([unknown.code, unknown.message], [-32602, 'Unknown prompt: "forcast"'], 'unknown prompt');
    const unknownUri = await client
      .complete({ ref: { type: 'ref/resource', uri: 'weather://{town}' }, argument: { name: 'town', value: '' } })
      .catch((error: ProtocolError) => error);
    expectEqual([unknownUri.code, unknownUri.message], [-32602, 'Resource not found: weather://{town}'], 'unknown template');
  } finally {
    await close();
  }
}

/** The cap of 100 values, a source returning the wrong thing, a fixed resource. */
async function limits(): Promise<void> {
  class TagArgs {
    @Complete((value) => Array.from({ length: 250 }, (_, i) => `${value}${i}`))
    @IsString()
    tag!: string;

    @Complete(() => [1, 2] as unknown as string[])
    @IsString()
    broken!: string;
  }
  @McpServer({ name: 'tags', version: '1.0.0' })
  class TagServer {
    @Prompt({ description: 'Tag something' })
    tagIt(args: TagArgs) {
      return args.tag;
    }
    @Resource({ uri: 'tags://all', name: 'all' })
    all() {
      return 'all tags';
    }
  }
  const { client, close } = await connectInMemory(createMcpApp(TagServer));
  try {
    const many = await client.complete({ ref: { type: 'ref/prompt', name: 'tagIt' }, argument: { name: 'tag', value: 't' } });
    expectEqual(
      [many.completion.values.length, many.completion.values[0], many.completion.total, many.completion.hasMore],
      [100, 't0', 250, true],
      'capped at 100',
    );
    const broken = await client
      .complete({ ref: { type: 'ref/prompt', name: 'tagIt' }, argument: { name: 'broken', value: '' } })
      .catch((error: ProtocolError) => error);
    expectEqual([broken.code, broken.message], [-32603, 'Completion for "broken" did not return an array of strings'], 'not strings');
    const fixed = await client.complete({ ref: { type: 'ref/resource', uri: 'tags://all' }, argument: { name: 'x', value: '' } });
    expectEqual(fixed.completion, { values: [] }, 'a fixed resource has nothing to complete');
  } finally {
    await close();
  }
}

function missingMethod(): void {
  @McpServer({ name: 'typo', version: '1.0.0' })
  class TypoServer {
    @Prompt({ description: 'Ask for a forecast' })
    forecast(args: TypoArgs) {
      return args.units ?? '';
    }
  }
  try {
    createMcpApp(TypoServer);
    throw new Error('expected a build error');
  } catch (error) {
    if (!(error instanceof ArmatureBuildError)) throw error;
    expectEqual(error.message, outputs['missing-method'], 'unknown method name');
  }
}

class TypoArgs {
  @Complete('suggestUnit')
  @IsOptional()
  @IsString()
  units?: string;
}

export async function main(): Promise<void> {
  await completions();
  await limits();
  missingMethod();
}
