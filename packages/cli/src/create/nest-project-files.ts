import type { PlannedFile } from '../util/file-plan.js';
import { execBinary, runScript } from '../util/package-manager.js';
import { markdownTable } from '../util/pretty.js';
import { NEST_TEST_HELPER } from '../util/project.js';
import {
  BIOME,
  commandRows,
  connectSection,
  DOCKERIGNORE,
  dockerfile,
  dtoTest,
  GITIGNORE,
  GREET_INPUT,
  GREET_OUTPUT,
  type ProjectNames,
  type ProjectOptions,
  projectNames,
  projectPackageJson,
  relativeImports,
  TSCONFIG,
  TSCONFIG_BUILD,
  VITEST_CONFIG,
} from './project-files.js';
import { ARMATURE_VERSION, NEST_PINNED } from './versions.js';

function packageJson(options: ProjectOptions): string {
  return projectPackageJson(options, 'A NestJS app serving REST and MCP on one port, built with Armature', {
    node: NEST_NODE_RANGE,
    dependencies: {
      '@armature/nestjs': `^${ARMATURE_VERSION}`,
      '@nestjs/common': NEST_PINNED['@nestjs/common'],
      '@nestjs/core': NEST_PINNED['@nestjs/core'],
      '@nestjs/platform-express': NEST_PINNED['@nestjs/platform-express'],
      'reflect-metadata': NEST_PINNED['reflect-metadata'],
      rxjs: NEST_PINNED.rxjs,
    },
    devDependencies: { '@modelcontextprotocol/client': NEST_PINNED['@modelcontextprotocol/client'] },
  });
}

/**
 * Node 22.12 or later (and not 23): @nestjs/common 12.5.1 depends on file-type 22.3.0 (exactly),
 * which declares Node >= 22, so on Node 20 every install warned EBADENGINE; vite 8 and vitest 4
 * narrow it to the ranges below. Node 20 is past its end of life (April 2026), and overriding a
 * dependency Nest pins would leave the app on a file-type Nest is not tested with: declaring what
 * the dependencies need is the honest choice, and a new project starts on a supported Node.
 */
export const NEST_NODE_RANGE = '^22.12.0 || >=24.0.0';

/**
 * Why create refuses a nestjs project on a Node outside NEST_NODE_RANGE (Node 20 runs the CLI),
 * before writing anything: the project would install with EBADENGINE warnings and Nest is not
 * supported there. Undefined when `version` is in the range.
 */
export function nestNodeProblem(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if ((major === 22 && minor >= 12) || major >= 24) return undefined;
  return (
    `the nestjs template needs Node 22.12 or later, not 23 (engines ${NEST_NODE_RANGE}): @nestjs/common 12 depends on file-type 22, whose engines require Node 22; this is Node ${version}, where npm install warns EBADENGINE and Nest runs unsupported.\n` +
    'Nothing was written. Fix: run create again with Node 22.12+ or 24 (e.g. nvm install 22 && nvm use 22), or leave --template out: the default template runs on Node 20.19+.'
  );
}

const MAIN = `import { createNestApp } from './app.js';

// REST and MCP share Nest's HTTP port: http://127.0.0.1:3000 (PORT to change it; HOST=0.0.0.0 in
// a container), MCP on /mcp.
const app = await createNestApp();
await app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');
console.error(\`REST on \${await app.getUrl()}, MCP endpoint: \${await app.getUrl()}/mcp\`);
`;

const APP = `import 'reflect-metadata';
import type { McpApp } from '@armature/core';
import { ArmatureHost, ArmatureValidationPipe } from '@armature/nestjs';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

/** The Nest app, configured the same way by main.ts and the tests (not listening yet). */
export async function createNestApp(): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  // REST bodies are checked exactly as tool inputs: the same DTO gives the same problem lines.
  app.useGlobalPipes(new ArmatureValidationPipe());
  // SIGTERM: running MCP calls finish, then the sessions close.
  app.enableShutdownHooks();
  return app;
}

/**
 * The MCP app alone, built by Nest's injector with no HTTP server: \`armature inspect\` reads its
 * tools from here, then exits (the Nest context is left to the process's end).
 */
export async function createApp(): Promise<McpApp> {
  const context = await NestFactory.createApplicationContext(AppModule, { logger: false });
  return context.get(ArmatureHost).app;
}
`;

function appModule(names: NestNames): string {
  return `import { ArmatureModule } from '@armature/nestjs';
import { Module } from '@nestjs/common';
import { ${names.moduleClass} } from './${names.base}/${names.base}.module.js';

@Module({
  imports: [
    // Every @McpServer provider of the imported modules is served; MCP on Nest's port at /mcp.
    ArmatureModule.forRoot({ info: { name: '${names.mcpName}', version: '0.1.0' }, http: { path: '/mcp' } }),
    ${names.moduleClass},
  ],
})
export class AppModule {}
`;
}

interface NestNames extends ProjectNames {
  readonly moduleClass: string;
  readonly controllerClass: string;
}

function nestNames(name: string): NestNames {
  const names = projectNames(name);
  const stem = names.serverClass.replace(/Server$/, '');
  return { ...names, moduleClass: `${stem}Module`, controllerClass: `${stem}Controller` };
}

function featureModule(names: NestNames): string {
  return `import { Module } from '@nestjs/common';
${relativeImports([
  [names.controllerClass, `./${names.base}.controller.js`],
  [names.serverClass, `./${names.base}.server.js`],
  ['GreetingService', './greeting.service.js'],
])}

/** One feature: the REST controller and the MCP server share the service and the DTOs. */
@Module({ controllers: [${names.controllerClass}], providers: [GreetingService, ${names.serverClass}] })
export class ${names.moduleClass} {}
`;
}

function serverTs(names: NestNames): string {
  return `import { Context, McpServer, Tool } from '@armature/core';
import { Injectable } from '@nestjs/common';
import { GreetInput } from './dto/greet.input.js';
import { GreetOutput } from './dto/greet.output.js';
import { GreetingService } from './greeting.service.js';

/**
 * The MCP face of the module: a Nest provider whose @Tool methods are the tools. Nest's injector
 * builds it (and its dependencies), and Nest's guards apply to its calls.
 */
@McpServer({ name: '${names.mcpName}', version: '0.1.0' })
@Injectable()
export class ${names.serverClass} {
  constructor(private readonly greetings: GreetingService) {}

  @Tool({
    name: 'greet',
    description: 'Greet someone by name, in English or Italian. Use it when asked to say hello.',
    annotations: { readOnlyHint: true },
    output: () => GreetOutput,
  })
  async greet(input: GreetInput, ctx: Context): Promise<GreetOutput> {
    await ctx.log.info(\`greeting \${input.name}\`);
    return { greeting: this.greetings.greet(input.name, input.language) };
  }
}
`;
}

function controllerTs(names: NestNames): string {
  return `import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { GreetInput } from './dto/greet.input.js';
import { GreetOutput } from './dto/greet.output.js';
import { GreetingService } from './greeting.service.js';

/** The REST face: the same GreetInput, checked by ArmatureValidationPipe exactly as the tool checks it. */
@Controller('greetings')
export class ${names.controllerClass} {
  constructor(private readonly greetings: GreetingService) {}

  @Post()
  @HttpCode(200)
  greet(@Body() input: GreetInput): GreetOutput {
    return { greeting: this.greetings.greet(input.name, input.language) };
  }
}
`;
}

const GREETING_SERVICE = `import { Injectable } from '@nestjs/common';

const GREETINGS = { en: 'Hello', it: 'Ciao' } as const;

/** Plain business logic: no MCP and no HTTP in here. A Nest singleton, injected by type. */
@Injectable()
export class GreetingService {
  greet(name: string, language: keyof typeof GREETINGS): string {
    return \`\${GREETINGS[language]}, \${name}!\`;
  }
}
`;

function mcpClientHelper(): string {
  return `import { ArmatureHost } from '@armature/nestjs';
import {
  type CallToolResult,
  Client,
  type GetPromptResult,
  InMemoryTransport,
  type ReadResourceResult,
  type Tool,
} from '@modelcontextprotocol/client';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../../src/app.module.js';

/** The app's MCP server as a client sees it, with the official client connected in memory. */
export interface McpTestClient {
  readonly client: Client;
  callTool(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  listTools(): Promise<Tool[]>;
  readResource(uri: string): Promise<ReadResourceResult>;
  getPrompt(name: string, args?: Record<string, string>): Promise<GetPromptResult>;
  close(): Promise<void>;
}

/**
 * Builds AppModule with Nest's injector (no HTTP server) and connects the official MCP client to
 * its MCP server in memory: the whole pipeline (schemas, validation, Nest's injector and guards).
 * The tests \`armature generate tool|resource|prompt\` writes use it.
 */
export async function connectMcp(): Promise<McpTestClient> {
  const nest = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const server = nest.get(ArmatureHost).app.createServer();
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientTransport);
  return {
    client,
    callTool: async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult,
    listTools: async () => (await client.listTools()).tools,
    readResource: (uri) => client.readResource({ uri }),
    getPrompt: (name, args = {}) => client.getPrompt({ name, arguments: args }),
    close: async () => {
      await client.close();
      await server.close();
      await nest.close();
    },
  };
}
`;
}

function pipelineTest(names: NestNames): string {
  return `import { textOf } from '@armature/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpTestClient } from '../support/mcp-client.js';

// The whole MCP pipeline of the Nest app (Nest's injector, schemas, validation, result checks),
// called with the official MCP client in memory.
describe('${names.serverClass} through the MCP client', () => {
  let t: McpTestClient;

  beforeAll(async () => {
    t = await connectMcp();
  });

  // t is unset when the app failed to start in beforeAll: report that failure alone.
  afterAll(() => t?.close());

  it('advertises greet with its schemas and annotations', async () => {
    const greet = (await t.listTools()).find((tool) => tool.name === 'greet');
    expect(greet).toMatchObject({
      annotations: { readOnlyHint: true },
      inputSchema: { required: ['name'] },
      outputSchema: { required: ['greeting'] },
    });
  });

  it('answers with structured content from the Nest service', async () => {
    const result = await t.callTool('greet', { name: 'Ada', language: 'it' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ greeting: 'Ciao, Ada!' });
  });

  it('refuses invalid arguments before the method runs', async () => {
    const result = await t.callTool('greet', { name: '', language: 'de' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      [
        'Invalid arguments for tool "greet":',
        'name: must be longer than or equal to 1 characters',
        'language: must be one of the following values: en, it',
      ].join('\\n'),
    );
  });
});
`;
}

function httpTest(names: NestNames): string {
  return `import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { INestApplication } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNestApp } from '../../src/app.js';

// The app as it runs: Nest listening on a free port of 127.0.0.1, REST on /greetings and MCP on
// /mcp. One DTO, the same answers: a bad body gets the same problem lines from both doors.
describe('${names.controllerClass} and ${names.serverClass} on one port', () => {
  let app: INestApplication;
  let url: string;
  let client: Client;

  beforeAll(async () => {
    app = await createNestApp();
    await app.listen(0, '127.0.0.1');
    url = await app.getUrl();
    client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(\`\${url}/mcp\`)));
  });

  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  const post = (body: unknown) =>
    fetch(\`\${url}/greetings\`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('greets over REST and over MCP', async () => {
    const rest = await post({ name: 'Ada' });
    expect(rest.status).toBe(200);
    expect(await rest.json()).toEqual({ greeting: 'Hello, Ada!' });
    const mcp = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    expect(mcp.structuredContent).toEqual({ greeting: 'Hello, Ada!' });
  });

  it('reports the same problems for the same bad input', async () => {
    const problems = [
      'name: must be longer than or equal to 1 characters',
      'language: must be one of the following values: en, it',
    ];
    const rest = await post({ name: '', language: 'de' });
    expect(rest.status).toBe(400);
    expect(await rest.json()).toEqual({ message: problems, error: 'Bad Request', statusCode: 400 });
    const mcp = await client.callTool({ name: 'greet', arguments: { name: '', language: 'de' } });
    expect(mcp.isError).toBe(true);
    expect(mcp.content).toEqual([
      { type: 'text', text: ['Invalid arguments for tool "greet":', ...problems].join('\\n') },
    ]);
  });
});
`;
}

function readme(options: ProjectOptions, names: NestNames): string {
  const pm = options.packageManager;
  const armature = (args: string) => `${execBinary(pm, 'armature')} ${args}`;
  return `# ${options.name}

A [NestJS](https://nestjs.com) app serving REST and MCP (Model Context Protocol) on one port, with
[Armature](https://www.npmjs.com/package/@armature/nestjs): \`@McpServer\` providers whose \`@Tool\`
methods take the same class-validator DTOs as the controllers. The DTOs are the JSON Schemas the
model sees and the validation both doors run.

## Commands

${markdownTable(
  ['Command', 'What it does'],
  commandRows(options, 'REST and MCP on `http://127.0.0.1:3000`').map((row) =>
    row[0]?.includes(runScript(pm, 'inspect'))
      ? [row[0], 'Print the tools with their schemas, and lint them (from `createApp()` in `src/app.ts`).']
      : row,
  ),
)}

## Connect a client

${connectSection(options, names.mcpName)}

\`POST /greetings\` with \`{ "name": "Ada" }\` is the same operation over REST. Nest 12 needs Node 22 or
later (\`engines\` in package.json).

## Layout

${markdownTable(
  ['Path', 'What'],
  [
    ['`src/main.ts`', 'Starts Nest on its HTTP port.'],
    ['`src/app.ts`', '`createNestApp()` (main.ts and the tests) and `createApp()` (`armature inspect`).'],
    ['`src/app.module.ts`', '`ArmatureModule.forRoot(...)` and the feature module.'],
    [`\`src/${names.base}/${names.base}.module.ts\``, `\`${names.moduleClass}\`: the controller and the providers.`],
    [`\`${names.serverFile}\``, `\`${names.serverClass}\`: an \`@McpServer\` provider; its \`@Tool\` methods are the tools.`],
    [`\`src/${names.base}/${names.base}.controller.ts\``, 'The REST controller, taking the same DTO.'],
    [`\`src/${names.base}/greeting.service.ts\``, 'Business logic, injected by Nest into both.'],
    [`\`src/${names.base}/dto/\``, 'Input and output DTOs.'],
    [`\`${NEST_TEST_HELPER}\``, '`connectMcp()`: the MCP server with the official client in memory, for tests.'],
  ],
)}

## Grow it

\`\`\`bash
${armature(`generate tool get-forecast --server ${names.base} --fields "city:string:1..64, days?:int:1..14"`)}
${armature('generate dto address --fields "street:string:1..200, zip:string:5..5"')}
${armature(`generate resource settings --server ${names.base}`)}
${armature(`generate prompt summarize --server ${names.base} --fields "text:string:1..10000"`)}
\`\`\`

Each adds the method to \`${names.serverClass}\`, its DTOs, and a test through \`connectMcp()\`. A new
MCP server is a new \`@McpServer\` \`@Injectable()\` class in the \`providers\` of a module that
\`AppModule\` imports: Armature finds it there.

## Why these compiler flags

Nest and Armature read the types TypeScript records for decorators: \`experimentalDecorators\` and
\`emitDecoratorMetadata\` record them; \`useDefineForClassFields: false\` keeps declared-only DTO fields
off instances; \`verbatimModuleSyntax: false\` lets DTOs be imported as values. tsx and esbuild emit no
decorator metadata, which is why \`dev\` uses vite-node and \`build\` uses \`tsc\`.
`;
}

/** Every file of a new Nest project (`--template nestjs`), relative to its folder. */
export function nestProjectFiles(options: ProjectOptions): PlannedFile[] {
  const names = nestNames(options.name);
  const base = names.base;
  const files: Array<[string, string]> = [
    ['package.json', packageJson(options)],
    ['tsconfig.json', TSCONFIG],
    ['tsconfig.build.json', TSCONFIG_BUILD],
    ['vitest.config.ts', VITEST_CONFIG],
    ['biome.json', BIOME],
    ['.gitignore', GITIGNORE],
    ['.dockerignore', DOCKERIGNORE],
    ['Dockerfile', dockerfile(options)],
    ['README.md', readme(options, names)],
    ['src/main.ts', MAIN],
    ['src/app.ts', APP],
    ['src/app.module.ts', appModule(names)],
    [`src/${base}/${base}.module.ts`, featureModule(names)],
    [names.serverFile, serverTs(names)],
    [`src/${base}/${base}.controller.ts`, controllerTs(names)],
    [`src/${base}/greeting.service.ts`, GREETING_SERVICE],
    [`src/${base}/dto/greet.input.ts`, GREET_INPUT],
    [`src/${base}/dto/greet.output.ts`, GREET_OUTPUT],
    [NEST_TEST_HELPER, mcpClientHelper()],
    [`test/${base}/dto/greet.input.test.ts`, dtoTest(names)],
    [`test/${base}/${base}.pipeline.test.ts`, pipelineTest(names)],
    [`test/${base}/${base}.http.test.ts`, httpTest(names)],
  ];
  return files.map(([path, content]) => ({ path, action: 'create', content }));
}
