import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARMATURE_VERSION, NEST_PINNED, PINNED, RUNTIME_TESTED } from '../src/create/versions.js';
import { FIELD_TYPES } from '../src/generate/field-spec.js';
import { plainUi, runCli } from '../src/index.js';
import { suggestPackageName } from '../src/util/names.js';

/**
 * A CLI run in a fresh folder. `nodeVersion`: the Node `new` checks templates against; by default
 * one the nestjs template supports, so its tests run on the Node 20 that runs these.
 */
function session(nodeVersion = '22.12.0') {
  const cwd = mkdtempSync(join(tmpdir(), 'armature-cli-'));
  const lines: string[] = [];
  const out: string[] = [];
  const io = { cwd, ui: plainUi((line) => lines.push(line)), stdout: (text: string) => out.push(text), nodeVersion };
  const run = (...argv: string[]) => runCli(argv, io);
  return { cwd, lines, out, run };
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

describe('armature new', () => {
  it('writes the project and prints the plan and the next steps', async () => {
    const s = session();
    expect(await s.run('new', 'weather-mcp', '--yes', '--no-install', '--pm', 'npm')).toBe(0);
    const root = join(s.cwd, 'weather-mcp');
    expect(readJson(join(root, 'package.json')).scripts).toEqual({
      dev: 'armature dev',
      build: 'tsc -p tsconfig.build.json && armature build',
      start: 'node dist/bundle/main.mjs',
      test: 'armature inspect --check mcp-contract.json --if-present && vitest run',
      typecheck: 'tsc -p tsconfig.json',
      lint: 'biome check . && armature check',
      format: 'biome check --write .',
      inspect: 'armature inspect',
    });
    expect(readJson(join(root, 'package.json')).engines).toEqual({ node: '^20.19.0 || ^22.12.0 || >=24.0.0' });
    // The CLI guide's scripts table and deployment.md say what build and start run, word for word.
    const { build, start } = readJson(join(root, 'package.json')).scripts;
    const guide = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');
    expect(guide).toContain(`| \`build\`     | \`${build}\``);
    expect(guide).toContain(`| \`start\`     | \`${start}\``);
    const deployment = readFileSync(new URL('../../../docs/deployment.md', import.meta.url), 'utf8');
    expect(deployment).toContain(`\`npm run build\` runs \`${build}\``);
    expect(deployment).toContain(`run \`${start}\``);
    const docker = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(docker).toContain('RUN npm ci --omit=dev');
    expect(docker).toContain('USER node');
    expect(docker).toContain('CMD ["node", "dist/bundle/main.mjs"]');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain('"args": ["/absolute/path/to/weather-mcp/dist/bundle/main.mjs"]');
    expect(readme).toContain('claude mcp add weather-mcp -- node /absolute/path/to/weather-mcp/dist/bundle/main.mjs');
    expect(readJson(join(root, 'tsconfig.json')).compilerOptions).toMatchObject({
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      useDefineForClassFields: false,
      verbatimModuleSyntax: false,
    });
    expect(readFileSync(join(root, 'src/main.ts'), 'utf8')).toContain('createApp().listenStdio();');
    expect(s.lines.join('\n')).toContain('\n  create    src/weather/weather.server.ts\n');
    expect(s.lines.join('\n')).toContain('Next steps:\n  cd weather-mcp\n  npm install\n');
  });

  it('never overwrites without --force, and --dry-run writes nothing', async () => {
    const s = session();
    expect(await s.run('new', 'app', '--yes', '--no-install', '--dry-run')).toBe(0);
    expect(existsSync(join(s.cwd, 'app'))).toBe(false);
    expect(s.lines.join('\n')).toContain('Would create app (dry run: nothing written):\n  create    package.json\n');
    expect(await s.run('new', 'app', '--yes', '--no-install')).toBe(0);
    expect(await s.run('new', 'app', '--yes', '--no-install')).toBe(1);
    expect(s.lines.at(-1)).toMatch(/^error: app already has files this project would overwrite \(package\.json, tsconfig\.json/);
    expect(await s.run('new', 'app', '--yes', '--no-install', '--force')).toBe(0);
  });

  it('writes an HTTP server and the chosen package manager into the README', async () => {
    const s = session();
    expect(await s.run('new', '@acme/billing-server', '--transport', 'http', '--pm', 'pnpm', '--yes', '--no-install')).toBe(0);
    const root = join(s.cwd, 'billing-server');
    expect(readFileSync(join(root, 'src/main.ts'), 'utf8')).toContain(
      "await createApp({ logger: { format: 'text', level: 'info' } }).listenHttp({ host, port });",
    );
    expect(readFileSync(join(root, 'Dockerfile'), 'utf8')).toContain('ENV HOST=0.0.0.0 PORT=3000');
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toContain('| `pnpm dev`');
    expect(readFileSync(join(root, 'src/billing/billing.server.ts'), 'utf8')).toContain(
      "@McpServer({ name: 'billing-server', version: '0.1.0' })\nexport class BillingServer {",
    );
    expect(readJson(join(root, 'package.json')).name).toBe('@acme/billing-server');
  });

  it('keeps the files but fails the command when the install fails', async () => {
    const s = session();
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent'; // the package manager cannot even start
    try {
      expect(await s.run('new', 'offline-app', '--yes', '--pm', 'pnpm')).toBe(1);
    } finally {
      process.env.PATH = path;
    }
    expect(existsSync(join(s.cwd, 'offline-app/package.json'))).toBe(true);
    const text = s.lines.join('\n');
    expect(text).toContain('Installing dependencies with pnpm ...');
    expect(text).toContain('error: pnpm install failed; the project is written, install it yourself');
    expect(text).toContain('Next steps:\n  cd offline-app\n  pnpm install\n');
  });

  it('refuses bad input with the reason', async () => {
    const s = session();
    expect(await s.run('new', 'Bad Name', '--yes')).toBe(1);
    expect(s.lines.at(-1)).toBe('error: "Bad Name" cannot be the project name: the name has capital letters.\nFix: use bad-name');
    expect(await s.run('new', 'x', '--transport', 'ftp')).toBe(1);
    expect(s.lines.at(-1)).toBe('error: --transport must be one of stdio, http (got "ftp")');
    expect(await s.run('new', 'x', '--nope')).toBe(1);
    expect(s.lines.at(-1)).toMatch(/^error: Unknown option '--nope'/);
  });
});

describe('armature new --runtime bun|deno', () => {
  it.each([
    ['bun', 'stdio', 'bun src/main.ts', 'bun --watch src/main.ts'],
    ['deno', 'stdio', 'deno run --allow-env --sloppy-imports src/main.ts', 'deno run --watch --allow-env --sloppy-imports src/main.ts'],
    [
      'deno',
      'http',
      'deno run --allow-env --allow-net --sloppy-imports src/main.ts',
      'deno run --watch --allow-env --allow-net --sloppy-imports src/main.ts',
    ],
  ])('%s over %s: start and dev run src/main.ts on the runtime; no Node image', async (runtime, transport, start, dev) => {
    const s = session();
    expect(await s.run('new', 'greeter', '--runtime', runtime, '--transport', transport, '--yes', '--no-install')).toBe(0);
    const root = join(s.cwd, 'greeter');
    const pkg = readJson(join(root, 'package.json'));
    expect(pkg.scripts).toMatchObject({ start, dev, build: 'tsc -p tsconfig.build.json' });
    expect(existsSync(join(root, 'Dockerfile'))).toBe(false);
    expect(readJson(join(root, 'tsconfig.json')).compilerOptions).toMatchObject({
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
    });
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain(`(tested with ${RUNTIME_TESTED[runtime as 'bun' | 'deno']}) straight from \`src/\``);
  });

  it('refuses the nestjs template and unknown runtimes with the fix', async () => {
    const s = session();
    expect(await s.run('new', 'x', '--template', 'nestjs', '--runtime', 'bun', '--yes', '--no-install')).toBe(1);
    expect(s.lines.at(-1)).toBe(
      "error: the nestjs template runs on Node (Nest's Express adapter is tested there only), so --runtime bun does not apply to it.\n" +
        'Fix: leave --runtime out, or use the default template with --runtime bun.',
    );
    expect(await s.run('new', 'x', '--runtime', 'go')).toBe(1);
    expect(s.lines.at(-1)).toBe('error: --runtime must be one of node, bun, deno, workers (got "go")');
  });
});

describe('armature new --runtime workers', () => {
  it('writes a Worker entry, the wrangler settings of apps/runtimes for the built bundle, and wrangler scripts', async () => {
    const s = session();
    expect(await s.run('new', '@acme/greeter', '--runtime', 'workers', '--yes', '--no-install')).toBe(0);
    const root = join(s.cwd, 'greeter');
    const pkg = readJson(join(root, 'package.json'));
    expect(pkg.scripts).toMatchObject({
      build: 'tsc -p tsconfig.build.json && armature build --target workers',
      dev: 'wrangler dev',
      start: 'wrangler dev',
      deploy: 'wrangler deploy',
    });
    // wrangler is the user's to install (see the README); the template pins no version of it.
    expect(Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })).not.toContain('wrangler');
    expect(existsSync(join(root, 'src/main.ts'))).toBe(false);
    expect(existsSync(join(root, 'Dockerfile'))).toBe(false);
    expect(readFileSync(join(root, 'src/worker.ts'), 'utf8')).toContain('export default serveOnWorkers(() => createApp());');
    const wrangler = readFileSync(join(root, 'wrangler.toml'), 'utf8');
    expect(wrangler).toContain('name = "greeter"\n');
    expect(wrangler).toContain('main = "dist/worker/worker.mjs"\n');
    // The same settings as the Worker apps/runtimes serves under miniflare in CI.
    const tested = readFileSync(new URL('../../../apps/runtimes/wrangler.toml', import.meta.url), 'utf8');
    for (const key of ['compatibility_date', 'compatibility_flags', 'no_bundle']) {
      const line = new RegExp(`^${key} = .+$`, 'm');
      expect(wrangler.match(line)?.[0], key).toBe(tested.match(line)?.[0]);
    }
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    expect(readme).toContain('the stateless 2026-07-28 revision');
    expect(readme).toContain('2025-11-25 sessions');
    expect(readme).toContain('`npm install --save-dev wrangler`');
    expect(readme).toContain('http://127.0.0.1:8787/mcp');
  });

  it('refuses stdio and the nestjs template with the fix', async () => {
    const s = session();
    expect(await s.run('new', 'x', '--runtime', 'workers', '--transport', 'stdio', '--yes', '--no-install')).toBe(1);
    expect(s.lines.at(-1)).toBe(
      'error: a Worker answers HTTP requests and has no process for a client to start, so --transport stdio does not apply to --runtime workers.\n' +
        'Fix: leave --transport out (a Worker serves Streamable HTTP), or use --runtime node, bun or deno for stdio.',
    );
    expect(await s.run('new', 'x', '--template', 'nestjs', '--runtime', 'workers', '--yes', '--no-install')).toBe(1);
    expect(s.lines.at(-1)).toMatch(/so --runtime workers does not apply to it\.\nFix: leave --runtime out/);
    expect(existsSync(join(s.cwd, 'x'))).toBe(false);
  });
});

describe('armature new --template nestjs', () => {
  it('refuses before asking or writing anything on a Node outside the range Nest 12 needs (22.12+, not 23), saying why and how to proceed', async () => {
    for (const version of ['20.19.0', '22.11.0', '23.4.0']) {
      const s = session(version);
      expect(await s.run('new', 'nodecheck', '--template', 'nestjs', '--pm', 'pnpm', '--yes', '--no-install')).toBe(1);
      expect(s.lines.at(-1)).toBe(
        `error: the nestjs template needs Node 22.12 or later, not 23 (engines ^22.12.0 || >=24.0.0): @nestjs/common 12 depends on file-type 22, whose engines require Node 22; this is Node ${version}, where npm install warns EBADENGINE and Nest runs unsupported.\n` +
          'Nothing was written. Fix: run create again with Node 22.12+ or 24 (e.g. nvm install 22 && nvm use 22), or leave --template out: the default template runs on Node 20.19+.',
      );
      expect(s.lines.join('\n')).not.toContain('  create    ');
      expect(existsSync(join(s.cwd, 'nodecheck'))).toBe(false);
    }
    for (const version of ['22.12.0', '24.1.0']) {
      expect(await session(version).run('new', 'nodecheck', '--template', 'nestjs', '--pm', 'pnpm', '--yes', '--no-install')).toBe(0);
    }
  });

  it('writes a Nest app with one module, an @McpServer provider, a controller and their tests', async () => {
    const s = session();
    expect(await s.run('new', 'greeter', '--template', 'nestjs', '--pm', 'pnpm', '--yes', '--no-install')).toBe(0);
    const root = join(s.cwd, 'greeter');
    const created = s.lines
      .join('\n')
      .split('\n')
      .filter((line) => line.startsWith('  create    '))
      .map((line) => line.slice(12));
    expect(created.filter((file) => file.startsWith('src/') || file.startsWith('test/'))).toEqual([
      'src/main.ts',
      'src/app.ts',
      'src/app.module.ts',
      'src/greeter/greeter.module.ts',
      'src/greeter/greeter.server.ts',
      'src/greeter/greeter.controller.ts',
      'src/greeter/greeting.service.ts',
      'src/greeter/dto/greet.input.ts',
      'src/greeter/dto/greet.output.ts',
      'test/support/mcp-client.ts',
      'test/greeter/dto/greet.input.test.ts',
      'test/greeter/greeter.pipeline.test.ts',
      'test/greeter/greeter.http.test.ts',
    ]);
    const pkg = readJson(join(root, 'package.json'));
    expect(pkg.dependencies).toMatchObject({
      '@armature/core': `^${ARMATURE_VERSION}`,
      '@armature/nestjs': `^${ARMATURE_VERSION}`,
      '@nestjs/core': NEST_PINNED['@nestjs/core'],
    });
    expect(readFileSync(join(root, 'src/greeter/greeter.server.ts'), 'utf8')).toContain(
      "@McpServer({ name: 'greeter', version: '0.1.0' })\n@Injectable()\nexport class GreeterServer {",
    );
    expect(readFileSync(join(root, 'src/greeter/greeter.controller.ts'), 'utf8')).toContain(
      'greet(@Body() input: GreetInput): GreetOutput {',
    );
    expect(readFileSync(join(root, 'src/main.ts'), 'utf8')).toContain(
      "await app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1');",
    );
    expect(readJson(join(root, 'package.json')).engines).toEqual({ node: '^22.12.0 || >=24.0.0' });
  });

  it('refuses stdio and unknown templates with the fix', async () => {
    const s = session();
    expect(await s.run('new', 'x', '--template', 'nestjs', '--transport', 'stdio', '--yes', '--no-install')).toBe(1);
    expect(s.lines.at(-1)?.split('\n')[0]).toBe(
      "error: the nestjs template serves MCP on Nest's HTTP port, so --transport stdio does not apply to it.",
    );
    expect(await s.run('new', 'x', '--template', 'express')).toBe(1);
    expect(s.lines.at(-1)).toBe('error: --template must be one of default, nestjs (got "express")');
  });

  it('generate tool finds the provider; generate server and a missing test helper say what to do', async () => {
    const s = session();
    await s.run('new', 'greeter', '--template', 'nestjs', '--yes', '--no-install');
    const cwd = join(s.cwd, 'greeter');
    const run = (...argv: string[]) => runCli(argv, { cwd, ui: plainUi((l) => s.lines.push(l)) });
    expect(await run('generate', 'tool', 'get-forecast', '--no-format')).toBe(0);
    const test = readFileSync(join(cwd, 'test/greeter/get-forecast.tool.test.ts'), 'utf8');
    expect(test).toContain("import { connectMcp, type McpTestClient } from '../support/mcp-client.js';");
    expect(test).toContain('t = await connectMcp();');
    expect(readFileSync(join(cwd, 'src/greeter/greeter.server.ts'), 'utf8')).toContain(
      'async getForecast(input: GetForecastInput, ctx: Context)',
    );

    expect(await run('generate', 'server', 'billing')).toBe(1);
    expect(s.lines.at(-1)?.split('\n')[0]).toBe(
      'error: in a Nest project a server is a Nest provider, which armature generate server does not write (it registers classes in src/app.ts).',
    );
    rmSync(join(cwd, 'test/support/mcp-client.ts'));
    expect(await run('generate', 'tool', 'plan-trip', '--no-format')).toBe(1);
    expect(s.lines.at(-1)?.split('\n')[0]).toBe(
      "error: this Nest project has no test/support/mcp-client.ts, whose connectMcp() the generated test uses to build the app with Nest's injector.",
    );
  });
});

describe('armature generate in a project', () => {
  async function project() {
    const s = session();
    await s.run('new', 'weather-mcp', '--yes', '--no-install');
    return { ...s, run: (...argv: string[]) => runCli(argv, { cwd: join(s.cwd, 'weather-mcp'), ui: plainUi((l) => s.lines.push(l)) }) };
  }

  it('prints the plan of a tool on --dry-run', async () => {
    const p = await project();
    expect(await p.run('generate', 'tool', 'get-forecast', '--dry-run', '--fields', 'city:string:1..64')).toBe(0);
    expect(p.lines.at(-1)).toBe(
      [
        'Would generate tool "get_forecast" in WeatherServer (dry run: nothing written):',
        '  create    src/weather/dto/get-forecast.input.ts',
        '  create    src/weather/dto/get-forecast.output.ts',
        '  update    src/weather/weather.server.ts  (adds WeatherServer.getForecast)',
        '  create    test/weather/get-forecast.tool.test.ts',
      ].join('\n'),
    );
    expect(existsSync(join(p.cwd, 'weather-mcp/src/weather/dto/get-forecast.input.ts'))).toBe(false);
  });

  it('refuses a second tool with the same name, an unknown server, an unknown kind and bad fields', async () => {
    const p = await project();
    expect(await p.run('generate', 'tool', 'get-forecast', '--no-format')).toBe(0);
    expect(await p.run('generate', 'tool', 'get-forecast')).toBe(1);
    expect(p.lines.at(-1)).toBe(
      'error: WeatherServer already has a member called getForecast (src/weather/weather.server.ts). Pick another tool name.',
    );
    expect(await p.run('generate', 'tool', 'other', '--server', 'billing')).toBe(1);
    expect(p.lines.at(-1)).toBe(
      'error: no @McpServer class is called BillingServer. The servers are:\n  WeatherServer (src/weather/weather.server.ts)',
    );
    expect(await p.run('generate', 'widget', 'x')).toBe(1);
    expect(p.lines.at(-1)).toBe('error: unknown kind "widget". Kinds: server, tool, resource, prompt, dto, app, openapi, skill');
    expect(await p.run('generate', 'openapi', 'petstore.yaml')).toBe(1);
    expect(p.lines.at(-1)).toBe(
      `error: no OpenAPI document at ${join(p.cwd, 'weather-mcp', 'petstore.yaml')}: give a file (JSON or YAML) or an http(s) URL`,
    );
    expect(await p.run('generate', 'dto', 'x', '--fields', 'a:float')).toBe(1);
    expect(p.lines.at(-1)).toMatch(/^error: "a:float": unknown type "float"/);
    expect(await p.run('generate', 'prompt', 'p', '--fields', 'n:int')).toBe(1);
    expect(p.lines.at(-1)).toBe('error: prompt arguments are strings in MCP: give each field the type string or enum');
  });

  it('generate skill writes skills/<name>/SKILL.md, puts @Skills on the server once, and a test; refuses a bad or taken name', async () => {
    const p = await project();
    const root = join(p.cwd, 'weather-mcp');
    expect(await p.run('generate', 'skill', 'Storm Alerts', '--no-format')).toBe(0);
    expect(p.lines.at(-2)).toBe(
      [
        'Generated skill "storm-alerts" served by WeatherServer:',
        '  create    skills/storm-alerts/SKILL.md',
        "  update    src/weather/weather.server.ts  (adds @Skills('skills') to WeatherServer)",
        '  create    test/weather/storm-alerts.skill.test.ts',
        '  update    Dockerfile  (copies skills/ into the runtime image)',
      ].join('\n'),
    );
    expect(readFileSync(join(root, 'skills/storm-alerts/SKILL.md'), 'utf8')).toMatch(
      /^---\nname: storm-alerts\ndescription: "Storm alerts\. TODO: /,
    );
    const server = readFileSync(join(root, 'src/weather/weather.server.ts'), 'utf8');
    expect(server).toMatch(/@Skills\('skills'\)\n@McpServer\(/);
    expect(server).toMatch(/import \{[^}]*\bSkills\b[^}]*\} from '@armature\/core'/);
    expect(readFileSync(join(root, 'test/weather/storm-alerts.skill.test.ts'), 'utf8')).toContain(
      "find((s) => s.uri === 'skill://storm-alerts/SKILL.md')",
    );
    expect(readFileSync(join(root, 'Dockerfile'), 'utf8')).toContain(
      'COPY --from=build /app/dist/bundle ./dist/bundle\nCOPY --from=build /app/skills ./skills\n',
    );
    // A second skill leaves the decorator and the Dockerfile as they are.
    expect(await p.run('generate', 'skill', 'flood-maps', '--no-format')).toBe(0);
    expect(p.lines.at(-2)).not.toContain('weather.server.ts');
    expect(p.lines.at(-2)).not.toContain('Dockerfile');
    expect(readFileSync(join(root, 'src/weather/weather.server.ts'), 'utf8').match(/@Skills\(/g)).toHaveLength(1);
    expect(await p.run('generate', 'skill', 'flood-maps')).toBe(1);
    expect(p.lines.at(-1)).toBe('error: skills/flood-maps/SKILL.md already exists. Pick another name, or --force to write it again.');
    expect(await p.run('generate', 'skill', '-')).toBe(1);
    expect(p.lines.at(-1)).toMatch(/^error: "-" cannot name a skill/);
  });

  it('generate app writes the HTML module, the tool with its ui and the @AppResource, and its test; refuses it twice', async () => {
    const p = await project();
    expect(await p.run('generate', 'app', 'counter', '--no-format')).toBe(0);
    expect(p.lines.at(-2)).toBe(
      [
        'Generated app "counter" (ui://weather/counter.html) in WeatherServer:',
        '  create    src/weather/apps/counter.view.ts',
        '  update    src/weather/weather.server.ts  (adds WeatherServer.counter and counterView)',
        '  create    test/weather/counter.app.test.ts',
      ].join('\n'),
    );
    const root = join(p.cwd, 'weather-mcp');
    const server = readFileSync(join(root, 'src/weather/weather.server.ts'), 'utf8');
    expect(server).toContain("ui: { resource: 'ui://weather/counter.html' },");
    expect(server).toContain("@AppResource({ uri: 'ui://weather/counter.html', name: 'counter-view'");
    expect(server).toContain("import { counterHtml } from './apps/counter.view.js';");
    expect(readFileSync(join(root, 'src/weather/apps/counter.view.ts'), 'utf8')).toContain("name: 'counter', arguments: {}");
    expect(readFileSync(join(root, 'test/weather/counter.app.test.ts'), 'utf8')).toContain(
      "clientCapabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },",
    );
    expect(await p.run('generate', 'app', 'counter')).toBe(1);
    expect(p.lines.at(-1)).toBe(
      'error: WeatherServer already has a member called counter (src/weather/weather.server.ts). Pick another name.',
    );
  });

  it('needs a project around it', async () => {
    const s = session();
    expect(await s.run('generate', 'tool', 'x')).toBe(1);
    expect(s.lines.at(-1)).toMatch(/^error: no package\.json at or above /);
  });
});

describe('armature', () => {
  it('prints help and refuses unknown commands', async () => {
    const s = session();
    expect(await s.run('--help')).toBe(0);
    expect(s.out.join('')).toContain('armature generate <kind> <name> [options]');
    const errors: string[] = [];
    expect(await runCli(['frobnicate'], { stderr: (t) => errors.push(t) })).toBe(1);
    expect(errors.join('')).toMatch(/^armature: unknown command "frobnicate"/);
  });

  it('inspect --check says what is wrong with the snapshot file before loading the app', async () => {
    const s = session();
    expect(await s.run('inspect', '--check', 'none.json', '--if-present')).toBe(0);
    expect(s.out.join('')).toContain('armature inspect --check none.json: no snapshot yet, nothing to compare');
    expect(await s.run('inspect', '--check', 'none.json')).toBe(1);
    expect(s.lines.join('\n')).toContain(
      'none.json does not exist.\nFix: write the contract at a release with armature inspect --snapshot none.json',
    );
    writeFileSync(join(s.cwd, 'old.json'), '{ "tools": {} }');
    expect(await s.run('inspect', '--check', 'old.json')).toBe(1);
    expect(s.lines.join('\n')).toContain('old.json is not a contract snapshot (expected "format": 1 and a "tools" object)');
    expect(await s.run('inspect', '--snapshot', 'a.json', '--check', 'old.json')).toBe(1);
    expect(s.lines.join('\n')).toContain('usage: armature inspect');
  });

  it('inspect takes --url with --format server-card only', async () => {
    const s = session();
    expect(await s.run('inspect', '--url', 'https://mcp.example.com/mcp')).toBe(1);
    expect(s.lines.join('\n')).toContain(
      'usage: armature inspect [entry] [--format text|json|markdown|server-json|server-card [--url <url>]]',
    );
  });

  it('lists the inspect rules', async () => {
    const s = session();
    expect(await s.run('inspect', '--rules')).toBe(0);
    expect(s.out.join('')).toContain('read-only-hint');
  });
});

describe('--help', () => {
  it('lists every command and every --fields type', async () => {
    const s = session();
    expect(await s.run('--help')).toBe(0);
    const help = s.out.join('');
    for (const command of ['new', 'generate', 'inspect', 'dev', 'check', 'build']) expect(help).toContain(`  armature ${command} `);
    const types = /types: ([\s\S]*?)\n {2}--output/.exec(help)?.[1] ?? '';
    for (const type of FIELD_TYPES) expect(types, type).toMatch(new RegExp(`(^|[\\s,(])${type.replace(/[[\]]/g, '\\$&')}[\\s,(]`));
    expect(types).toContain('DTO class');
    for (const option of [
      '--format text|json|markdown|server-json|server-card',
      '--url <url>',
      '--snapshot <file>',
      '--check <file>',
      '--if-present',
    ]) {
      expect(
        help.split('\n').some((line) => line.startsWith(`  ${option}`)),
        option,
      ).toBe(true);
    }
  });
});

describe('project names', () => {
  it('suggests a valid npm name for an invalid one', () => {
    expect(suggestPackageName('My Server')).toBe('my-server');
    expect(suggestPackageName('@Acme/Weather MCP!')).toBe('@acme/weather-mcp');
    expect(suggestPackageName('Café Über')).toBe('cafe-uber');
    expect(suggestPackageName('my-server')).toBeUndefined();
    expect(suggestPackageName('!!!')).toBeUndefined();
  });
});

describe('versions a new project pins', () => {
  it('are the versions this workspace builds and tests with', () => {
    const cli = readJson(new URL('../package.json', import.meta.url).pathname);
    // Biome is a dependency of the CLI itself (create formats what it writes with it), the rest dev ones.
    const own = { ...cli.dependencies, ...cli.devDependencies };
    for (const [name, version] of Object.entries(PINNED)) expect(`${name}@${own[name]}`).toBe(`${name}@${version}`);
    const nestjs = readJson(new URL('../../nestjs/package.json', import.meta.url).pathname);
    for (const [name, version] of Object.entries(NEST_PINNED)) expect(`${name}@${nestjs.devDependencies[name]}`).toBe(`${name}@${version}`);
    for (const pkg of ['core', 'testing', 'nestjs']) {
      expect(readJson(new URL(`../../${pkg}/package.json`, import.meta.url).pathname).version).toBe(ARMATURE_VERSION);
    }
  });

  it('name the Bun and Deno versions the e2e test and apps/runtimes run', () => {
    const cli = readJson(new URL('../package.json', import.meta.url).pathname);
    const runtimes = readJson(new URL('../../../apps/runtimes/package.json', import.meta.url).pathname);
    for (const [name, version] of Object.entries(RUNTIME_TESTED)) {
      expect(`${name}@${cli.devDependencies[name]}`).toBe(`${name}@${version}`);
      expect(`${name}@${runtimes.devDependencies[name]}`).toBe(`${name}@${version}`);
    }
  });
});

describe('armature build', () => {
  it('refuses a TypeScript entry and a missing one, each with the command that fixes it', async () => {
    const s = session();
    expect(await s.run('new', 'app', '--yes', '--no-install')).toBe(0);
    const inApp = (...argv: string[]) => runCli(argv, { cwd: join(s.cwd, 'app'), ui: plainUi((line) => s.lines.push(line)) });
    expect(await inApp('build', 'src/main.ts')).toBe(1);
    expect(s.lines.at(-1)).toBe(
      'error: armature build bundles the compiled JavaScript, and src/main.ts is TypeScript.\n' +
        'Fix: compile first (npm run build), then name the compiled entry: armature build dist/main.js',
    );
    expect(await inApp('build')).toBe(1);
    expect(s.lines.at(-1)).toBe(
      'error: dist/main.js does not exist.\nFix: compile first (npm run build), or name the compiled entry: armature build <entry.js>',
    );
  });
});
