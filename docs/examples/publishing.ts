import { readFileSync } from 'node:fs';
import {
  type Catalogue,
  contractOf,
  diffContracts,
  formatContract,
  formatContractChanges,
  formatServerCard,
  formatServerJson,
  type PublishManifest,
} from '@armature/cli';
import { createMcpApp, Field, type ListenHttpOptions, McpServer, type McpServerOptions, Tool } from '@armature/core';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { expectEqual } from './support/check.js';

// What the publishing guide shows, produced by the functions armature inspect runs: the server.json
// of release 1.2.0, its contract snapshot, and the check of the next release against it.

export const outputs = {
  serverCard: `{
  "$schema": "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
  "name": "io.github.acme/weather-mcp",
  "version": "1.2.0",
  "description": "Forecasts for any city, for the next two weeks",
  "title": "Weather",
  "websiteUrl": "https://github.com/acme/weather-mcp#readme",
  "repository": {
    "url": "https://github.com/acme/weather-mcp",
    "source": "github"
  },
  "remotes": [
    {
      "type": "streamable-http",
      "url": "https://mcp.acme.example/mcp",
      "supportedProtocolVersions": [
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
        "2024-11-05",
        "2024-10-07",
        "2026-07-28"
      ]
    }
  ]
}`,
  serverJson: `{
  "$schema": "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
  "name": "io.github.acme/weather-mcp",
  "title": "Weather",
  "description": "Forecasts for any city, for the next two weeks",
  "version": "1.2.0",
  "repository": {
    "url": "https://github.com/acme/weather-mcp",
    "source": "github"
  },
  "websiteUrl": "https://github.com/acme/weather-mcp#readme",
  "packages": [
    {
      "registryType": "npm",
      "identifier": "@acme/weather-mcp",
      "version": "1.2.0",
      "transport": {
        "type": "stdio"
      }
    }
  ]
}`,
  snapshot: `{
  "format": 1,
  "prompts": {},
  "resourceTemplates": {},
  "resources": {},
  "server": "weather",
  "tools": {
    "get_forecast": {
      "annotations": {
        "readOnlyHint": true
      },
      "inputSchema": {
        "additionalProperties": false,
        "properties": {
          "city": {
            "description": "City name",
            "maxLength": 64,
            "minLength": 1,
            "type": "string"
          },
          "days": {
            "description": "Days ahead",
            "maximum": 14,
            "minimum": 1,
            "type": "integer"
          }
        },
        "required": [
          "city"
        ],
        "type": "object"
      }
    }
  }
}`,
  check: `breaking    tool get_forecast: argument days: maximum narrowed from 14 to 7
breaking    tool get_forecast: new required argument units
compatible  tool get_alerts: new
armature inspect --check mcp-contract.json: 2 breaking change(s), 1 compatible. A client built against mcp-contract.json may fail. If the break is intended, release it as a new major version and write the new contract with: armature inspect --snapshot mcp-contract.json`,
};

// #region release
export class ForecastInput {
  @Field('City name')
  @IsString()
  @Length(1, 64)
  city!: string;

  @Field('Days ahead')
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(14)
  days?: number;
}

@McpServer({ name: 'weather', version: '1.2.0', title: 'Weather' })
export class WeatherServer {
  @Tool({ name: 'get_forecast', description: 'Forecast for a city', annotations: { readOnlyHint: true } })
  getForecast(input: ForecastInput) {
    return `${input.city}: sunny for ${input.days ?? 3} days`;
  }
}
// #endregion

// #region next
export class NextForecastInput {
  @Field('City name')
  @IsString()
  @Length(1, 64)
  city!: string;

  @Field('Days ahead')
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(7) // was 14
  days?: number;

  @Field('Units') // new, and required
  @IsIn(['metric', 'imperial'])
  units!: 'metric' | 'imperial';
}

@McpServer({ name: 'weather', version: '1.3.0', title: 'Weather' })
export class NextWeatherServer {
  @Tool({ name: 'get_forecast', description: 'Forecast for a city', annotations: { readOnlyHint: true } })
  getForecast(input: NextForecastInput) {
    return `${input.city}: sunny for ${input.days ?? 3} days (${input.units})`;
  }

  @Tool({ name: 'get_alerts', description: 'Weather alerts for a city', annotations: { readOnlyHint: true } })
  getAlerts(input: ForecastInput) {
    return `${input.city}: no alerts`;
  }
}
// #endregion

/** The catalogue armature inspect reads from the app (here without a child process). */
function catalogueOf(server: new () => unknown): Catalogue {
  const { definition } = createMcpApp([server]);
  return {
    server: definition.info as McpServerOptions,
    tools: [...definition.toolList] as Catalogue['tools'],
    resources: [],
    resourceTemplates: [],
    prompts: [],
  };
}

/** The card the HTTP listener serves, equal to the one the CLI writes from the same fields. */
async function servedCard(written: string, manifest: PublishManifest): Promise<void> {
  const app = createMcpApp(WeatherServer);
  // #region server-card
  const options: ListenHttpOptions = {
    serverCard: {
      name: 'io.github.acme/weather-mcp', // package.json mcpName
      description: 'Forecasts for any city, for the next two weeks', // package.json description
      websiteUrl: 'https://github.com/acme/weather-mcp#readme',
      repository: { url: 'https://github.com/acme/weather-mcp', source: 'github' },
      url: 'https://mcp.acme.example/mcp', // where clients connect: the card's remotes entry
    },
  };
  // #endregion
  expectEqual(options.serverCard?.name, manifest.mcpName, 'the name is mcpName');
  const listener = await app.listenHttp({ port: 0, ...options });
  try {
    const answer = await fetch(`${listener.url}/server-card`, { headers: { accept: 'application/mcp-server-card+json' } });
    expectEqual(answer.headers.get('content-type'), 'application/mcp-server-card+json', 'the media type');
    expectEqual(JSON.stringify(await answer.json()), JSON.stringify(JSON.parse(written)), 'the served card is the written one');
  } finally {
    await listener.close();
    await app.close();
  }
}

export async function main(): Promise<void> {
  const manifest = JSON.parse(readFileSync(new URL('./publishing/package.json', import.meta.url), 'utf8')) as PublishManifest;
  const release = catalogueOf(WeatherServer);
  expectEqual(formatServerJson(release, manifest).trimEnd(), outputs.serverJson, 'armature inspect --format server-json');
  const card = await formatServerCard(release, manifest, 'https://mcp.acme.example/mcp');
  expectEqual(card.trimEnd(), outputs.serverCard, 'armature inspect --format server-card --url ...');
  await servedCard(card, manifest);
  const snapshot = formatContract(contractOf(release));
  expectEqual(snapshot.trimEnd(), outputs.snapshot, 'armature inspect --snapshot mcp-contract.json');
  const changes = diffContracts(JSON.parse(snapshot), contractOf(catalogueOf(NextWeatherServer)));
  expectEqual(formatContractChanges('mcp-contract.json', changes).trimEnd(), outputs.check, 'armature inspect --check mcp-contract.json');
}
