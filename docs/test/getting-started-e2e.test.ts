import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  childEnv,
  createArmatureBin,
  packedInstall,
  packWorkspace,
  type RunResult,
  run,
  tempDir,
} from '../../packages/cli/test/support/packed-project.js';
import { connectOverStdio } from '../examples/getting-started/test/connect.js';
import { DOCS_ROOT, scanPage } from './support/markdown-includes.js';

// docs/getting-started.md followed as a reader would: in an empty folder, every shell block run as
// written and every file pasted from the page itself (not from the example it was included from).
// The only change: @armature packages are not on the registry, so `npm create armature@latest`
// runs the packed create-armature and `@armature/core@<version>` installs the packed tarball.

const PAGE = readFileSync(join(DOCS_ROOT, 'getting-started.md'), 'utf8');
const EXAMPLE = 'examples/getting-started/';

/** The page's ```bash blocks, in order, each as the lines a shell runs (`\` continuations joined). */
function shellBlocks(): string[][] {
  return [...PAGE.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) =>
    (m[1] as string)
      .replace(/\\\n\s*/g, '')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

/** The block whose first line starts with `first`. */
function block(first: string): string[] {
  const found = shellBlocks().find((lines) => lines[0]?.startsWith(first));
  if (!found) throw new Error(`getting-started.md has no bash block starting with ${first}`);
  return found;
}

const children: ChildProcess[] = [];

/** Runs shell lines as one script (`set -e`: the first failing line fails it), stdin closed. */
function sh(lines: readonly string[], cwd: string, timeoutMs = 240_000): Promise<RunResult> {
  return run('sh', ['-c', `set -e\n${lines.join('\n')}`], cwd, timeoutMs, childEnv({ npm_config_yes: 'true' }));
}

function waitForEndpoint(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) resolve(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${seen}`)));
  });
}

let base: string;

beforeAll(() => {
  base = tempDir('armature-getting-started-');
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill();
  if (base) rmSync(base, { recursive: true, force: true });
});

describe.sequential('the one-command start', () => {
  it('runs as written', async () => {
    const lines = block('npm create armature@latest');
    expect(lines[0]).toBe('npm create armature@latest my-server');
    const create = await createArmatureBin();
    // The packed create-armature, told not to install (its @armature ranges are not on the registry);
    // the install from the tarballs follows, then the page's other lines run as written.
    const created = await run(process.execPath, [create, 'my-server', '--no-install'], base);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    await packedInstall(join(base, 'my-server'), 'npm');
    const rest = await sh(lines.slice(1), base);
    expect(rest.code, rest.stdout + rest.stderr).toBe(0);
    expect(rest.stdout).toMatch(/Tests\s+\d+ passed/);
  }, 600_000);
});

describe.sequential('the project by hand', () => {
  let root: string;

  it('installs as written, and package.json holds what the page shows', async () => {
    const tarballs = await packWorkspace();
    const lines = block('mkdir greeter');
    const core = lines.find((line) => / @armature\/core@\S+/.test(line));
    expect(core, 'the page installs @armature/core at an exact version').toBeDefined();
    const result = await sh(
      lines.map((line) => line.replace(/ @armature\/core@\S+/, ` ${tarballs.core}`)),
      base,
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    root = join(base, 'greeter');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const shown = scanPage('getting-started.md').markers.find((m) => m.file === `${EXAMPLE}package.json`);
    const expected = JSON.parse(shown?.body ?? '{}');
    const corePackage = JSON.parse(readFileSync(join(DOCS_ROOT, '..', 'packages', 'core', 'package.json'), 'utf8'));
    expect(expected.dependencies['@armature/core'], 'the page pins the version being released').toBe(corePackage.version);
    expect(expected.devDependencies['@types/node'], '@types/node matches Node 20').toMatch(/^20\./);
    expected.dependencies['@armature/core'] = expect.stringMatching(/^file:.*armature-core-.*\.tgz$/);
    expect(pkg).toMatchObject(expected);
  }, 300_000);

  it('builds the files pasted from the page, and keeps tests out of dist/', async () => {
    const files = scanPage('getting-started.md').markers.filter(
      // Whole files (the client's regions of test/connect.ts are snippets, not files of the project).
      (m) => m.kind === 'include' && m.key === undefined && m.file.startsWith(EXAMPLE) && !m.file.endsWith('package.json'),
    );
    expect(files.map((m) => m.file.slice(EXAMPLE.length)).sort()).toEqual(['src/greeter.ts', 'src/main.ts', 'tsconfig.json']);
    for (const file of files) {
      const path = join(root, file.file.slice(EXAMPLE.length));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, `${file.body}\n`);
    }
    // A reader's test beside the sources must stay out of dist/.
    writeFileSync(
      join(root, 'src', 'greeter.test.ts'),
      "import { GreetInput } from './greeter.js';\nexport const input = new GreetInput();\n",
    );

    const build = await sh(['npm run build'], root, 120_000);
    expect(build.code, build.stdout + build.stderr).toBe(0);
    expect(readdirSync(join(root, 'dist')).sort()).toEqual(['greeter.js', 'greeter.js.map', 'main.js', 'main.js.map']);
  }, 180_000);

  it('serves over stdio with `npm start` and `node dist/main.js`, and over HTTP with --http', async () => {
    const lines = block('npm run build');
    expect(lines).toEqual([
      'npm run build',
      expect.stringMatching(/^npm start\s+#/),
      expect.stringMatching(/^node dist\/main\.js --http\s+#/),
    ]);
    // `npm start` with stdin closed: the stdio server starts, sees the client gone, and exits cleanly.
    const start = await sh([lines[1] as string], root, 60_000);
    expect(start.code, start.stdout + start.stderr).toBe(0);

    const client = await connectOverStdio(join(root, 'dist', 'main.js'));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['greet', 'greet_person']);
      expect(await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })).toEqual({
        content: [{ type: 'text', text: 'Hello, Ada!' }],
      });
    } finally {
      await client.close();
    }

    // The --http line as a shell runs it; only PORT=0 picks a free port instead of 3000.
    const server = spawn('sh', ['-c', lines[2] as string], {
      cwd: root,
      env: childEnv({ PORT: '0' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(server);
    const url = await waitForEndpoint(server, /greeter: MCP endpoint at (\S+)/);
    const http = new Client({ name: 'e2e', version: '1.0.0' });
    await http.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect(await http.callTool({ name: 'greet', arguments: { name: 'Ada', language: 'it' } })).toEqual({
        content: [{ type: 'text', text: 'Ciao, Ada!' }],
      });
    } finally {
      await http.close();
      server.kill();
    }
  }, 120_000);

  it('answers the Inspector CLI commands of the page as written, a nested DTO included', async () => {
    const commands = block('npx @modelcontextprotocol/inspector');
    expect(commands).toHaveLength(4);
    const results: unknown[] = [];
    // The first run installs the pinned Inspector into npm's cache (bounded); the others reuse it.
    for (const command of commands.filter((c) => !c.includes('--transport http'))) {
      const result = await sh([command], root, results.length === 0 ? 240_000 : 60_000);
      expect(result.code, `${command}\n${result.stderr}`).toBe(0);
      results.push(JSON.parse(result.stdout));
    }
    expect((results[0] as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['greet', 'greet_person']);
    expect((results[1] as { content: unknown }).content).toEqual([{ type: 'text', text: 'Ciao, Ada!' }]);
    expect((results[2] as { content: unknown }).content).toEqual([{ type: 'text', text: 'Hello, Ada Lovelace!' }]);

    // The HTTP line, against the server started as the comment says; only the port is the free one
    // this run got instead of 3000.
    const server = spawn(process.execPath, ['dist/main.js', '--http'], {
      cwd: root,
      env: childEnv({ PORT: '0' }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(server);
    const url = await waitForEndpoint(server, /greeter: MCP endpoint at (\S+)/);
    const http = commands.find((c) => c.includes('--transport http')) as string;
    const result = await sh([http.replace('http://127.0.0.1:3000/mcp', url)], root, 60_000);
    server.kill();
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(['greet', 'greet_person']);
  }, 400_000);

  it('covers every shell block of the page', () => {
    const covered = ['npm create armature@latest', 'mkdir greeter', 'npm run build', 'npx @modelcontextprotocol/inspector'];
    expect(shellBlocks().map((lines) => covered.find((first) => lines[0]?.startsWith(first)) ?? lines[0])).toEqual(covered);
    expect(existsSync(join(root, 'node_modules', '@armature', 'core'))).toBe(true);
  });
});
