import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARMATURE_BIN, armature, childEnv, jsonLines, linkInstall, projectTests, run, tempDir } from './support/linked-project.js';

// The checks of the CLI issue, end to end, with the built `armature` bin and a real project: it is
// generated into a temporary folder, its dependencies are linked to this workspace's packages and
// installed offline, and then its own lint, build and test scripts run. Each step is bounded.

const STEP = 120_000;

function edit(file: string, from: string | RegExp, to: string): string {
  const before = readFileSync(file, 'utf8');
  const after = before.replace(from, to);
  if (after === before) throw new Error(`${file}: ${String(from)} not found`);
  writeFileSync(file, after);
  return before;
}

describe.sequential('a project made by armature new (stdio)', () => {
  let base: string;
  let root: string;

  beforeAll(async () => {
    expect(existsSync(ARMATURE_BIN), 'packages/cli is built (pnpm turbo run build)').toBe(true);
    base = tempDir('armature-e2e-');
    const created = await armature(['new', 'weather-mcp', '--yes', '--no-install'], base);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    root = join(base, 'weather-mcp');
    await linkInstall(root);
  }, STEP);

  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it(
    'passes its own lint, build and test (tests at three levels)',
    async () => {
      const lint = await run('pnpm', ['run', 'lint'], root);
      expect(lint.code, lint.stdout + lint.stderr).toBe(0);
      const build = await run('pnpm', ['run', 'build'], root);
      expect(build.code, build.stdout + build.stderr).toBe(0);
      expect(existsSync(join(root, 'dist/main.js'))).toBe(true);
      const tests = await projectTests(root);
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
    ];
    for (const args of commands) {
      const result = await armature(args, root);
      expect(result.code, `armature ${args.join(' ')}\n${result.stdout}${result.stderr}`).toBe(0);
    }
    expect(readFileSync(join(root, 'src/app.ts'), 'utf8')).toContain('export const servers = [WeatherServer, BillingServer];');

    const build = await run('pnpm', ['run', 'build'], root);
    expect(build.code, build.stdout + build.stderr).toBe(0);
    const lint = await run('pnpm', ['run', 'lint'], root);
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    const tests = await projectTests(root, [], 180_000);
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
      'test/billing/billing.server.test.ts',
      'test/billing/create-invoice.tool.test.ts',
      'test/weather/settings.resource.test.ts',
      'test/weather/city.resource.test.ts',
      'test/weather/summarize.prompt.test.ts',
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
    'inspect prints the catalogue and lints it; --strict fails on the TODO descriptions',
    async () => {
      const result = await armature(['inspect', '--strict'], root, STEP);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toContain('weather-mcp 0.1.0: 3 tools, 1 resource, 1 resource template, 1 prompt');
      expect(result.stdout).toContain('      city: string, 1..64 chars, required. City');
      expect(result.stdout).toContain('  tool-description     tool get_forecast: the description is missing or still a TODO');
      expect(result.stdout).toContain('  missing-description  prompt summarize: the description is missing or still a TODO');
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
        const tests = await projectTests(root, ['test/weather/get-forecast.tool.test.ts']);
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
    'dev runs the sources with vite-node and restarts when a file changes',
    async () => {
      const child = spawn(process.execPath, [ARMATURE_BIN, 'dev'], { cwd: root, env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
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
});

describe('a project made by armature new --transport http', () => {
  it(
    'builds and serves Streamable HTTP from dist/main.js',
    async () => {
      const base = tempDir('armature-e2e-http-');
      try {
        const created = await armature(['new', 'e2e-http', '--transport', 'http', '--yes', '--no-install'], base);
        expect(created.code, created.stderr).toBe(0);
        const root = join(base, 'e2e-http');
        await linkInstall(root);
        const build = await run('pnpm', ['run', 'build'], root);
        expect(build.code, build.stdout + build.stderr).toBe(0);
        const server = spawn(process.execPath, ['dist/main.js'], {
          cwd: root,
          env: childEnv({ PORT: '0' }),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        try {
          const url = await new Promise<string>((found, fail) => {
            let text = '';
            const timer = setTimeout(() => fail(new Error(`no endpoint printed: ${text}`)), 30_000);
            server.stderr.on('data', (chunk) => {
              text += chunk;
              const match = /MCP endpoint: (\S+)/.exec(text);
              if (match) {
                clearTimeout(timer);
                found(match[1] as string);
              }
            });
          });
          const client = new Client({ name: 'e2e', version: '1.0.0' });
          await client.connect(new StreamableHTTPClientTransport(new URL(url)));
          const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
          expect(result.structuredContent).toEqual({ greeting: 'Hello, Ada!' });
          await client.close();
        } finally {
          server.kill('SIGTERM');
        }
      } finally {
        rmSync(base, { recursive: true, force: true });
      }
    },
    STEP,
  );
});
