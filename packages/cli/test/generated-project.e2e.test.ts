import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARMATURE_BIN,
  childEnv,
  createArmatureBin,
  devUntilEntryExits,
  enginesOutside,
  installedArmature,
  jsonLines,
  packedInstall,
  projectTests,
  run,
  tempDir,
} from './support/packed-project.js';

// The first hour of a user, end to end: the workspace packages are packed as they would be
// published, a project is created by the packed create-armature (npm) or armature new (pnpm), its
// @armature dependencies are installed from those tarballs (nothing linked to this workspace), and
// then its own scripts and the `armature` bin it installed run. Each step is bounded.

const STEP = 120_000;

function edit(file: string, from: string | RegExp, to: string): string {
  const before = readFileSync(file, 'utf8');
  const after = before.replace(from, to);
  if (after === before) throw new Error(`${file}: ${String(from)} not found`);
  writeFileSync(file, after);
  return before;
}

describe.sequential('a project made by npm create armature (stdio), installed with npm', () => {
  let base: string;
  let root: string;
  const cli = (args: readonly string[], timeoutMs?: number) => installedArmature(root, args, timeoutMs);

  beforeAll(async () => {
    expect(existsSync(ARMATURE_BIN), 'packages/cli is built (pnpm turbo run build)').toBe(true);
    base = tempDir('armature-e2e-');
    const create = await createArmatureBin();
    const created = await run(process.execPath, [create, 'weather-mcp', '--yes', '--pm', 'npm', '--no-install'], base);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    root = join(base, 'weather-mcp');
    await packedInstall(root, 'npm');
  }, 240_000);

  it('installs nothing that leaves out a Node version it declares (no EBADENGINE)', () => {
    const declared = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(declared).toBe('^20.19.0 || ^22.12.0 || >=24.0.0');
    expect(enginesOutside(root, declared)).toEqual([]);
  });

  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it(
    'passes its own lint, typecheck, build and test (tests at three levels)',
    async () => {
      const lint = await run('npm', ['run', 'lint'], root);
      expect(lint.code, lint.stdout + lint.stderr).toBe(0);
      const typecheck = await run('npm', ['run', 'typecheck'], root);
      expect(typecheck.code, typecheck.stdout + typecheck.stderr).toBe(0);
      const build = await run('npm', ['run', 'build'], root);
      expect(build.code, build.stdout + build.stderr).toBe(0);
      expect(existsSync(join(root, 'dist/main.js'))).toBe(true);
      // npm run build bundles too, and npm start runs the bundle (what a client starts over stdio).
      expect(existsSync(join(root, 'dist/bundle/main.mjs'))).toBe(true);
      expect(existsSync(join(root, 'dist/bundle/main.app.mjs.map'))).toBe(true);
      const started = new Client({ name: 'e2e-start', version: '1.0.0' });
      await started.connect(
        new StdioClientTransport({ command: 'npm', args: ['start', '--silent'], cwd: root, env: childEnv() as Record<string, string> }),
      );
      try {
        expect((await started.listTools()).tools.map((tool) => tool.name)).toEqual(['greet']);
      } finally {
        await started.close();
      }
      const tests = await projectTests(root, 'npm');
      expect(tests.code, tests.stdout + tests.stderr).toBe(0);
      expect(Object.keys(tests.statuses).sort()).toEqual(
        [
          'test/weather/dto/greet.input.test.ts > GreetInput accepts Italian',
          'test/weather/dto/greet.input.test.ts > GreetInput accepts a name of 1 character',
          'test/weather/dto/greet.input.test.ts > GreetInput accepts a name of 64 characters',
          'test/weather/dto/greet.input.test.ts > GreetInput fills in the default language',
          'test/weather/dto/greet.input.test.ts > GreetInput rejects a name of 65 characters',
          'test/weather/dto/greet.input.test.ts > GreetInput rejects an empty name',
          'test/weather/dto/greet.input.test.ts > GreetInput rejects a missing name, naming the field',
          'test/weather/dto/greet.input.test.ts > GreetInput rejects an unknown field',
          'test/weather/dto/greet.input.test.ts > GreetInput rejects another language',
          'test/weather/weather.pipeline.test.ts > WeatherServer through the MCP client advertises greet with its schemas and annotations',
          'test/weather/weather.pipeline.test.ts > WeatherServer through the MCP client answers with structured content from the service',
          'test/weather/weather.pipeline.test.ts > WeatherServer through the MCP client refuses invalid arguments before the method runs',
          'test/weather/weather.server.test.ts > WeatherServer.greet as a plain method greets through the service and logs who it greeted',
        ].sort(),
      );
      expect(Object.values(tests.statuses).every((status) => status === 'passed')).toBe(true);
    },
    STEP,
  );

  it('grows with every generate kind, and build, test and lint still pass', async () => {
    const commands = [
      [
        'generate',
        'tool',
        'get-forecast',
        '--server',
        'weather',
        '--read-only',
        '--fields',
        'city:string:1..64, days?:int:1..14, units?:enum:metric|imperial, raw?:boolean',
      ],
      ['generate', 'dto', 'address', '--fields', 'street:string:1..200, zip:string:5..5, floor?:number:-2..50.5'],
      [
        'generate',
        'tool',
        'plan-trip',
        '--server',
        'weather',
        '--fields',
        'title:string:1..80, tags?:string[]:..5, due:date, kind:day|week, start:Address, stops?:Address[], pinned?:boolean',
      ],
      ['generate', 'server', 'billing'],
      [
        'generate',
        'tool',
        'create-invoice',
        '--server',
        'billing',
        '--fields',
        'customer:string:3..40, amount:number:0.5..10000',
        '--output',
        'invoice_id:string, total:number:0..100000',
      ],
      ['generate', 'resource', 'settings', '--server', 'weather'],
      ['generate', 'resource', 'city', '--server', 'weather', '--uri', 'weather://cities/{city}'],
      ['generate', 'prompt', 'summarize', '--server', 'weather', '--fields', 'text:string:1..10000, tone?:enum:formal|casual'],
      ['generate', 'app', 'counter', '--server', 'weather'],
      ['generate', 'skill', 'storm-alerts', '--server', 'weather'],
    ];
    for (const args of commands) {
      const result = await cli(args);
      expect(result.code, `armature ${args.join(' ')}\n${result.stdout}${result.stderr}`).toBe(0);
    }
    expect(readFileSync(join(root, 'src/app.ts'), 'utf8')).toContain('export const servers = [WeatherServer, BillingServer];');

    for (const script of ['build', 'typecheck', 'lint']) {
      const result = await run('npm', ['run', script], root);
      expect(result.code, `npm run ${script}\n${result.stdout}${result.stderr}`).toBe(0);
    }
    const tests = await projectTests(root, 'npm', [], 180_000);
    expect(tests.code, tests.stdout + tests.stderr).toBe(0);
    const byFile = new Map<string, string[]>();
    for (const [name, status] of Object.entries(tests.statuses)) {
      const file = name.split(' > ')[0] as string;
      byFile.set(file, [...(byFile.get(file) ?? []), status]);
    }
    // Every generated test file ran, and every test in it passed.
    for (const file of [
      'test/weather/get-forecast.tool.test.ts',
      'test/dto/address.dto.test.ts',
      'test/weather/plan-trip.tool.test.ts',
      'test/billing/billing.server.test.ts',
      'test/billing/create-invoice.tool.test.ts',
      'test/weather/settings.resource.test.ts',
      'test/weather/city.resource.test.ts',
      'test/weather/summarize.prompt.test.ts',
      'test/weather/counter.app.test.ts',
      'test/weather/storm-alerts.skill.test.ts',
    ]) {
      expect(byFile.get(file)?.length ?? 0, `${file} ran`).toBeGreaterThan(0);
      expect(new Set(byFile.get(file)), file).toEqual(new Set(['passed']));
    }
    const forecast = Object.keys(tests.statuses).filter((name) => name.startsWith('test/weather/get-forecast.tool.test.ts'));
    expect(forecast).toEqual(
      expect.arrayContaining([
        'test/weather/get-forecast.tool.test.ts > get_forecast answers a valid call',
        'test/weather/get-forecast.tool.test.ts > get_forecast accepts days at its maximum (14)',
        'test/weather/get-forecast.tool.test.ts > get_forecast rejects days above 14',
        'test/weather/get-forecast.tool.test.ts > get_forecast rejects city longer than 64 characters',
        'test/weather/get-forecast.tool.test.ts > get_forecast rejects city missing',
        'test/weather/get-forecast.tool.test.ts > get_forecast rejects an unknown field',
      ]),
    );
  }, 300_000);

  it(
    'armature build bundles the grown server, and the bundle answers every request as dist/main.js does',
    async () => {
      const built = await cli(['build'], STEP);
      expect(built.code, built.stdout + built.stderr).toBe(0);
      expect(built.stdout).toContain('Run it with: node dist/bundle/main.mjs');

      // The same requests to the compiled server and to its bundle, over stdio with the SDK's own
      // client: the catalogue, valid calls, and calls the DTOs refuse (the messages come from the
      // validators the bundle kept of class-validator's ES build).
      const answers = async (entry: string) => {
        const client = new Client({ name: 'e2e-build', version: '1.0.0' });
        await client.connect(
          new StdioClientTransport({ command: process.execPath, args: [entry], cwd: root, env: childEnv() as Record<string, string> }),
        );
        try {
          const start = { street: 'Via Roma 1', zip: '00100' };
          return {
            tools: await client.listTools(),
            prompts: await client.listPrompts(),
            resources: await client.listResources(),
            calls: [
              await client.callTool({ name: 'greet', arguments: { name: 'Ada', language: 'it' } }),
              await client.callTool({ name: 'greet', arguments: { name: '', shout: true } }),
              await client.callTool({ name: 'get_forecast', arguments: { city: 'Rome', days: 3, units: 'metric' } }),
              await client.callTool({ name: 'get_forecast', arguments: { city: 'x'.repeat(65), days: 15, units: 'kelvin', raw: 'yes' } }),
              await client.callTool({
                name: 'plan_trip',
                arguments: { title: 'Trip', due: '2026-12-24T10:00:00.000Z', kind: 'day', start, stops: [start] },
              }),
              await client.callTool({
                name: 'plan_trip',
                arguments: {
                  title: '',
                  tags: ['a', 'b', 'c', 'd', 'e', 'f'],
                  due: 'soon',
                  kind: 'year',
                  start: { zip: '1', floor: 99 },
                  stops: [{}],
                },
              }),
              await client.callTool({ name: 'create_invoice', arguments: { customer: 'ACME', amount: 12.5 } }),
              await client.callTool({ name: 'create_invoice', arguments: { customer: 'AC', amount: 0.1 } }),
              await client.callTool({ name: 'counter', arguments: {} }),
            ],
            app: await client.readResource({ uri: 'ui://weather/counter.html' }),
          };
        } finally {
          await client.close();
        }
      };
      const compiled = await answers('dist/main.js');
      const bundled = await answers('dist/bundle/main.mjs');
      expect(bundled).toEqual(compiled);
      expect(compiled.tools.tools.map((tool) => tool.name).sort()).toEqual([
        'counter',
        'create_invoice',
        'get_forecast',
        'greet',
        'plan_trip',
      ]);
      expect(compiled.calls.map((call) => call.isError ?? false)).toEqual([false, true, false, true, false, true, false, true, false]);
      // The app's HTML (a module of the project) is in the bundle, served with the MCP App MIME type.
      expect(compiled.app.contents[0]).toMatchObject({
        mimeType: 'text/html;profile=mcp-app',
        text: expect.stringContaining('ui/initialize'),
      });
      expect(JSON.stringify(compiled.calls[5])).toContain('start.zip');
    },
    STEP,
  );

  it(
    "the Dockerfile's runtime stage: the production dependencies and the bundle alone serve",
    async () => {
      // No Docker daemon in CI: the runtime stage's steps by hand, in a folder of their own.
      const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
      expect(dockerfile).toContain('RUN npm ci --omit=dev && npm cache clean --force');
      expect(dockerfile).toContain('COPY --from=build /app/dist/bundle ./dist/bundle');
      expect(dockerfile).toContain('USER node');
      const image = tempDir('armature-image-');
      try {
        for (const file of ['package.json', 'package-lock.json']) cpSync(join(root, file), join(image, file));
        cpSync(join(root, 'dist/bundle'), join(image, 'dist/bundle'), { recursive: true });
        // generate skill added the skills folder to the runtime stage: the server reads it at start-up.
        expect(dockerfile).toContain('COPY --from=build /app/skills ./skills');
        cpSync(join(root, 'skills'), join(image, 'skills'), { recursive: true });
        const install = await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], image, STEP);
        expect(install.code, install.stdout + install.stderr).toBe(0);
        expect(existsSync(join(image, 'node_modules/vitest'))).toBe(false);
        const client = new Client({ name: 'e2e-image', version: '1.0.0' });
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: ['dist/bundle/main.mjs'],
            cwd: image,
            env: childEnv() as Record<string, string>,
          }),
        );
        try {
          expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
            'counter',
            'create_invoice',
            'get_forecast',
            'greet',
            'plan_trip',
          ]);
          expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada', language: 'it' } })).toMatchObject({
            structuredContent: { greeting: 'Ciao, Ada!' },
          });
        } finally {
          await client.close();
        }
      } finally {
        rmSync(image, { recursive: true, force: true });
      }
    },
    STEP,
  );

  it(
    'a generated test fails once, with the start-up problem, when the app cannot start',
    async () => {
      const server = join(root, 'src/weather/weather.server.ts');
      // An empty description type-checks (tsc builds) and is refused at start-up (ARM108).
      const before = edit(server, /description: 'Greet someone by name[^\n]*\n/, "description: '',\n");
      try {
        const result = await projectTests(root, 'npm', ['test/weather/weather.pipeline.test.ts']);
        const output = result.stdout + result.stderr;
        expect(result.code, output).not.toBe(0);
        expect(output).toContain('WeatherServer.greet: the tool has no description');
        // afterAll(() => t?.close()): no second failure about the app that was never made.
        expect(output).not.toContain("reading 'close'");

        // The bundle npm start runs prints the same problem, its fix, and one frame: no stack
        // through Armature's internals, no second copy of the problems.
        const build = await run('npm', ['run', 'build'], root);
        expect(build.code, build.stdout + build.stderr).toBe(0);
        const started = await run(process.execPath, ['dist/bundle/main.mjs'], root, 30_000);
        expect(started.code).toBe(1);
        const lines = started.stderr.trimEnd().split('\n');
        expect(lines).toContain(
          '  1. WeatherServer.greet: the tool has no description (the model reads it to decide when to call the tool) [ARM108]',
        );
        expect(lines.filter((line) => /^\s+at /.test(line))).toHaveLength(1);
        expect(started.stderr).not.toContain('problems:');
        // Node's pointer above the message is the project's own call, not a line of Armature's source.
        expect(lines[1]).toContain('createMcpApp(servers, options)');
      } finally {
        writeFileSync(server, before);
        await run('npm', ['run', 'build'], root);
      }
    },
    STEP,
  );

  it(
    'inspect prints the catalogue and lints it; --strict fails on the TODO descriptions',
    async () => {
      const result = await cli(['inspect', '--strict'], STEP);
      expect(result.code, result.stderr).toBe(1);
      // The skill: its SKILL.md (its description still a TODO) and the skill:// files template.
      expect(result.stdout).toContain('weather-mcp 0.1.0: 5 tools, 3 resources, 2 resource templates, 1 prompt');
      expect(result.stdout).toContain(
        '  missing-description  resource skill://storm-alerts/SKILL.md: the description is missing or still a TODO',
      );
      expect(result.stdout).toContain('      city: string, 1..64 chars, required. City');
      // Nested DTOs are printed with their own fields.
      expect(result.stdout).toContain(
        [
          '      due: string (date-time), required. Due',
          '      kind: "day" | "week", required. Kind',
          '      start: Address, required. Start',
          '        street: string, 1..200 chars, required. Street',
          '        zip: string, 5..5 chars, required. Zip',
          '        floor: number, -2..50.5, optional. Floor',
          '      stops: Address[], optional. Stops',
        ].join('\n'),
      );
      expect(result.stdout).toContain('  tool-description     tool get_forecast: the description is missing or still a TODO');
      expect(result.stdout).toContain('  missing-description  prompt summarize: the description is missing or still a TODO');
      expect(result.stdout).not.toContain('undecorated-property');

      // A property with no decorator at all would silently vanish from the schema: lint and inspect name it.
      const input = join(root, 'src/weather/dto/get-forecast.input.ts');
      const before = edit(input, /\n}\n$/, '\n\n  color?: string;\n}\n');
      try {
        const lint = await run('npm', ['run', 'lint'], root);
        expect(lint.code).toBe(1);
        expect(lint.stdout).toMatch(
          /undecorated-property {2}GetForecastInput\.color \(src\/weather\/dto\/get-forecast\.input\.ts:\d+\): no decorator, .* Fix: @IsOptional\(\) @IsString\(\)/,
        );
        const strict = await cli(['inspect', '--strict'], STEP);
        expect(strict.stdout).toContain('undecorated-property  GetForecastInput.color (src/weather/dto/get-forecast.input.ts:');
      } finally {
        writeFileSync(input, before);
      }
    },
    STEP,
  );

  it(
    'npm test checks the tool contract once armature inspect --snapshot has recorded it',
    async () => {
      const snapshot = await cli(['inspect', '--snapshot', 'mcp-contract.json'], STEP);
      expect(snapshot.code, snapshot.stdout + snapshot.stderr).toBe(0);
      const dtoTest = ['test/weather/dto/greet.input.test.ts'];
      const input = join(root, 'src/weather/dto/greet.input.ts');
      const before = edit(input, '@Length(1, 64)', '@Length(1, 32)');
      try {
        const broken = await projectTests(root, 'npm', dtoTest);
        expect(broken.code).not.toBe(0);
        expect(broken.stdout).toContain('breaking    tool greet: argument name: maxLength narrowed from 64 to 32');
        expect(broken.statuses, 'vitest does not run after a breaking change').toEqual({});
      } finally {
        writeFileSync(input, before);
      }
      const unchanged = await projectTests(root, 'npm', dtoTest);
      expect(unchanged.code, unchanged.stdout + unchanged.stderr).toBe(0);
      expect(unchanged.stdout).toContain('armature inspect --check mcp-contract.json: the contract is unchanged');
      rmSync(join(root, 'mcp-contract.json'));
    },
    STEP,
  );

  it(
    'the generated tests fail when the generated tool is broken',
    async () => {
      const server = join(root, 'src/weather/weather.server.ts');
      const input = join(root, 'src/weather/dto/get-forecast.input.ts');
      const serverBefore = edit(server, 'get_forecast received', 'get_forecast got');
      const inputBefore = edit(input, /\n\s*@Max\(14\)/, '');
      try {
        const tests = await projectTests(root, 'npm', ['test/weather/get-forecast.tool.test.ts']);
        expect(tests.code).not.toBe(0);
        const failed = Object.entries(tests.statuses)
          .filter(([, status]) => status === 'failed')
          .map(([name]) => name);
        expect(failed.sort()).toEqual([
          'test/weather/get-forecast.tool.test.ts > get_forecast answers a valid call',
          'test/weather/get-forecast.tool.test.ts > get_forecast rejects days above 14',
        ]);
      } finally {
        writeFileSync(server, serverBefore);
        writeFileSync(input, inputBefore);
      }
    },
    STEP,
  );

  it(
    'the generated app test fails when the tool loses its app',
    async () => {
      const server = join(root, 'src/weather/weather.server.ts');
      const before = edit(server, "ui: { resource: 'ui://weather/counter.html' },", '');
      try {
        const tests = await projectTests(root, 'npm', ['test/weather/counter.app.test.ts']);
        expect(tests.code).not.toBe(0);
        const failed = Object.entries(tests.statuses)
          .filter(([, status]) => status === 'failed')
          .map(([name]) => name);
        expect(failed).toEqual(['test/weather/counter.app.test.ts > app counter is advertised with its app to hosts that render MCP Apps']);
      } finally {
        writeFileSync(server, before);
      }
    },
    STEP,
  );

  it(
    'dev runs the sources with vite-node and restarts when a file changes',
    async () => {
      const child = spawn(join(root, 'node_modules/.bin/armature'), ['dev'], {
        cwd: root,
        env: childEnv(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const lines = jsonLines(child);
      const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
      const describeGreet = async (id: number) => {
        send({
          jsonrpc: '2.0',
          id,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
        });
        await lines.next((m) => m.id === id, 60_000);
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({ jsonrpc: '2.0', id: id + 1, method: 'tools/list' });
        const listed = (await lines.next((m) => m.id === id + 1, 30_000)) as { result: { tools: Array<Record<string, unknown>> } };
        return listed.result.tools.find((tool) => tool.name === 'greet');
      };
      const server = join(root, 'src/weather/weather.server.ts');
      let before: string | undefined;
      try {
        // The DTO schema shows decorator metadata survived (tsx would have lost it).
        expect(await describeGreet(1)).toMatchObject({ inputSchema: { required: ['name'] } });
        before = edit(server, 'Use it when asked to say hello.', 'Use it when asked to say hello (edited).');
        const deadline = Date.now() + 30_000;
        while (!stderr.includes('changed: restarting') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        expect(stderr).toContain('[armature] src/weather/weather.server.ts changed: restarting');
        expect((await describeGreet(3))?.description).toBe(
          'Greet someone by name, in English or Italian. Use it when asked to say hello (edited).',
        );
      } finally {
        if (before !== undefined) writeFileSync(server, before);
        child.kill('SIGTERM');
        await new Promise((r) => child.once('close', r));
      }
    },
    STEP,
  );

  it(
    'dev passes the arguments after -- to the entry, and says how when they come without --',
    async () => {
      const probe = join(root, 'src/print-args.ts');
      writeFileSync(
        probe,
        "import { servers } from './app.js';\nconsole.log(servers.length, JSON.stringify(process.argv.slice(2)));\nprocess.exit(0);\n",
      );
      try {
        const { stdout, stderr } = await devUntilEntryExits(
          join(root, 'node_modules/.bin/armature'),
          ['dev', 'src/print-args.ts', '--', '--http', '--port', '3001'],
          root,
        );
        expect(stdout.trim(), stderr).toBe('2 ["--http","--port","3001"]');
        const wrong = await cli(['dev', 'src/print-args.ts', '--http']);
        expect(wrong.code).toBe(1);
        expect(wrong.stderr + wrong.stdout).toContain(
          'armature dev has no option --http. Arguments for your entry go after --:\n  armature dev src/print-args.ts -- --http',
        );
      } finally {
        rmSync(probe, { force: true });
      }
    },
    STEP,
  );
});
