import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { plainUi, runCli } from '../src/index.js';
import { childEnv, enginesOutside, installedArmature, packedInstall, projectTests, run, tempDir } from './support/packed-project.js';

/** Starts `node <entry>` in `root` on a free port; resolves with the Nest app's base URL once it listens. */
function startNest(root: string, entry: string) {
  const child = spawn(process.execPath, [entry], { cwd: root, env: childEnv({ PORT: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
  const url = new Promise<string>((found, fail) => {
    let text = '';
    const timer = setTimeout(() => fail(new Error(`${entry}: no endpoint printed: ${text}`)), 30_000);
    child.stderr.on('data', (chunk) => {
      text += chunk;
      const match = /REST on (\S+),/.exec(text);
      if (match) {
        clearTimeout(timer);
        found(match[1] as string);
      }
    });
  });
  return { child, url };
}

// armature new --template nestjs as a user gets it: the @armature packages (core, nestjs, testing,
// cli) installed from their packed tarballs with pnpm, Nest from the registry; then the project's own
// scripts, `armature inspect`, and `armature generate tool` inside the Nest layout. Each step is bounded.

// A long name: every generated line that holds it must still pass the project's own lint (the
// ArmatureModule.forRoot line passed 100 columns with any name over about 7 characters).
const NAME = 'acme-customer-support-greeter';
const BASE = NAME;
const STEM = 'AcmeCustomerSupportGreeter';

const EXPECTED_TESTS = [
  `test/${BASE}/dto/greet.input.test.ts > GreetInput accepts Italian`,
  `test/${BASE}/dto/greet.input.test.ts > GreetInput accepts a name of 1 character`,
  `test/${BASE}/dto/greet.input.test.ts > GreetInput accepts a name of 64 characters`,
  `test/${BASE}/dto/greet.input.test.ts > GreetInput fills in the default language`,
  `test/${BASE}/dto/greet.input.test.ts > GreetInput rejects a name of 65 characters`,
  `test/${BASE}/dto/greet.input.test.ts > GreetInput rejects an empty name`,
  `test/${BASE}/dto/greet.input.test.ts > GreetInput rejects a missing name, naming the field`,
  `test/${BASE}/dto/greet.input.test.ts > GreetInput rejects an unknown field`,
  `test/${BASE}/dto/greet.input.test.ts > GreetInput rejects another language`,
  `test/${BASE}/${BASE}.http.test.ts > ${STEM}Controller and ${STEM}Server on one port greets over REST and over MCP`,
  `test/${BASE}/${BASE}.http.test.ts > ${STEM}Controller and ${STEM}Server on one port reports the same problems for the same bad input`,
  `test/${BASE}/${BASE}.pipeline.test.ts > ${STEM}Server through the MCP client advertises greet with its schemas and annotations`,
  `test/${BASE}/${BASE}.pipeline.test.ts > ${STEM}Server through the MCP client answers with structured content from the Nest service`,
  `test/${BASE}/${BASE}.pipeline.test.ts > ${STEM}Server through the MCP client refuses invalid arguments before the method runs`,
];

describe('a project made by armature new --template nestjs, installed with pnpm', () => {
  it('builds, passes its tests, inspects its tools, and grows with generate tool and generate app', async () => {
    const base = tempDir('armature-e2e-nest-');
    try {
      // `new --template nestjs` refuses the Node 20 running this suite (Nest 12 needs 22.12): the
      // project is written as on Node 22.12; installing and running it stays the user's commands.
      const lines: string[] = [];
      const created = await runCli(['new', NAME, '--template', 'nestjs', '--pm', 'pnpm', '--yes', '--no-install'], {
        cwd: base,
        ui: plainUi((line) => lines.push(line)),
        nodeVersion: '22.12.0',
      });
      expect(created, lines.join('\n')).toBe(0);
      const root = join(base, NAME);
      await packedInstall(root, 'pnpm');
      // Every installed package supports every Node version the project declares (no EBADENGINE
      // there): @nestjs/common 12.5.1's file-type 22.3.0 wants Node >= 22.
      const declared = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
      expect(enginesOutside(root, declared)).toEqual([]);
      for (const script of ['build', 'typecheck', 'lint']) {
        const result = await run('pnpm', ['run', script], root);
        expect(result.code, `pnpm run ${script}\n${result.stdout}${result.stderr}`).toBe(0);
      }
      const tests = await projectTests(root, 'pnpm');
      expect(tests.code, tests.stdout + tests.stderr).toBe(0);
      expect(Object.keys(tests.statuses).sort()).toEqual([...EXPECTED_TESTS].sort());
      expect(new Set(Object.values(tests.statuses))).toEqual(new Set(['passed']));

      const inspect = await installedArmature(root, ['inspect', '--strict'], 60_000);
      expect(inspect.code, inspect.stdout + inspect.stderr).toBe(0);
      expect(inspect.stdout).toContain(`${NAME} 0.1.0: 1 tool`);
      expect(inspect.stdout).toContain('      name: string, 1..64 chars, required. Who to greet');
      expect(inspect.stdout).toContain('Lint: no findings');

      // armature build bundles a Nest app too: @nestjs/core's optional packages (microservices,
      // websockets) are not installed, so they stay imports, named, as in the compiled code.
      const bundled = await installedArmature(root, ['build'], 60_000);
      expect(bundled.code, bundled.stdout + bundled.stderr).toBe(0);
      expect(bundled.stdout).toContain('Not installed, so left as imports that fail only if they run: ');
      expect(bundled.stdout).toContain('@nestjs/microservices');
      const answers: unknown[] = [];
      for (const entry of ['dist/main.js', 'dist/bundle/main.mjs']) {
        const { child, url } = startNest(root, entry);
        try {
          const base = await url;
          const rest = await fetch(`${base}/greetings`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'Ada', language: 'it' }),
          });
          const refused = await fetch(`${base}/greetings`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: '' }),
          });
          const client = new Client({ name: 'e2e-nest', version: '1.0.0' });
          await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
          answers.push({
            rest: [rest.status, await rest.json()],
            refused: [refused.status, await refused.json()],
            tools: await client.listTools(),
            greet: await client.callTool({ name: 'greet', arguments: { name: 'Ada', language: 'it' } }),
            invalid: await client.callTool({ name: 'greet', arguments: { name: '' } }),
          });
          await client.close();
        } finally {
          child.kill('SIGTERM');
        }
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[0]).toMatchObject({ greet: { structuredContent: { greeting: 'Ciao, Ada!' } }, invalid: { isError: true } });

      // The server is found in the Nest layout; the generated test builds the app with Nest's injector.
      const generated = await installedArmature(root, [
        'generate',
        'tool',
        'get-forecast',
        '--fields',
        'city:string:1..64, days?:int:1..14',
      ]);
      expect(generated.code, generated.stdout + generated.stderr).toBe(0);
      // An MCP App too: its test runs through connectMcp(), a client without the extension.
      const app = await installedArmature(root, ['generate', 'app', 'ticket-board']);
      expect(app.code, app.stdout + app.stderr).toBe(0);
      for (const script of ['typecheck', 'lint']) {
        const result = await run('pnpm', ['run', script], root);
        expect(result.code, `pnpm run ${script}\n${result.stdout}${result.stderr}`).toBe(0);
      }
      const grown = await projectTests(root, 'pnpm', [`test/${BASE}/get-forecast.tool.test.ts`]);
      expect(grown.code, grown.stdout + grown.stderr).toBe(0);
      expect(grown.statuses).toMatchObject({
        [`test/${BASE}/get-forecast.tool.test.ts > get_forecast answers a valid call`]: 'passed',
        [`test/${BASE}/get-forecast.tool.test.ts > get_forecast rejects days above 14`]: 'passed',
        [`test/${BASE}/get-forecast.tool.test.ts > get_forecast rejects an unknown field`]: 'passed',
      });
      expect(new Set(Object.values(grown.statuses))).toEqual(new Set(['passed']));
      const appTests = await projectTests(root, 'pnpm', [`test/${BASE}/ticket-board.app.test.ts`]);
      expect(appTests.code, appTests.stdout + appTests.stderr).toBe(0);
      expect(Object.keys(appTests.statuses).sort()).toEqual([
        `test/${BASE}/ticket-board.app.test.ts > app ticket_board answers with the structured result the app reads`,
        `test/${BASE}/ticket-board.app.test.ts > app ticket_board is a plain tool for a client without MCP Apps`,
        `test/${BASE}/ticket-board.app.test.ts > app ticket_board serves its HTML as an MCP App`,
      ]);
      expect(new Set(Object.values(appTests.statuses))).toEqual(new Set(['passed']));
      const after = await installedArmature(root, ['inspect'], 60_000);
      expect(after.stdout).toContain(`${NAME} 0.1.0: 3 tools, 1 resource`);

      const server = await installedArmature(root, ['generate', 'server', 'billing']);
      expect(server.code).toBe(1);
      expect(server.stdout + server.stderr).toContain(
        'in a Nest project a server is a Nest provider, which armature generate server does not write',
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }, 420_000);
});
