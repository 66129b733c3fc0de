import { cpSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARMATURE_BIN, armature, CLI_ROOT, devUntilEntryExits, run, tempDir } from './support/packed-project.js';

// The dual-instance setup of a project installed from the registry: @armature/core is a real
// package under node_modules (so vite-node leaves it to Node, which loads the CommonJS builds of
// typedi, class-transformer and class-validator) while the user's files are run by vite-node. The
// workspace's `link:` install hid this: a linked core resolves outside node_modules and is inlined.
const CORE_ROOT = join(CLI_ROOT, '..', 'core');

const APP = `import 'reflect-metadata';
import { createMcpApp, Field, McpServer, Tool } from '@armature/core';
import { Type } from 'class-transformer';
import { IsString, ValidateNested } from 'class-validator';
import { Service } from 'typedi';

@Service()
export class GreetingService {
  greet(name: string) {
    return \`Hello, \${name}!\`;
  }
}

export class Person {
  @Field({ description: 'Who' })
  @IsString()
  name!: string;
}

export class GreetInput {
  @Field({ description: 'The person' })
  @ValidateNested()
  @Type(() => Person)
  person!: Person;
}

@McpServer({ name: 'split-check', version: '1.0.0' })
export class GreetServer {
  constructor(private readonly greetings: GreetingService) {}

  @Tool({ description: 'Greets a person.' })
  greet(input: GreetInput) {
    return this.greetings.greet(input.person.name);
  }
}

export const servers = [GreetServer];
export function createApp() {
  return createMcpApp(servers);
}
`;

function link(root: string, name: string, from: string): void {
  const target = join(root, 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  symlinkSync(realpathSync(join(from, 'node_modules', name)), target);
}

describe('a project whose @armature/core is installed as a package', () => {
  let root: string;

  beforeAll(() => {
    root = tempDir('armature-split-');
    writeFileSync(
      join(root, 'package.json'),
      '{ "name": "split-check", "private": true, "type": "module", "dependencies": { "@armature/core": "0.1.0" } }\n',
    );
    writeFileSync(
      join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          experimentalDecorators: true,
          emitDecoratorMetadata: true,
          useDefineForClassFields: false,
        },
        include: ['src', '*.ts'],
      }),
    );
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src/app.ts'), APP);
    // A copy, not a link: the real path must sit under node_modules, as after npm install.
    const core = join(root, 'node_modules/@armature/core');
    cpSync(join(CORE_ROOT, 'dist'), join(core, 'dist'), { recursive: true });
    cpSync(join(CORE_ROOT, 'package.json'), join(core, 'package.json'));
    // Core's own dependencies, as its package.json names them; the DTO libraries come from the CLI's.
    const manifest = JSON.parse(readFileSync(join(CORE_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const name of Object.keys(manifest.dependencies)) link(root, name, CORE_ROOT);
    for (const name of ['typedi', 'class-transformer', 'class-validator', 'vite', 'vite-node']) link(root, name, CLI_ROOT);
  });

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('splits the dependencies under plain vite-node, and core says so at start-up', async () => {
    writeFileSync(join(root, 'start.ts'), "import { createApp } from './src/app.js';\nawait createApp().close();\n");
    const viteNode = join(root, 'node_modules/vite-node/dist/cli.mjs');
    const result = await run(process.execPath, [viteNode, 'start.ts'], root, 60_000);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('McpApp: your classes and @armature/core see different copies of their dependencies.');
    expect(result.stderr).toContain('Fix: Load typedi, class-transformer and class-validator once, the way Node resolves them');
  }, 60_000);

  it('armature inspect sees one typedi container and one @Type store', async () => {
    expect(ARMATURE_BIN).toBeTruthy();
    const result = await armature(['inspect', '--format', 'json'], root, 60_000);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const catalogue = JSON.parse(result.stdout) as { tools: Array<{ name: string; inputSchema: unknown }> };
    expect(catalogue.tools.map((tool) => tool.name)).toEqual(['greet']);
    expect(JSON.stringify(catalogue.tools[0]?.inputSchema)).toContain('"name"');
  }, 60_000);

  it('armature inspect --snapshot records the contract and --check fails on a breaking change only', async () => {
    const snapshot = await armature(['inspect', '--snapshot', 'mcp-contract.json'], root, 60_000);
    expect(snapshot.code, snapshot.stdout + snapshot.stderr).toBe(0);
    expect(snapshot.stdout).toContain('wrote mcp-contract.json (1 tool(s)');
    const contract = JSON.parse(readFileSync(join(root, 'mcp-contract.json'), 'utf8')) as { tools: Record<string, unknown> };
    expect(Object.keys(contract.tools)).toEqual(['greet']);

    const same = await armature(['inspect', '--check', 'mcp-contract.json'], root, 60_000);
    expect(same.code, same.stdout + same.stderr).toBe(0);
    expect(same.stdout).toBe('armature inspect --check mcp-contract.json: the contract is unchanged\n');

    // A new required argument (breaking) and a new tool (compatible).
    const changed = APP.replace(
      '  person!: Person;\n',
      "  person!: Person;\n\n  @Field({ description: 'How' })\n  @IsString()\n  tone!: string;\n",
    ).replace(
      "  @Tool({ description: 'Greets a person.' })",
      "  @Tool({ description: 'Says bye.' })\n  bye() {\n    return 'Bye';\n  }\n\n  @Tool({ description: 'Greets a person.' })",
    );
    writeFileSync(join(root, 'src/app.ts'), changed);
    try {
      const broken = await armature(['inspect', '--check', 'mcp-contract.json'], root, 60_000);
      expect(broken.code, broken.stdout + broken.stderr).toBe(1);
      expect(broken.stdout.split('\n').slice(0, 2)).toEqual([
        'breaking    tool greet: new required argument tone',
        'compatible  tool bye: new',
      ]);
    } finally {
      writeFileSync(join(root, 'src/app.ts'), APP);
    }
    const missing = await armature(['inspect', '--check', 'none.json', '--if-present'], root, 60_000);
    expect(missing.code).toBe(0);
    expect(missing.stdout).toContain('no snapshot yet');
  }, 120_000);

  it('armature inspect --format server-json writes a registry entry that validates, or names what is missing', async () => {
    const missing = await armature(['inspect', '--format', 'server-json'], root, 60_000);
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain('package.json has no "mcpName"');
    const manifest = join(root, 'package.json');
    const before = readFileSync(manifest, 'utf8');
    const pkg = JSON.parse(before) as Record<string, unknown>;
    writeFileSync(
      manifest,
      JSON.stringify({
        ...pkg,
        name: '@acme/split-check',
        version: '1.0.0',
        description: 'Greets people',
        mcpName: 'io.github.acme/split-check',
        repository: 'github:acme/split-check',
      }),
    );
    try {
      const result = await armature(['inspect', '--format', 'server-json'], root, 60_000);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        name: 'io.github.acme/split-check',
        version: '1.0.0',
        packages: [{ registryType: 'npm', identifier: '@acme/split-check', version: '1.0.0', transport: { type: 'stdio' } }],
      });
    } finally {
      writeFileSync(manifest, before);
    }
  }, 120_000);

  it('armature dev passes the arguments after -- to the entry, which serves with the one container', async () => {
    writeFileSync(
      join(root, 'start.ts'),
      "import { createApp } from './src/app.js';\nconst app = createApp();\nconsole.log(JSON.stringify(process.argv.slice(2)));\nawait app.close();\nprocess.exit(0);\n",
    );
    const { stdout, stderr } = await devUntilEntryExits(
      process.execPath,
      [ARMATURE_BIN, 'dev', 'start.ts', '--', '--http', '--port', '3001'],
      root,
      process.env,
    );
    expect(stderr).toContain('the server exited (code 0)');
    expect(stdout.trim()).toBe('["--http","--port","3001"]');
  }, 60_000);
});
