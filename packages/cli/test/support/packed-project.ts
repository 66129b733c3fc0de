import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

/** packages/cli, resolved from this file (a root vitest run has the repo root as cwd). */
export const CLI_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const ARMATURE_BIN = join(CLI_ROOT, 'dist', 'bin', 'armature.js');

/**
 * The environment for the commands a generated project runs: no colours, no prompts, no outer
 * vitest, and no NODE_PATH (pnpm's bin shims set it to this workspace's hoisted node_modules, where
 * a user's project would find packages it does not install).
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(VITEST|TEST$|NODE_OPTIONS$|NODE_PATH$|npm_)/.test(key)) env[key] = value;
  }
  return { ...env, CI: 'true', FORCE_COLOR: '0', NO_COLOR: '1', ...extra };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command to its end (killed after `timeoutMs`), collecting its output. */
export function run(command: string, args: readonly string[], cwd: string, timeoutMs = 120_000, env = childEnv()): Promise<RunResult> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      fail(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** `node packages/cli/dist/bin/armature.js ...`: the built command, as users run it. */
export const armature = (args: readonly string[], cwd: string, timeoutMs?: number) =>
  run(process.execPath, [ARMATURE_BIN, ...args], cwd, timeoutMs);

/** A fresh temporary folder. */
export const tempDir = (prefix: string): string => realpathSync(mkdtempSync(join(tmpdir(), prefix)));

/** The packages a user's project installs, as `pnpm pack` publishes them (workspace ranges resolved). */
const PACKED = ['core', 'testing', 'console', 'cli', 'create-armature', 'nestjs', 'openapi'] as const;
export type PackedName = (typeof PACKED)[number];

let packed: Promise<Record<PackedName, string>> | undefined;

/** Packs the built workspace packages once per test run, into a folder removed when the process exits. */
export function packWorkspace(): Promise<Record<PackedName, string>> {
  packed ??= (async () => {
    const dir = tempDir('armature-packed-');
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const tarballs = {} as Record<PackedName, string>;
    for (const name of PACKED) {
      const folder = join(CLI_ROOT, '..', name);
      const result = await run('pnpm', ['pack', '--pack-destination', dir], folder, 60_000);
      const tarball = result.stdout.trim().split('\n').pop() ?? '';
      if (result.code !== 0 || !tarball.endsWith('.tgz'))
        throw new Error(`pnpm pack in ${folder} failed:\n${result.stdout}\n${result.stderr}`);
      tarballs[name] = tarball.startsWith('/') ? tarball : join(dir, tarball);
    }
    return tarballs;
  })();
  return packed;
}

/** A scaffold's `create-armature` bin, installed from its tarball as `npm create armature` would. */
export async function createArmatureBin(): Promise<string> {
  const tarballs = await packWorkspace();
  const dir = tempDir('armature-create-');
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const manifest = {
    private: true,
    dependencies: { 'create-armature': `file:${tarballs['create-armature']}` },
    overrides: { '@armature/cli': `file:${tarballs.cli}`, '@armature/console': `file:${tarballs.console}` },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await installOrThrow('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], dir);
  return join(dir, 'node_modules', 'create-armature', 'dist', 'create-armature.js');
}

async function installOrThrow(pm: string, args: string[], cwd: string): Promise<RunResult> {
  const result = await run(pm, args, cwd, 180_000);
  if (result.code !== 0) throw new Error(`${pm} ${args.join(' ')} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/**
 * Installs a generated project the way a user's install from the registry goes: the @armature
 * packages from their packed tarballs (nothing linked to this workspace), everything else from
 * the registry (npm's cache or pnpm's store first).
 */
export async function packedInstall(root: string, pm: 'npm' | 'pnpm'): Promise<RunResult> {
  const tarballs = await packWorkspace();
  const file = join(root, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  const local: Record<string, string> = {
    '@armature/core': `file:${tarballs.core}`,
    '@armature/testing': `file:${tarballs.testing}`,
    '@armature/cli': `file:${tarballs.cli}`,
    '@armature/nestjs': `file:${tarballs.nestjs}`,
    '@armature/openapi': `file:${tarballs.openapi}`,
  };
  for (const field of ['dependencies', 'devDependencies']) {
    for (const name of Object.keys(pkg[field] ?? {})) {
      if (local[name]) (pkg[field] as Record<string, string>)[name] = local[name];
    }
  }
  // The packages' own dependencies on each other (testing's peer on core, the CLI's on the
  // console) point at the tarballs too: they are not on the registry.
  const console_ = `file:${tarballs.console}`;
  if (pm === 'npm') {
    pkg.overrides = { '@armature/core': local['@armature/core'] as string, '@armature/console': console_ };
    writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
    return installOrThrow('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], root);
  }
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
  writeFileSync(
    join(root, 'pnpm-workspace.yaml'),
    `overrides:\n  "@armature/core": "${local['@armature/core']}"\n  "@armature/console": "${console_}"\n`,
  );
  return installOrThrow('pnpm', ['install', '--prefer-offline'], root);
}

/** Per-file results of a vitest JSON report: `file > test name` -> status. */
export function testStatuses(reportFile: string, root: string): Record<string, string> {
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
    testResults: Array<{ name: string; assertionResults: Array<{ fullName: string; status: string }> }>;
  };
  const statuses: Record<string, string> = {};
  for (const file of report.testResults) {
    const relative = file.name.slice(root.length + 1);
    for (const test of file.assertionResults) statuses[`${relative} > ${test.fullName}`] = test.status;
  }
  return statuses;
}

/** Runs the project's own `test` script with a JSON report, returning the run and every test's status. */
export async function projectTests(root: string, pm: 'npm' | 'pnpm', files: readonly string[] = [], timeoutMs = 180_000) {
  const reportDir = tempDir('armature-report-');
  const report = join(reportDir, 'report.json');
  const args = [...files, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`];
  const result = await run(pm, ['run', 'test', ...(pm === 'npm' ? ['--'] : []), ...args], root, timeoutMs);
  let statuses: Record<string, string> = {};
  try {
    statuses = testStatuses(report, root);
  } catch {
    // no report: the run failed before vitest wrote one; the caller sees the output
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
  return { ...result, statuses };
}

/** The `armature` bin the project installed (from the packed CLI), run inside the project. */
export const installedArmature = (root: string, args: readonly string[], timeoutMs?: number) =>
  run(join(root, 'node_modules', '.bin', 'armature'), args, root, timeoutMs);

/**
 * Runs `armature dev` (or any watcher) until it reports that the served entry exited, then stops it:
 * the entry's own output and the watcher's lines, for checks of what the entry was given.
 */
export async function devUntilEntryExits(
  command: string,
  args: readonly string[],
  cwd: string,
  env = childEnv(),
  timeoutMs = 30_000,
): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const closed = new Promise((done) => child.once('close', done));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const deadline = Date.now() + timeoutMs;
  while (!stderr.includes('the server exited') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  child.kill('SIGTERM');
  await closed;
  return { stdout, stderr };
}

/** Reads JSON-RPC lines from a child's stdout. */
export function jsonLines(child: ChildProcess): {
  next(predicate: (message: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
} {
  const messages: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  child.stdout?.on('data', (chunk) => {
    buffer += chunk;
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line !== '') {
        try {
          messages.push(JSON.parse(line));
        } catch {
          messages.push({ unparsed: line });
        }
      }
      newline = buffer.indexOf('\n');
    }
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    async next(predicate, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = messages.findIndex(predicate);
        if (index !== -1) return messages.splice(index, 1)[0] as Record<string, unknown>;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages)}`);
        await new Promise<void>((wake) => {
          const timer = setTimeout(wake, left);
          waiters.push(() => {
            clearTimeout(timer);
            wake();
          });
        });
      }
    },
  };
}

/**
 * Installed packages whose `engines.node` leaves out some Node version `declared` allows: what
 * npm and pnpm warn about (EBADENGINE, "Unsupported engine") on those versions. Reads npm's flat
 * node_modules and pnpm's store under node_modules/.pnpm.
 */
export function enginesOutside(root: string, declared: string): string[] {
  const found = new Set<string>();
  const visit = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry === '.bin') continue;
      if (entry === '.pnpm') {
        for (const stored of readdirSync(join(modules, entry))) visit(join(modules, entry, stored, 'node_modules'));
        continue;
      }
      const folders = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((name) => join(entry, name)) : [entry];
      for (const folder of folders) {
        const file = join(modules, folder, 'package.json');
        if (!existsSync(file)) continue;
        const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string; engines?: { node?: string } };
        const wants = pkg.engines?.node;
        if (wants && semver.validRange(wants) && !semver.subset(declared, wants))
          found.add(`${pkg.name}@${pkg.version} wants node ${wants}`);
        visit(join(modules, folder, 'node_modules'));
      }
    }
  };
  visit(join(root, 'node_modules'));
  return [...found].sort();
}
