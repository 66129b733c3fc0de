import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARMATURE_BIN,
  CLI_ROOT,
  childEnv,
  createArmatureBin,
  installedArmature,
  packedInstall,
  run,
  tempDir,
} from './support/packed-project.js';

// Mistakes and guides of a user's first hour, in a generated project (packed packages, npm): one
// decorator setting taken out of its tsconfig.json at a time (every way a user runs it names the
// setting, its code and the fix), and the MCP Apps guide's example built by `npm run build`.

const DOCS = join(CLI_ROOT, '..', '..', 'docs');

const FIX = 'set "experimentalDecorators": true and "emitDecoratorMetadata": true';
const CASES = [
  { setting: 'experimentalDecorators', code: 'ARM127', runtime: 'was called as a standard (TC39) decorator' },
  { setting: 'emitDecoratorMetadata', code: 'ARM200', runtime: 'no decorator metadata was emitted for this method' },
] as const;

describe.sequential('a generated project in its first hour', () => {
  let base: string;
  let root: string;
  let tsconfig: string;

  beforeAll(async () => {
    expect(existsSync(ARMATURE_BIN), 'packages/cli is built (pnpm turbo run build)').toBe(true);
    base = tempDir('armature-flags-');
    const created = await run(process.execPath, [await createArmatureBin(), 'flags-mcp', '--yes', '--pm', 'npm', '--no-install'], base);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    root = join(base, 'flags-mcp');
    await packedInstall(root, 'npm');
    tsconfig = readFileSync(join(root, 'tsconfig.json'), 'utf8');
  }, 360_000);

  afterAll(() => {
    if (base) rmSync(base, { recursive: true, force: true });
  });

  for (const { setting, code, runtime } of CASES) {
    it(`without ${setting}: check, inspect, dev and node dist/main.js name it (${code}) and the fix`, async () => {
      const options = JSON.parse(tsconfig) as { compilerOptions: Record<string, unknown> };
      expect(options.compilerOptions[setting]).toBe(true);
      delete options.compilerOptions[setting];
      writeFileSync(join(root, 'tsconfig.json'), JSON.stringify(options, null, 2));
      try {
        const named = `tsconfig.json does not set "${setting}": true`;
        const check = await installedArmature(root, ['check']);
        expect(check.code).toBe(1);
        expect(check.stdout).toContain(`decorator-settings  tsconfig.json: does not set "${setting}": true`);
        expect(check.stdout).toContain(`[${code}]. Fix: ${FIX}`);

        for (const command of [['inspect'], ['dev']]) {
          const result = await installedArmature(root, command, 60_000);
          const output = result.stdout + result.stderr;
          expect(result.code, `armature ${command[0]}`).not.toBe(0);
          expect(output, `armature ${command[0]}`).toContain(named);
          expect(output, `armature ${command[0]}`).toContain(`[${code}]`);
          expect(output, `armature ${command[0]}`).toContain(`Fix: ${FIX}`);
        }

        // tsc still writes dist/ (refusing emitDecoratorMetadata alone with TS5052, but writing it).
        rmSync(join(root, 'dist'), { recursive: true, force: true });
        const tsc = await run(join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], root);
        if (setting === 'experimentalDecorators') expect(tsc.stdout).toContain('error TS5052');
        const started = await run(process.execPath, ['dist/main.js'], root, 30_000);
        expect(started.code).toBe(1);
        expect(started.stderr).toContain(runtime);
        expect(started.stderr).toContain(`[${code}]`);
        expect(started.stderr).toContain(setting === 'experimentalDecorators' ? `Fix: ${FIX}` : '"emitDecoratorMetadata": true');
        expect(started.stderr).not.toContain("reading 'constructor'");
      } finally {
        writeFileSync(join(root, 'tsconfig.json'), tsconfig);
      }
    }, 240_000);
  }

  it('serves the MCP Apps guide example from npm run build, through npm start', async () => {
    const example = readFileSync(join(DOCS, 'examples/mcp-apps.ts'), 'utf8');
    const server = /\/\/ #region server\n([\s\S]*?)\/\/ #endregion/.exec(example)?.[1] ?? '';
    expect(server).toContain('@AppResource');
    mkdirSync(join(root, 'src/counter/mcp-apps'), { recursive: true });
    writeFileSync(
      join(root, 'src/counter/counter.server.ts'),
      [
        "import { AppResource, Field, McpServer, Tool } from '@armature/core';",
        "import { IsInt, Max, Min } from 'class-validator';",
        "import { Service } from 'typedi';",
        "import { COUNTER_HTML } from './mcp-apps/counter.view.js';",
        '',
        server,
      ].join('\n'),
    );
    writeFileSync(join(root, 'src/counter/mcp-apps/counter.view.ts'), readFileSync(join(DOCS, 'examples/mcp-apps/counter.view.ts')));
    const app = join(root, 'src/app.ts');
    const before = readFileSync(app, 'utf8');
    const after = before
      .replace(/^(import .*\n)(?!import)/m, "$1import { CounterServer } from './counter/counter.server.js';\n")
      .replace(/export const servers = \[(\w+)\];/, 'export const servers = [$1, CounterServer];');
    expect(after).toContain('CounterServer];');
    writeFileSync(app, after);
    const build = await run('npm', ['run', 'build'], root, 180_000);
    expect(build.code, build.stdout + build.stderr).toBe(0);
    const client = new Client({ name: 'e2e-apps', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: 'npm', args: ['start', '--silent'], cwd: root, env: childEnv() as Record<string, string> }),
    );
    try {
      const { contents } = await client.readResource({ uri: 'ui://counter/view.html' });
      expect(contents[0]).toMatchObject({ uri: 'ui://counter/view.html', mimeType: 'text/html;profile=mcp-app' });
      expect((contents[0] as { text: string }).text).toContain('<title>Counter</title>');
      const added = await client.callTool({ name: 'add', arguments: { by: 2 } });
      expect(added.structuredContent).toEqual({ total: 2 });
    } finally {
      await client.close();
    }
  }, 300_000);
});
