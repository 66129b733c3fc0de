import { ArmatureBuildError, createMcpApp, type ExecutionContext, type Guard, McpServer, mount, Resource, Tool } from '@armature/core';
import type { ProtocolError } from '@modelcontextprotocol/client';
import { connectInMemory, expectEqual } from './support/check.js';

// #region servers
@McpServer({ name: 'weather', version: '1.0.0' })
export class WeatherServer {
  @Tool({ description: 'Whether the weather service is up' })
  status() {
    return 'weather: up';
  }

  @Resource({ uri: 'config://app', name: 'config' })
  config() {
    return 'units=metric';
  }
}

@McpServer({ name: 'billing', version: '1.0.0' })
export class BillingServer {
  @Tool({ description: 'Whether the billing service is up' })
  status() {
    return 'billing: up';
  }

  @Resource({ uri: 'config://app', name: 'config' })
  config() {
    return 'currency=EUR';
  }
}

/** Lets only finance clients (`_meta.team`) near billing. */
export class FinanceOnly implements Guard {
  canActivate(context: ExecutionContext) {
    return context.context.meta.team === 'finance';
  }
}
// #endregion

async function composed(): Promise<void> {
  // #region mount
  const app = createMcpApp([
    mount('weather', WeatherServer),
    mount('billing', BillingServer, { guards: [FinanceOnly] }), // billing's handlers only
  ]);
  // #endregion
  const { client, close } = await connectInMemory(app);
  try {
    const finance = { _meta: { team: 'finance' } };
    expectEqual(
      (await client.listTools(finance)).tools.map((t) => t.name),
      JSON.parse(outputs.tools as string),
      'tool names',
    );
    expectEqual(
      (await client.listResources(finance)).resources.map((r) => r.uri),
      JSON.parse(outputs.uris as string),
      'resource URIs',
    );
    expectEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['weather_status'],
      'the guard hides billing only',
    );
    const read = await client.readResource({ uri: 'config://billing/app', ...finance });
    expectEqual((read.contents[0] as { text: string }).text, 'currency=EUR', 'billing config');
    const denied = await client.callTool({ name: 'billing_status', arguments: {} }).catch((error: ProtocolError) => error.message);
    expectEqual(denied, outputs.denied, 'refused like an unknown tool');
  } finally {
    await close();
  }
}

async function collision(): Promise<void> {
  // #region legacy
  @McpServer({ name: 'legacy', version: '1.0.0' })
  class LegacyServer {
    @Tool({ name: 'weather_status', description: 'The old status tool' })
    oldStatus() {
      return 'up';
    }
  }
  createMcpApp([LegacyServer, mount('weather', WeatherServer)]); // throws ArmatureBuildError
  // #endregion
}

export const outputs: Record<string, string> = {
  tools: '["weather_status", "billing_status"]',
  uris: '["config://weather/app", "config://billing/app"]',
  denied: 'Unknown tool: "billing_status". Available tools: weather_status',
  collision: `Armature cannot start the MCP server: 1 problem in the decorated classes.
  1. WeatherServer.status: the tool name "weather_status" is served by both LegacyServer.oldStatus and WeatherServer.status (in mount('weather')) [ARM130]
     Fix: mount one of them under another prefix (mount('other', Server)), or rename one: @Tool({ name: '...' })`,
};

export async function main(): Promise<void> {
  await composed();
  const error = await collision().catch((thrown: unknown) => thrown);
  expectEqual(error instanceof ArmatureBuildError, true, 'a collision stops the start');
  expectEqual((error as Error).message, outputs.collision, 'the collision names both sides and the fix');
}
