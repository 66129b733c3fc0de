import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Catalogue,
  createProject,
  formatCatalogue,
  generate,
  lintCatalogue,
  nestProjectFiles,
  plainUi,
  projectFiles,
} from '@armature/cli';
import { createMcpApp, McpServer, Tool } from '@armature/core';
import { IsString } from 'class-validator';
import { GreeterServer } from './getting-started/src/greeter.js';
import { expectEqual } from './support/check.js';

// What the CLI guide shows, produced by the CLI's own functions: the layout of a new project, a
// generated DTO with the plan `generate` prints, and the inspect report of the getting-started server.

export const outputs = {
  nestLayout: `greeter/
├── .dockerignore
├── .gitignore
├── Dockerfile
├── README.md
├── biome.json
├── package.json                      adds @armature/nestjs and Nest 12
├── src/
│   ├── app.module.ts                 ArmatureModule.forRoot({ http: { path: '/mcp' } }) + GreeterModule
│   ├── app.ts                        createNestApp() for main.ts and tests; createApp() for inspect
│   ├── greeter/
│   │   ├── dto/
│   │   │   ├── greet.input.ts        one DTO: the tool's input and the controller's @Body()
│   │   │   └── greet.output.ts
│   │   ├── greeter.controller.ts     POST /greetings, checked by ArmatureValidationPipe
│   │   ├── greeter.module.ts         controllers and providers of the feature
│   │   ├── greeter.server.ts         @McpServer @Injectable(): its @Tool methods are the tools
│   │   └── greeting.service.ts       a Nest provider, injected into both
│   └── main.ts                       REST and MCP on one port (PORT, default 3000)
├── test/
│   ├── greeter/
│   │   ├── dto/
│   │   │   └── greet.input.test.ts   the DTO (buildDto, expectDtoRejects)
│   │   ├── greeter.http.test.ts      the app on a free port: REST and MCP, same problems
│   │   └── greeter.pipeline.test.ts  the MCP client in memory (connectMcp)
│   └── support/
│       └── mcp-client.ts             connectMcp(): AppModule built by Nest, the client in memory
├── tsconfig.build.json
├── tsconfig.json
└── vitest.config.ts`,
  nestPlan: `Generated tool "get_forecast" in GreeterServer:
  create    src/greeter/dto/get-forecast.input.ts
  create    src/greeter/dto/get-forecast.output.ts
  update    src/greeter/greeter.server.ts  (adds GreeterServer.getForecast)
  create    test/greeter/get-forecast.tool.test.ts`,
  layout: `weather-mcp/
├── .dockerignore
├── .gitignore
├── Dockerfile                        builds, then runs the bundle as the unprivileged node user
├── README.md                         how to run, connect (Claude Desktop, Claude Code), test and grow it
├── biome.json                        lint and format (useImportType off: DTOs stay value imports)
├── package.json                      scripts: dev, build, start, test, typecheck, lint, format, inspect
├── src/
│   ├── app.ts                        servers = [WeatherServer] and createApp()
│   ├── main.ts                       starts stdio (or HTTP with --transport http)
│   └── weather/
│       ├── dto/
│       │   ├── greet.input.ts        the tool's arguments: schema and validation
│       │   └── greet.output.ts       the tool's result: outputSchema, checked before sending
│       ├── greeting.service.ts       business logic, injected by type
│       └── weather.server.ts         @McpServer class; its @Tool methods are the tools
├── test/
│   └── weather/
│       ├── dto/
│       │   └── greet.input.test.ts   level 2: the DTO (buildDto, expectDtoRejects)
│       ├── weather.pipeline.test.ts  level 3: the client in memory (createTestingApp)
│       └── weather.server.test.ts    level 1: the method (createTestContext)
├── tsconfig.build.json               tsc to dist/, with source maps
├── tsconfig.json                     the decorator flags; includes src, test, vitest.config.ts
└── vitest.config.ts`,
  plan: `Generated tool "get_forecast" in WeatherServer:
  create    src/weather/dto/get-forecast.input.ts
  create    src/weather/dto/get-forecast.output.ts
  update    src/weather/weather.server.ts  (adds WeatherServer.getForecast)
  create    test/weather/get-forecast.tool.test.ts`,
  dto: `import { Field } from '@armature/core';
import { IsIn, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';

/** Arguments of the \`get_forecast\` tool. */
export class GetForecastInput {
  @Field('City')
  @IsString()
  @Length(1, 64)
  city!: string;

  @Field('Days')
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(14)
  days?: number;

  @Field('Units')
  @IsOptional()
  @IsIn(['metric', 'imperial'])
  units?: 'metric' | 'imperial';
}`,
  inspect: `greeter 1.0.0: 3 tools, 0 resources, 0 resource templates, 0 prompts

Tools
  greet  [read-only]
    Greet someone by name
    input:
      name: string, 1..50 chars, required. Who to greet
      language: "en" | "it", default "en", optional. Language of the greeting
  greet_person  [read-only]
    Greet a person given by first and last name
    input:
      person: Person, required. Who to greet, as an object
        first: string, 1..50 chars, required. First name
        last: string, optional. Last name
  book_flight
    Book a seat on a flight, once the user has chosen one
    input:
      flight: string, required

Lint: 3 findings
  schema-ref         tool greet_person: uses $ref/$defs (a nested DTO). Some LLM providers do not resolve references; flatten it if one of them must call this tool
  read-only-hint     tool book_flight: say whether it changes anything: annotations: { readOnlyHint: true } (or false, with destructiveHint)
  field-description  tool book_flight, argument flight: no description: the model guesses what to send. Add @Field('What it is and its format')`,
};

class BookInput {
  @IsString()
  flight!: string;
}

@McpServer({ name: 'travel', version: '1.0.0' })
class TravelServer {
  @Tool({ name: 'book_flight', description: 'Book a seat on a flight, once the user has chosen one' })
  book(input: BookInput) {
    return `booked ${input.flight}`;
  }
}

const NOTES: Record<string, string> = {
  Dockerfile: 'builds, then runs the bundle as the unprivileged node user',
  'README.md': 'how to run, connect (Claude Desktop, Claude Code), test and grow it',
  'biome.json': 'lint and format (useImportType off: DTOs stay value imports)',
  'package.json': 'scripts: dev, build, start, test, typecheck, lint, format, inspect',
  'src/app.ts': 'servers = [WeatherServer] and createApp()',
  'src/main.ts': 'starts stdio (or HTTP with --transport http)',
  'src/weather/dto/greet.input.ts': "the tool's arguments: schema and validation",
  'src/weather/dto/greet.output.ts': "the tool's result: outputSchema, checked before sending",
  'src/weather/greeting.service.ts': 'business logic, injected by type',
  'src/weather/weather.server.ts': '@McpServer class; its @Tool methods are the tools',
  'test/weather/dto/greet.input.test.ts': 'level 2: the DTO (buildDto, expectDtoRejects)',
  'test/weather/weather.pipeline.test.ts': 'level 3: the client in memory (createTestingApp)',
  'test/weather/weather.server.test.ts': 'level 1: the method (createTestContext)',
  'tsconfig.build.json': 'tsc to dist/, with source maps',
  'tsconfig.json': 'the decorator flags; includes src, test, vitest.config.ts',
};

const NEST_NOTES: Record<string, string> = {
  'package.json': 'adds @armature/nestjs and Nest 12',
  'src/app.module.ts': "ArmatureModule.forRoot({ http: { path: '/mcp' } }) + GreeterModule",
  'src/app.ts': 'createNestApp() for main.ts and tests; createApp() for inspect',
  'src/main.ts': 'REST and MCP on one port (PORT, default 3000)',
  'src/greeter/dto/greet.input.ts': "one DTO: the tool's input and the controller's @Body()",
  'src/greeter/greeter.controller.ts': 'POST /greetings, checked by ArmatureValidationPipe',
  'src/greeter/greeter.module.ts': 'controllers and providers of the feature',
  'src/greeter/greeter.server.ts': '@McpServer @Injectable(): its @Tool methods are the tools',
  'src/greeter/greeting.service.ts': 'a Nest provider, injected into both',
  'test/greeter/dto/greet.input.test.ts': 'the DTO (buildDto, expectDtoRejects)',
  'test/greeter/greeter.http.test.ts': 'the app on a free port: REST and MCP, same problems',
  'test/greeter/greeter.pipeline.test.ts': 'the MCP client in memory (connectMcp)',
  'test/support/mcp-client.ts': 'connectMcp(): AppModule built by Nest, the client in memory',
};

interface Folder {
  [name: string]: Folder | null;
}

/** The files as a tree, each with its note aligned in a column. */
function tree(root: string, paths: readonly string[], notes: Record<string, string> = NOTES): string {
  const top: Folder = {};
  for (const path of paths) {
    const parts = path.split('/');
    let folder = top;
    for (const part of parts.slice(0, -1)) {
      folder[`${part}/`] ??= {};
      folder = folder[`${part}/`] as Folder;
    }
    folder[parts.at(-1) as string] = null;
  }
  const rows: Array<[string, string | undefined]> = [];
  const walk = (folder: Folder, prefix: string, at: string) => {
    const names = Object.keys(folder).sort();
    names.forEach((name, i) => {
      const last = i === names.length - 1;
      const child = folder[name];
      rows.push([`${prefix}${last ? '└── ' : '├── '}${name}`, child === null ? notes[`${at}${name}`] : undefined]);
      if (child) walk(child, `${prefix}${last ? '    ' : '│   '}`, `${at}${name}`);
    });
  };
  walk(top, '', '');
  const width = Math.max(...rows.filter(([, note]) => note).map(([line]) => line.length)) + 2;
  return [`${root}/`, ...rows.map(([line, note]) => (note ? `${line.padEnd(width)}${note}` : line))].join('\n');
}

// #region generate
/** `armature generate tool get-forecast --server weather --fields "..."` in the project at `cwd`: what it prints. */
async function addForecastTool(cwd: string): Promise<string[]> {
  const lines: string[] = [];
  await generate(
    'tool',
    'get-forecast',
    { server: 'weather', fields: 'city:string:1..64, days?:int:1..14, units?:enum:metric|imperial', cwd },
    plainUi((line) => lines.push(line)),
  );
  return lines;
}
// #endregion

// #region nest-generate
/** `armature generate tool get-forecast --fields "city:string:1..64"` in the Nest project at `cwd`: what it prints. */
async function addNestForecastTool(cwd: string): Promise<string[]> {
  const lines: string[] = [];
  await generate(
    'tool',
    'get-forecast',
    { fields: 'city:string:1..64', format: false, cwd },
    plainUi((line) => lines.push(line)),
  );
  return lines;
}
// #endregion

export async function main(): Promise<void> {
  const files = projectFiles({ name: 'weather-mcp', transport: 'stdio', packageManager: 'npm' }).map((file) => file.path);
  expectEqual(tree('weather-mcp', files), outputs.layout, 'the layout of a new project');

  const cwd = mkdtempSync(join(tmpdir(), 'armature-docs-cli-'));
  try {
    const quiet = plainUi(() => undefined);
    await createProject({ name: 'weather-mcp', yes: true, install: false, cwd }, quiet);
    const lines = await addForecastTool(join(cwd, 'weather-mcp'));
    expectEqual(lines[0], outputs.plan, 'the plan generate prints');
    const dto = readFileSync(join(cwd, 'weather-mcp/src/weather/dto/get-forecast.input.ts'), 'utf8');
    expectEqual(dto.trimEnd(), outputs.dto, 'the generated input DTO');

    // A Nest project: the same generator finds the @McpServer provider in the module's folder.
    const nestFiles = nestProjectFiles({ name: 'greeter', transport: 'http', packageManager: 'npm', template: 'nestjs' });
    const nestTree = tree(
      'greeter',
      nestFiles.map((file) => file.path),
      NEST_NOTES,
    );
    expectEqual(nestTree, outputs.nestLayout, 'the layout of a Nest project');
    // As on Node 22.12, which the template needs (create refuses it on the Node 20 running this).
    await createProject({ name: 'greeter', template: 'nestjs', yes: true, install: false, cwd, nodeVersion: '22.12.0' }, quiet);
    const nestLines = await addNestForecastTool(join(cwd, 'greeter'));
    expectEqual(nestLines[0], outputs.nestPlan, 'the plan generate prints in a Nest project');
    const nestTest = readFileSync(join(cwd, 'greeter/test/greeter/get-forecast.tool.test.ts'), 'utf8');
    expectEqual(nestTest.includes('t = await connectMcp();'), true, 'the generated test builds the app with Nest');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }

  const { definition } = createMcpApp([GreeterServer, TravelServer]);
  const catalogue: Catalogue = {
    server: definition.info,
    tools: [...definition.toolList],
    resources: [],
    resourceTemplates: [],
    prompts: [],
  };
  expectEqual(formatCatalogue('text', catalogue, lintCatalogue(catalogue)).trimEnd(), outputs.inspect, 'armature inspect');
}
