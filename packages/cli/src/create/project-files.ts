import type { PlannedFile } from '../util/file-plan.js';
import { serverBaseFromProject, serverClassName } from '../util/names.js';
import { execBinary, type PackageManager, runScript } from '../util/package-manager.js';
import { jsonText, markdownTable } from '../util/pretty.js';
import { type Runtime, type SourceRuntime, sourceRuntime } from './runtime-commands.js';
import { ARMATURE_VERSION, PINNED } from './versions.js';

export type Transport = 'stdio' | 'http';

/** `default`: a plain Armature server (typedi); `nestjs`: a Nest app serving REST and MCP on one port. */
export type Template = 'default' | 'nestjs';
export const TEMPLATES: readonly Template[] = ['default', 'nestjs'];

export interface ProjectOptions {
  /** npm package name, e.g. `weather-mcp` or `@acme/weather`. */
  readonly name: string;
  readonly transport: Transport;
  readonly packageManager: PackageManager;
  /** Default `default`. */
  readonly template?: Template;
  /**
   * What runs the server. Default `node`; `bun` and `deno` run the TypeScript sources, `workers` is a
   * Cloudflare Worker over HTTP (default template only).
   */
  readonly runtime?: Runtime;
}

/** Bun or Deno when the project runs its sources on one of them; undefined on Node. */
function sourceRuntimeOf(options: ProjectOptions) {
  return options.runtime === 'bun' || options.runtime === 'deno' ? sourceRuntime(options.runtime, options.transport) : undefined;
}

/** Names derived from the project name, shared by the templates and the printed next steps. */
export interface ProjectNames {
  /** kebab base of the server: `weather`. */
  readonly base: string;
  /** `WeatherServer`. */
  readonly serverClass: string;
  /** `src/weather/weather.server.ts`. */
  readonly serverFile: string;
  /** The MCP server name advertised in `serverInfo`: the unscoped package name. */
  readonly mcpName: string;
}

export function projectNames(name: string): ProjectNames {
  const base = serverBaseFromProject(name);
  return {
    base,
    serverClass: serverClassName(base),
    serverFile: `src/${base}/${base}.server.ts`,
    mcpName: name.replace(/^@[^/]+\//, ''),
  };
}

const json = jsonText;

/**
 * The Node versions a default project declares: those every package it installs supports (a test
 * checks each installed package's engines). vite 8, vite-node 6 and rolldown leave out 21.x and
 * 22.0-22.11, vitest 4 leaves out 23.x; a wider range would warn EBADENGINE there.
 */
export const NODE_RANGE = '^20.19.0 || ^22.12.0 || >=24.0.0';

/** What `npm run build` leaves for `npm start`: armature build's bundle of dist/main.js. */
export const BUNDLE = 'dist/bundle/main.mjs';
/** What `npm run build` leaves for wrangler in a `--runtime workers` project: the bundle of dist/worker.js. */
export const WORKER_BUNDLE = 'dist/worker/worker.mjs';
/** Where `wrangler dev` serves a Worker by default. */
const WRANGLER_DEV_URL = 'http://127.0.0.1:8787/mcp';
/** The tool contract a release records; `test` compares the catalogue with it once it exists. */
export const CONTRACT_FILE = 'mcp-contract.json';

/** Keys in code-point order (scoped packages first), as package managers write them. */
function sorted(entries: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(entries).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The package.json every template writes: the same scripts, libraries and tools, plus what the
 * template itself needs (`extra`).
 */
export function projectPackageJson(
  options: ProjectOptions,
  description: string,
  extra: { node?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> } = {},
): string {
  const runtime = sourceRuntimeOf(options);
  return json({
    name: options.name,
    version: '0.1.0',
    private: true,
    description,
    type: 'module',
    engines: { node: extra.node ?? NODE_RANGE },
    scripts: {
      ...(runtime
        ? // Bun and Deno run src/ as it is; tsc still builds dist/ (type errors, and a build Node runs).
          { dev: runtime.dev, build: 'tsc -p tsconfig.build.json', start: runtime.start }
        : options.runtime === 'workers'
          ? // wrangler serves and uploads the bundle as it is (no_bundle): its esbuild emits no decorator metadata.
            {
              dev: 'wrangler dev',
              build: 'tsc -p tsconfig.build.json && armature build --target workers',
              start: 'wrangler dev',
              deploy: 'wrangler deploy',
            }
          : {
              dev: 'armature dev',
              // tsc emits the decorator metadata (and dist/ stays for tests and debugging); the bundle of
              // its output starts faster, so that is what `start` runs, without --enable-source-maps (which
              // parses the bundle's map at every start): Armature maps the stacks it prints when it prints one.
              build: 'tsc -p tsconfig.build.json && armature build',
              start: `node ${BUNDLE}`,
            }),
      // Arguments after `npm test --` reach vitest, the last command.
      test: `armature inspect --check ${CONTRACT_FILE} --if-present && vitest run`,
      typecheck: 'tsc -p tsconfig.json',
      lint: 'biome check . && armature check',
      format: 'biome check --write .',
      inspect: 'armature inspect',
    },
    dependencies: sorted({
      '@armature/core': `^${ARMATURE_VERSION}`,
      'class-transformer': PINNED['class-transformer'],
      'class-validator': PINNED['class-validator'],
      typedi: PINNED.typedi,
      ...extra.dependencies,
    }),
    devDependencies: sorted({
      '@armature/cli': `^${ARMATURE_VERSION}`,
      '@armature/testing': `^${ARMATURE_VERSION}`,
      '@biomejs/biome': PINNED['@biomejs/biome'],
      '@types/node': PINNED['@types/node'],
      typescript: PINNED.typescript,
      vite: PINNED.vite,
      'vite-node': PINNED['vite-node'],
      vitest: PINNED.vitest,
      ...extra.devDependencies,
    }),
  });
}

function packageJson(options: ProjectOptions): string {
  return projectPackageJson(options, 'An MCP server built with Armature');
}

// The flags decorator metadata needs; README.md explains each one.
export const TSCONFIG = json({
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    useDefineForClassFields: false,
    verbatimModuleSyntax: false,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ['node'],
    noEmit: true,
  },
  include: ['src', 'test', 'vitest.config.ts'],
});

export const TSCONFIG_BUILD = json({
  extends: './tsconfig.json',
  compilerOptions: { noEmit: false, rootDir: 'src', outDir: 'dist', sourceMap: true },
  include: ['src'],
});

export const VITEST_CONFIG = `import { defineConfig } from 'vitest/config';

// Vite reads the decorator flags from tsconfig.json (which includes test/ and this file), so tests
// see the same decorator metadata as the tsc build.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'] },
});
`;

export const BIOME = json({
  $schema: './node_modules/@biomejs/biome/configuration_schema.json',
  files: { includes: ['**', '!**/dist', '!**/node_modules'] },
  formatter: { indentStyle: 'space', indentWidth: 2, lineWidth: 100 },
  javascript: {
    parser: { unsafeParameterDecoratorsEnabled: true },
    formatter: { quoteStyle: 'single' },
  },
  linter: {
    rules: {
      // Its fix turns DTO imports into `import type`, and a DTO imported as a type reflects as Object.
      style: { useImportType: 'off' },
    },
  },
});

export const GITIGNORE = `node_modules/
dist/
coverage/
*.tsbuildinfo
.armature-*
`;

const DOCKER_INSTALL: Record<PackageManager, { setup: string; lock: string; all: string; production: string }> = {
  npm: { setup: '', lock: 'package-lock.json', all: 'npm ci', production: 'npm ci --omit=dev && npm cache clean --force' },
  pnpm: {
    setup: 'RUN npm install --global pnpm\n',
    lock: 'pnpm-lock.yaml',
    all: 'pnpm install --frozen-lockfile',
    production: 'pnpm install --frozen-lockfile --prod',
  },
  yarn: { setup: '', lock: 'yarn.lock', all: 'yarn install --frozen-lockfile', production: 'yarn install --frozen-lockfile --production' },
  bun: {
    setup: 'RUN npm install --global bun\n',
    lock: 'bun.lock',
    all: 'bun install --frozen-lockfile',
    production: 'bun install --frozen-lockfile --production',
  },
};

/**
 * Two stages: the build (tsc and the bundle need the dev dependencies), then an image with the
 * production dependencies (the bundle loads a few from node_modules, e.g. Ajv) and the bundle,
 * run as the image's unprivileged `node` user.
 */
export function dockerfile(options: ProjectOptions): string {
  const pm = DOCKER_INSTALL[options.packageManager];
  const http = options.transport === 'http' || options.template === 'nestjs';
  return `# syntax=docker/dockerfile:1
FROM node:22-slim AS build
WORKDIR /app
${pm.setup}COPY package.json ${pm.lock} ./
RUN ${pm.all}
COPY . .
RUN ${runScript(options.packageManager, 'build')}

FROM node:22-slim
ENV NODE_ENV=production
WORKDIR /app
${pm.setup}COPY package.json ${pm.lock} ./
RUN ${pm.production}
COPY --from=build /app/dist/bundle ./dist/bundle
USER node
${
  http
    ? `# Listen beyond the container's loopback; clients reach it through -p 3000:3000.
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
`
    : `# stdio: the client runs \`docker run -i --rm <image>\` and talks over stdin/stdout.
`
}CMD ["node", "${BUNDLE}"]
`;
}

export const DOCKERIGNORE = `node_modules
dist
coverage
.git
`;

/**
 * The wrangler settings of apps/runtimes (which test/workers.test.ts serves under miniflare), for
 * the bundle `npm run build` writes.
 */
function wranglerToml(names: ProjectNames): string {
  return `name = "${names.mcpName.replace(/[^a-z0-9-]/g, '-')}"
# Written by \`armature build --target workers\` (the build script) from tsc's output.
main = "${WORKER_BUNDLE}"
compatibility_date = "2026-07-01"
# Armature and the MCP SDK import node: modules (crypto, events, async_hooks, ...).
compatibility_flags = ["nodejs_compat"]
# Already one module, bundled from tsc's output (decorator metadata kept): wrangler uploads it as it is.
no_bundle = true
`;
}

const WORKER_TS = `import { serveOnWorkers } from '@armature/core';
import { createApp } from './app.js';

// The app is made at each isolate's first request: a Worker's top level may not make random values.
// Host headers are checked against localhost: once deployed, name the Worker's own host, e.g.
// serveOnWorkers(() => createApp(), { allowedHosts: ['my-server.my-account.workers.dev'] }).
export default serveOnWorkers(() => createApp());
`;

function mainTs(transport: Transport): string {
  if (transport === 'http') {
    return `import { createApp } from './app.js';

// Streamable HTTP on http://127.0.0.1:3000/mcp (PORT to change it; HOST=0.0.0.0 in a container).
// Host and Origin checks are on. Armature's logger prints "listening on <url>" and the server's other
// events on stderr: format 'json' for one JSON object a line (see docs/observability.md).
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
await createApp({ logger: { format: 'text', level: 'info' } }).listenHttp({ host, port });
`;
  }
  return `import { createApp } from './app.js';

// stdio: the client starts this process and speaks over stdin/stdout, so stdout carries protocol
// messages only (Armature sends console.log to stderr).
createApp().listenStdio();
`;
}

function appTs(names: ProjectNames): string {
  return `import { type CreateMcpAppOptions, createMcpApp, type McpApp } from '@armature/core';
import { ${names.serverClass} } from './${names.base}/${names.base}.server.js';

/** Every server class the app serves. \`armature generate server <name>\` adds new ones here. */
export const servers = [${names.serverClass}];

/** The app, built the same way by main.ts, by \`armature inspect\` and by the tests. */
export function createApp(options: CreateMcpAppOptions = {}): McpApp {
  return createMcpApp(servers, options);
}
`;
}

function serverTs(names: ProjectNames): string {
  return `import { Context, McpServer, Tool } from '@armature/core';
import { GreetInput } from './dto/greet.input.js';
import { GreetOutput } from './dto/greet.output.js';
import { GreetingService } from './greeting.service.js';

/**
 * The MCP face of the app: each @Tool method is a tool. Keep the logic in services (injected by
 * type) so that tests can swap them.
 */
@McpServer({ name: '${names.mcpName}', version: '0.1.0' })
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

const GREETING_SERVICE = `import { Service } from 'typedi';

const GREETINGS = { en: 'Hello', it: 'Ciao' } as const;

/** Plain business logic: no MCP in here. A typedi singleton, injected into the server by type. */
@Service()
export class GreetingService {
  greet(name: string, language: keyof typeof GREETINGS): string {
    return \`\${GREETINGS[language]}, \${name}!\`;
  }
}
`;

export const GREET_INPUT = `import { Field } from '@armature/core';
import { IsIn, IsString, Length } from 'class-validator';

/**
 * Arguments of the \`greet\` tool. The decorators are both the JSON Schema the model sees and the
 * validation the server runs before the method is called.
 */
export class GreetInput {
  @Field('Who to greet')
  @IsString()
  @Length(1, 64)
  name!: string;

  @Field('Language of the greeting')
  @IsIn(['en', 'it'])
  language: 'en' | 'it' = 'en';
}
`;

export const GREET_OUTPUT = `import { Field } from '@armature/core';
import { IsString } from 'class-validator';

/** Result of the \`greet\` tool: advertised as its outputSchema and checked before it is sent. */
export class GreetOutput {
  @Field('The greeting, ready to show')
  @IsString()
  greeting!: string;
}
`;

/**
 * Import lines sorted by path, the order Biome's organizeImports keeps: the server file's name
 * comes from the project's, so a fixed order fails `lint` for some names (e2e-http sorts first).
 */
export function relativeImports(imports: ReadonlyArray<readonly [name: string, from: string]>): string {
  return [...imports]
    .sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, from]) => `import { ${name} } from '${from}';`)
    .join('\n');
}

function methodTest(names: ProjectNames): string {
  return `import { createTestContext } from '@armature/testing';
import { describe, expect, it } from 'vitest';
${relativeImports([
  ['GreetInput', `../../src/${names.base}/dto/greet.input.js`],
  ['GreetingService', `../../src/${names.base}/greeting.service.js`],
  [names.serverClass, `../../src/${names.base}/${names.base}.server.js`],
])}

// Level 1: the tool as a plain method call. No MCP and no validation: the fastest tests, for the
// method's own logic. createTestContext() records what the method logs and reports.
describe('${names.serverClass}.greet as a plain method', () => {
  it('greets through the service and logs who it greeted', async () => {
    const server = new ${names.serverClass}(new GreetingService());
    const ctx = createTestContext();
    const input = Object.assign(new GreetInput(), { name: 'Ada', language: 'it' as const });

    const output = await server.greet(input, ctx);

    expect(output).toEqual({ greeting: 'Ciao, Ada!' });
    expect(ctx.logs).toEqual([{ level: 'info', message: 'greeting Ada' }]);
  });
});
`;
}

export function dtoTest(names: ProjectNames): string {
  return `import { buildDto, dtoIssues, expectDtoRejects } from '@armature/testing';
import { describe, expect, it } from 'vitest';
import { GreetInput } from '../../../src/${names.base}/dto/greet.input.js';

// Level 2: the DTO alone. buildDto and expectDtoRejects run the same validation a tool call runs,
// and report the same \`path: message\` lines the client would get.
describe('GreetInput', () => {
  it('fills in the default language', async () => {
    const input = await buildDto(GreetInput, { name: 'Ada' });
    expect(input).toBeInstanceOf(GreetInput);
    expect(input.language).toBe('en');
  });

  it.each([
    ['a name of 1 character', { name: 'x' }],
    ['a name of 64 characters', { name: 'x'.repeat(64) }],
    ['Italian', { name: 'Ada', language: 'it' }],
  ])('accepts %s', async (_what, args) => {
    await expect(buildDto(GreetInput, args)).resolves.toBeInstanceOf(GreetInput);
  });

  it.each([
    ['an empty name', { name: '' }, ['name: must be longer than or equal to 1 characters']],
    [
      'a name of 65 characters',
      { name: 'x'.repeat(65) },
      ['name: must be shorter than or equal to 64 characters'],
    ],
    [
      'another language',
      { name: 'Ada', language: 'de' },
      ['language: must be one of the following values: en, it'],
    ],
    ['an unknown field', { name: 'Ada', shout: true }, ['shout: unknown property; remove it']],
  ])('rejects %s', async (_what, args, lines) => {
    await expectDtoRejects(GreetInput, args, lines);
  });

  it('rejects a missing name, naming the field', async () => {
    const issues = await dtoIssues(GreetInput, {});
    expect(issues.length).toBeGreaterThan(0);
    for (const line of issues) expect(line).toMatch(/^name: /);
  });
});
`;
}

function pipelineTest(names: ProjectNames): string {
  return `import { createTestingApp, type TestingApp, textOf } from '@armature/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
${relativeImports([
  ['GreetingService', `../../src/${names.base}/greeting.service.js`],
  [names.serverClass, `../../src/${names.base}/${names.base}.server.js`],
])}

// Level 3: the whole pipeline as a client sees it (schemas, validation, dependency injection,
// result conversion), built by the production code with one provider replaced, and called with
// the official MCP client in memory.
describe('${names.serverClass} through the MCP client', () => {
  let t: TestingApp;

  beforeAll(async () => {
    t = await createTestingApp({ servers: [${names.serverClass}] })
      .overrideProvider(GreetingService)
      .useValue({ greet: (name: string) => \`Hi \${name} (from the fake)\` })
      .compile();
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

  it('answers with structured content from the service', async () => {
    const result = await t.callTool('greet', { name: 'Ada' });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ greeting: 'Hi Ada (from the fake)' });
    expect(t.logs).toContainEqual({ level: 'info', data: 'greeting Ada' });
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

/**
 * How to connect a client, for either transport: Claude Desktop, Claude Code, the Inspector, and
 * the container. Shared by both templates' READMEs.
 */
export function connectSection(options: ProjectOptions, mcpName: string): string {
  const pm = options.packageManager;
  const path = `/absolute/path/to/${mcpName}`;
  const runtime = sourceRuntimeOf(options);
  if (options.runtime === 'workers') return workersConnectSection(pm, mcpName);
  if (options.transport === 'http' || options.template === 'nestjs') {
    return `\`${runtime ? runScript(pm, 'start') : `${runScript(pm, 'build')} && ${runScript(pm, 'start')}`}\` (or \`${runScript(pm, 'dev')}\` while you work) serves Streamable HTTP at
\`http://127.0.0.1:3000/mcp\` (\`PORT\` changes the port, \`HOST\` the address; Host and Origin headers
are checked against localhost).

- **Claude Code**: \`claude mcp add --transport http ${mcpName} http://127.0.0.1:3000/mcp\`
- **Claude Desktop** (and other clients that only start stdio servers) reach it through the
  \`mcp-remote\` bridge, in \`claude_desktop_config.json\`:

  \`\`\`json
  {
    "mcpServers": {
      "${mcpName}": { "command": "npx", "args": ["mcp-remote", "http://127.0.0.1:3000/mcp"] }
    }
  }
  \`\`\`

- **MCP Inspector**: \`npx @modelcontextprotocol/inspector\`, choose "Streamable HTTP" and that URL; or
  from the shell: \`npx @modelcontextprotocol/inspector --cli http://127.0.0.1:3000/mcp --transport http --method tools/list\`
${runtime ? '' : `- **Docker**: \`docker build -t ${mcpName} .\` then \`docker run --rm -p 3000:3000 ${mcpName}\`.`}`.trimEnd();
  }
  if (runtime) return sourceConnectSection(runtime, path, mcpName, pm);
  return `The client starts the server and talks to it over stdin/stdout. Build once (\`${runScript(pm, 'build')}\`), then
point the client at the bundle with the absolute path of this folder:

- **Claude Desktop**: in \`claude_desktop_config.json\` (Settings > Developer > Edit Config), then
  restart Claude Desktop:

  \`\`\`json
  {
    "mcpServers": {
      "${mcpName}": {
        "command": "node",
        "args": ["${path}/${BUNDLE}"]
      }
    }
  }
  \`\`\`

- **Claude Code**: \`claude mcp add ${mcpName} -- node ${path}/${BUNDLE}\`
- **MCP Inspector**: \`npx @modelcontextprotocol/inspector node ${BUNDLE}\` (a web UI), or
  \`npx @modelcontextprotocol/inspector --cli node ${BUNDLE} --method tools/list\`
- **Docker**: \`docker build -t ${mcpName} .\`, then the client's command is \`docker\` with
  \`["run", "-i", "--rm", "${mcpName}"]\` as its arguments.

While you work, \`${runScript(pm, 'dev')}\` runs the same server from the TypeScript sources and restarts it on
every save; a client can run it as its command too (it reconnects after a restart).`;
}

/** How a client reaches the Worker, served locally by wrangler. */
function workersConnectSection(pm: PackageManager, mcpName: string): string {
  return `\`${runScript(pm, 'build')} && ${runScript(pm, 'dev')}\` serves the Worker at \`${WRANGLER_DEV_URL}\` (wrangler's
port; Host headers are checked against localhost). \`${runScript(pm, 'deploy')}\` uploads it to Cloudflare: first
name its host in \`allowedHosts\` (\`src/worker.ts\`).

- **Claude Code**: \`claude mcp add --transport http ${mcpName} ${WRANGLER_DEV_URL}\`
- **MCP Inspector**: \`npx @modelcontextprotocol/inspector\`, choose "Streamable HTTP" and that URL.`;
}

/** How a client starts a stdio server that Bun or Deno runs from its sources. */
function sourceConnectSection(runtime: SourceRuntime, path: string, mcpName: string, pm: PackageManager): string {
  const [command, ...args] = runtime.clientCommand(path);
  return `The client starts the server and talks to it over stdin/stdout. ${runtime.title} runs \`src/main.ts\` as
it is (no build step); point the client at it with the absolute path of this folder:

- **Claude Desktop**: in \`claude_desktop_config.json\` (Settings > Developer > Edit Config), then
  restart Claude Desktop:

  \`\`\`json
  ${JSON.stringify({ mcpServers: { [mcpName]: { command, args } } }, null, 2).replaceAll('\n', '\n  ')}
  \`\`\`

- **Claude Code**: \`claude mcp add ${mcpName} -- ${[command, ...args].join(' ')}\`

While you work, \`${runScript(pm, 'dev')}\` restarts the server on every save.`;
}

/** The commands every template's README lists, with the template's own `start` description. */
export function commandRows(options: ProjectOptions, startsWhat: string): string[][] {
  const pm = options.packageManager;
  const install = pm === 'yarn' ? 'yarn' : `${pm} install`;
  const runtime = sourceRuntimeOf(options);
  return [
    [`\`${install}\``, 'Install the dependencies.'],
    ...(options.runtime === 'workers'
      ? [
          [
            `\`${runScript(pm, 'build')}\``,
            `Compile to \`dist/\` with \`tsc\`, then bundle it into one module for Workers, \`${WORKER_BUNDLE}\`.`,
          ],
          [`\`${runScript(pm, 'dev')}\``, `Serve the built Worker locally with wrangler (${startsWhat}); build again after a change.`],
          [`\`${runScript(pm, 'start')}\``, `The same as \`${runScript(pm, 'dev')}\`.`],
          [`\`${runScript(pm, 'deploy')}\``, 'Upload the built Worker to Cloudflare with wrangler.'],
        ]
      : runtime
        ? [
            [`\`${runScript(pm, 'dev')}\``, `Run \`src/main.ts\` on ${runtime.title}, restarting on every save.`],
            [`\`${runScript(pm, 'build')}\``, 'Compile to `dist/` with `tsc`: type errors, and a build that Node runs too.'],
            [
              `\`${runScript(pm, 'start')}\``,
              `Run \`src/main.ts\` on ${runtime.title} (${startsWhat}): it transpiles the TypeScript itself, with decorator metadata.`,
            ],
          ]
        : [
            [`\`${runScript(pm, 'dev')}\``, 'Run the server from `src/` with vite-node, restarting on every save.'],
            [
              `\`${runScript(pm, 'build')}\``,
              `Compile to \`dist/\` with \`tsc\` (tests and debugging use it), then bundle it into \`${BUNDLE}\`.`,
            ],
            [
              `\`${runScript(pm, 'start')}\``,
              `Run the bundle (${startsWhat}). Measured to the first \`tools/list\` answer (the benchmark's \`cold start 2\` line): about 0.8x the time of a server written with the official SDK on Node 20 (0.82x at a load average of 3 to 6 on two cores, judged pass by pass; up to 0.94x on a busier machine), and under half that of \`node dist/main.js\`; on Node 22 the bundle turns on Node's compile cache, and from the second start it took 0.78x where Node 20 took 0.91x in the same session; through \`npm start\` npm's own start adds about half a second, so MCP clients run \`node\` on the bundle directly; \`--enable-source-maps\` would add about a fifth, so it is off, and the stacks Armature prints (a failed call in its log) are mapped to \`src/\` files when printed. Set \`NODE_OPTIONS=--enable-source-maps\` to map every stack.`,
            ],
          ]),
    [
      `\`${runScript(pm, 'test')}\``,
      `Check the tool contract against \`${CONTRACT_FILE}\` when it exists (a breaking change fails), then run the tests with vitest.`,
    ],
    [`\`${runScript(pm, 'lint')}\``, 'Check formatting and lint rules with Biome, and that no DTO property lacks a decorator.'],
    [`\`${runScript(pm, 'format')}\``, 'Format the code and apply safe lint fixes (Biome).'],
    [`\`${runScript(pm, 'inspect')}\``, 'Print the tools with their schemas, and lint them.'],
    [
      `\`${execBinary(pm, 'armature')} inspect --snapshot ${CONTRACT_FILE}\``,
      `At each release: record the tool contract (commit the file). From then on \`${runScript(pm, 'test')}\` fails on a change that breaks it.`,
    ],
  ];
}

function readme(options: ProjectOptions, names: ProjectNames): string {
  const pm = options.packageManager;
  const armature = (args: string) => `${execBinary(pm, 'armature')} ${args}`;
  return `# ${options.name}

An MCP (Model Context Protocol) server built with [Armature](https://www.npmjs.com/package/@armature/core):
\`@McpServer\` classes whose \`@Tool\` methods take class-validator DTOs. The DTOs are both the JSON
Schemas the model sees and the validation the server runs.

## Commands

${markdownTable(['Command', 'What it does'], commandRows(options, options.transport === 'http' ? 'Streamable HTTP' : 'stdio'))}
${options.runtime === 'workers' ? WRANGLER_NOTE : ''}

## Connect a client

${connectSection(options, names.mcpName)}

When the server cannot start it prints each problem with its code and fix; \`ARMATURE_DEBUG=1\`
adds the stack.

## Layout

${markdownTable(
  ['Path', 'What'],
  [
    options.runtime === 'workers'
      ? ['`src/worker.ts`', 'The Worker: `serveOnWorkers` makes the app at the first request.']
      : ['`src/main.ts`', `Starts the transport (${options.transport}).`],
    ['`src/app.ts`', '`servers` (every `@McpServer` class) and `createApp()`.'],
    [`\`${names.serverFile}\``, `\`${names.serverClass}\`: its \`@Tool\` methods are the tools.`],
    [`\`src/${names.base}/greeting.service.ts\``, 'Business logic, injected into the server by type.'],
    [`\`src/${names.base}/dto/\``, 'Input and output DTOs of the tools.'],
    ['`test/`', 'Tests, mirroring `src/`.'],
  ],
)}

## Tests at three levels

1. **Plain method** (\`test/${names.base}/${names.base}.server.test.ts\`): call the method with
   \`createTestContext()\`, which records logs and progress. Fast, for the method's own logic.
2. **DTO** (\`test/${names.base}/dto/greet.input.test.ts\`): \`buildDto\` and \`expectDtoRejects\` run the same
   validation as a real call and show the exact \`path: message\` lines a client gets.
3. **Full pipeline** (\`test/${names.base}/${names.base}.pipeline.test.ts\`): \`createTestingApp\` builds the app
   with the production code, swaps providers with \`overrideProvider\`, and calls it through the
   official MCP client in memory.

## Grow it

\`\`\`bash
${armature(`generate tool get-forecast --server ${names.base} --fields "city:string:1..64, days?:int:1..14"`)}
${armature('generate dto address --fields "street:string:1..200, zip:string:5..5"')}
${armature('generate server billing')}
${armature(`generate resource settings --server ${names.base}`)}
${armature(`generate prompt summarize --server ${names.base} --fields "text:string:1..10000"`)}
\`\`\`

Each command adds the code and a test (a valid call, the boundary values of each limit, a missing
required field and an unknown field). \`--dry-run\` prints the plan; nothing is overwritten without
\`--force\`.

## Why these compiler flags

Armature reads the types TypeScript records for decorators. \`experimentalDecorators\` and
\`emitDecoratorMetadata\` record them; \`useDefineForClassFields: false\` keeps declared-only DTO fields
off instances; \`verbatimModuleSyntax: false\` lets DTOs be imported as values (\`import type\` would
erase them). tsx and esbuild emit no decorator metadata, which is why ${
    options.runtime === 'workers' ? '`build` bundles the `tsc` output' : '`dev` uses vite-node and\n`build` uses `tsc`'
  }.
${runtimeNote(options)}`;
}

const WRANGLER_NOTE = `
\`dev\`, \`start\` and \`deploy\` run [wrangler](https://developers.cloudflare.com/workers/wrangler/), which this
project does not install (it is large, and Armature's tests serve the bundle with miniflare, not with
wrangler): install it with your package manager (e.g. \`npm install --save-dev wrangler\`), or run
\`npx wrangler dev\`.
`;

const WORKERS_NOTE = `
## Cloudflare Workers

\`src/worker.ts\` serves the app as a Worker, built from the \`tsc\` output (wrangler's esbuild emits no
decorator metadata, so \`wrangler.toml\` sets \`no_bundle\` and points \`main\` at Armature's bundle).

**What works**: the stateless 2026-07-28 revision of MCP over Streamable HTTP, with the same DTO
validation as on Node (Armature's own tests build this template and list and call its tool under
workerd, the Workers runtime). The tests here run on Node (vitest), through the same app.

**What is refused, with the reason**: 2025-11-25 sessions (\`initialize\`, \`Mcp-Session-Id\`: a session
lives in one isolate and the next request may reach another), \`subscriptions/listen\` (a stream held in
one isolate hears no change made in another), \`listenStdio()\` and \`listenHttp()\`, and a hand-written
\`inputSchema\` or \`outputSchema\` (ARM128: use a DTO). State such as rate limits is per isolate. Start-up
errors surface at the first request, in the Worker's log.
`;

/** What the README says about running on Bun, Deno or Workers (nothing on Node). */
function runtimeNote(options: ProjectOptions): string {
  if (options.runtime === 'workers') return WORKERS_NOTE;
  const runtime = sourceRuntimeOf(options);
  if (!runtime) return '';
  const specific =
    options.runtime === 'bun'
      ? 'Bun reads `tsconfig.json` from the folder it runs in, so start it here or with\n`bun --cwd <this folder>`.'
      : 'Deno reads the `tsconfig.json` beside `package.json`; `--sloppy-imports` lets it load `./x.ts` from\nthe `./x.js` specifiers tsc wants, `--allow-env` lets Armature read `NODE_ENV`' +
        (options.transport === 'http' ? ', `--allow-net` lets it listen.' : '.');
  return `
## ${runtime.title}

The server runs on ${runtime.title} (tested with ${runtime.tested}) straight from \`src/\`: ${runtime.title} honours
\`experimentalDecorators\` and \`emitDecoratorMetadata\` from \`tsconfig.json\`. Without them it would use
standard decorators, which Armature does not support; without \`emitDecoratorMetadata\` the server
refuses to start and names each method and constructor that lacks metadata.

${specific} The tools (tsc, vitest, Biome, the \`armature\` command) run on Node.
`;
}

/** Every file of a new project, relative to its folder. */
export function projectFiles(options: ProjectOptions): PlannedFile[] {
  const names = projectNames(options.name);
  const base = names.base;
  const files: Array<[string, string]> = [
    ['package.json', packageJson(options)],
    ['tsconfig.json', TSCONFIG],
    ['tsconfig.build.json', TSCONFIG_BUILD],
    ['vitest.config.ts', VITEST_CONFIG],
    ['biome.json', BIOME],
    ['.gitignore', GITIGNORE],
    // The image is Node's: it runs the bundle.
    ...(sourceRuntimeOf(options) || options.runtime === 'workers'
      ? []
      : ([
          ['.dockerignore', DOCKERIGNORE],
          ['Dockerfile', dockerfile(options)],
        ] as Array<[string, string]>)),
    ['README.md', readme(options, names)],
    ...((options.runtime === 'workers'
      ? [
          ['wrangler.toml', wranglerToml(names)],
          ['src/worker.ts', WORKER_TS],
        ]
      : [['src/main.ts', mainTs(options.transport)]]) as Array<[string, string]>),
    ['src/app.ts', appTs(names)],
    [names.serverFile, serverTs(names)],
    [`src/${base}/greeting.service.ts`, GREETING_SERVICE],
    [`src/${base}/dto/greet.input.ts`, GREET_INPUT],
    [`src/${base}/dto/greet.output.ts`, GREET_OUTPUT],
    [`test/${base}/${base}.server.test.ts`, methodTest(names)],
    [`test/${base}/dto/greet.input.test.ts`, dtoTest(names)],
    [`test/${base}/${base}.pipeline.test.ts`, pipelineTest(names)],
  ];
  return files.map(([path, content]) => ({ path, action: 'create', content }));
}
