import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import { IsString } from 'class-validator';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AppResource,
  type Context,
  createMcpApp,
  type ExecutionContext,
  type Guard,
  type Interceptor,
  McpServer,
  mount,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
  UseGuards,
} from '../src/index.js';
import { buildError } from './support/build-error.js';
import { type Connected, connectInMemory } from './support/clients.js';

const asked: string[] = [];

/** Lets a call through when the request's `_meta.part` names its part; records every question. */
function partGuard(part: string): Guard {
  return {
    canActivate(context: ExecutionContext) {
      asked.push(`${part} ${context.phase} ${context.name}`);
      return context.context.meta.part === part;
    },
  };
}

class CityParams {
  @IsString()
  city!: string;
}

@McpServer({ name: 'weather', version: '1.0.0' })
class WeatherServer {
  @Tool({ description: 'The status of the weather service' })
  status() {
    return 'weather ok';
  }

  @Resource({ uri: 'config://app', name: 'config' })
  config() {
    return 'weather config';
  }

  @ResourceTemplate({ uriTemplate: 'forecast://{city}', name: 'forecast' })
  forecast(params: CityParams, ctx: Context) {
    return `forecast for ${params.city} (${ctx.meta.part})`;
  }

  @Prompt({ description: 'Brief' })
  brief() {
    return 'weather brief';
  }
}

class AuditGuard implements Guard {
  canActivate(context: ExecutionContext) {
    asked.push(`audit ${context.phase} ${context.name}`);
    return true;
  }
}

@McpServer({ name: 'billing', version: '1.0.0' })
@UseGuards(AuditGuard)
class BillingServer {
  @Tool({ description: 'The status of the billing service' })
  status() {
    return 'billing ok';
  }

  @Resource({ uri: 'config://app', name: 'config' })
  config() {
    return 'billing config';
  }

  @Prompt({ description: 'Brief' })
  brief() {
    return 'billing brief';
  }
}

const trail: string[] = [];
class PartInterceptor implements Interceptor {
  async intercept(context: ExecutionContext, next: () => Promise<unknown>) {
    trail.push(`billing part around ${context.name}`);
    return next();
  }
}

function composed() {
  return createMcpApp([
    mount('weather', WeatherServer, { guards: [partGuard('weather')] }),
    mount('billing', BillingServer, { guards: [partGuard('billing')], interceptors: [PartInterceptor] }),
  ]);
}

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

let connection: Connected | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
  asked.length = 0;
  trail.length = 0;
});

describe('composition: classes mounted under prefixes', () => {
  it('serves the same tool name of two servers under two prefixes, each behind its own guard only', async () => {
    connection = await connectInMemory(composed());
    const c = connection.client;
    const weather = { _meta: { part: 'weather' } };
    const billing = { _meta: { part: 'billing' } };

    expect((await c.listTools(weather)).tools.map((t) => t.name)).toEqual(['weather_status']);
    expect((await c.listTools(billing)).tools.map((t) => t.name)).toEqual(['billing_status']);
    expect(textOf(await c.callTool({ name: 'weather_status', arguments: {}, ...weather }))).toBe('weather ok');
    expect(textOf(await c.callTool({ name: 'billing_status', arguments: {}, ...billing }))).toBe('billing ok');

    asked.length = 0;
    // A refused caller is answered as if the tool did not exist, as for any guard.
    await expect(c.callTool({ name: 'billing_status', arguments: {}, ...weather })).rejects.toThrow(
      'Unknown tool: "billing_status". Available tools: weather_status',
    );
    // Only the billing part's guard was asked about the billing tool, the weather guard only about
    // its own (listing the tools this caller may see, for the answer).
    expect(asked).toEqual(['billing call billing_status', 'weather list weather_status', 'billing list billing_status']);

    asked.length = 0;
    await c.callTool({ name: 'weather_status', arguments: {}, ...weather });
    expect(asked).toEqual(['weather call weather_status']);
  });

  it('keeps each class its own guards and puts the part interceptors around its calls only', async () => {
    connection = await connectInMemory(composed());
    const c = connection.client;
    await c.callTool({ name: 'billing_status', arguments: {}, _meta: { part: 'billing' } });
    // App-level first, then the part's, then the class's: the part guard, then AuditGuard.
    expect(asked).toEqual(['billing call billing_status', 'audit call billing_status']);
    await c.callTool({ name: 'weather_status', arguments: {}, _meta: { part: 'weather' } });
    expect(trail).toEqual(['billing part around billing_status']);
  });

  it('prefixes resource URIs after the scheme and prompt names like tools', async () => {
    connection = await connectInMemory(composed());
    const c = connection.client;
    const weather = { _meta: { part: 'weather' } };
    const billing = { _meta: { part: 'billing' } };
    expect((await c.listResources(weather)).resources.map((r) => r.uri)).toEqual(['config://weather/app']);
    expect((await c.listResourceTemplates(weather)).resourceTemplates.map((t) => [t.name, t.uriTemplate])).toEqual([
      ['weather_forecast', 'forecast://weather/{city}'],
    ]);
    expect((await c.readResource({ uri: 'config://weather/app', ...weather })).contents[0]).toMatchObject({ text: 'weather config' });
    expect((await c.readResource({ uri: 'config://billing/app', ...billing })).contents[0]).toMatchObject({ text: 'billing config' });
    expect((await c.readResource({ uri: 'forecast://weather/Oslo', ...weather })).contents[0]).toMatchObject({
      text: 'forecast for Oslo (weather)',
    });
    await expect(c.readResource({ uri: 'config://app', ...weather })).rejects.toThrow(/not found/i);
    expect((await c.listPrompts(billing)).prompts.map((p) => p.name)).toEqual(['billing_brief']);
    const prompt = await c.getPrompt({ name: 'weather_brief', ...weather });
    expect(prompt.messages[0]?.content).toMatchObject({ text: 'weather brief' });
  });

  it('mixes mounted parts and classes served as they are', async () => {
    connection = await connectInMemory(createMcpApp([WeatherServer, mount('billing', BillingServer)]));
    const names = (await connection.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['status', 'billing_status']);
  });
});

@McpServer({ name: 'dashboard', version: '1.0.0' })
class DashboardServer {
  @Tool({ description: 'Shows the dashboard', ui: { resource: 'ui://dashboard/view.html' } })
  show() {
    return 'shown';
  }

  @AppResource({ uri: 'ui://dashboard/view.html', name: 'dashboard-view' })
  view() {
    return '<!doctype html><p>dashboard</p>';
  }
}

describe('composition: a mounted MCP App', () => {
  it("moves the tool's ui:// resource with its part, for hosts with and without the extension", async () => {
    const app = createMcpApp([mount('ops', DashboardServer)]);
    const served = 'ui://ops/dashboard/view.html';
    connection = await connectInMemory(app, { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } });
    const [tool] = (await connection.client.listTools()).tools;
    expect([tool?.name, tool?._meta]).toEqual(['ops_show', { ui: { resourceUri: served }, [RESOURCE_URI_META_KEY]: served }]);
    expect((await connection.client.readResource({ uri: served })).contents[0]).toMatchObject({ mimeType: RESOURCE_MIME_TYPE });
    await connection.close();
    connection = await connectInMemory(app);
    expect((await connection.client.listTools()).tools.map((t) => [t.name, t._meta])).toEqual([['ops_show', undefined]]);
  });
});

class SchemeParams {
  @IsString()
  scheme!: string;
}

describe('composition: problems at start-up', () => {
  it('refuses two handlers served under one name, naming both sides and the fix', () => {
    @McpServer({ name: 'legacy', version: '1.0.0' })
    class LegacyServer {
      @Tool({ name: 'weather_status', description: 'Old status' })
      oldStatus() {
        return 'old';
      }

      @Resource({ uri: 'config://weather/app', name: 'config' })
      config() {
        return 'old config';
      }
    }
    const error = buildError(() => createMcpApp([LegacyServer, mount('weather', WeatherServer)]));
    expect(error.problems).toEqual([
      {
        code: 'ARM130',
        where: 'WeatherServer.status',
        message: `the tool name "weather_status" is served by both LegacyServer.oldStatus and WeatherServer.status (in mount('weather'))`,
        fix: "mount one of them under another prefix (mount('other', Server)), or rename one: @Tool({ name: '...' })",
      },
      {
        code: 'ARM130',
        where: 'WeatherServer.config',
        message: `the resource URI "config://weather/app" is served by both LegacyServer.config and WeatherServer.config (in mount('weather'))`,
        fix: "mount one of them under another prefix (mount('other', Server)), or give one another URI",
      },
    ]);
    expect(error.message).toContain('ARM130');
  });

  it('refuses an invalid prefix, invalid tags and a mounted template without a scheme, all at once', () => {
    @McpServer({ name: 'odd', version: '1.0.0' })
    class OddServer {
      @Tool({ description: 'd', tags: [''] })
      tagged() {}

      @ResourceTemplate({ uriTemplate: '{scheme}://x', name: 'any' })
      any(_params: SchemeParams) {}
    }
    const error = buildError(() => createMcpApp([mount('odd one', OddServer, { tags: 'admin' as never })]));
    expect(error.problems.map((p) => [p.code, p.where])).toEqual([
      ['ARM131', "mount('odd one')"],
      ['ARM132', "mount('odd one')"],
      ['ARM132', 'OddServer.tagged'],
      ['ARM133', 'OddServer.any'],
    ]);
    expect(error.problems[0]?.fix).toBe("mount('odd-one', Server)");
  });
});
