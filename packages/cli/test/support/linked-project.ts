import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** packages/cli, resolved from this file (a root vitest run has the repo root as cwd). */
export const CLI_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const ARMATURE_BIN = join(CLI_ROOT, 'dist', 'bin', 'armature.js');

/** The environment for the commands a generated project runs: no colours, no prompts, no outer vitest. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(VITEST|TEST$|NODE_OPTIONS$|npm_)/.test(key)) env[key] = value;
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

/**
 * Points every dependency of a generated project at the copy this workspace installed (the
 * `@armature/*` packages at their workspace folders), as `link:` specifiers, then installs with
 * `pnpm install --offline`: no registry, no store, no network, well under a second.
 */
export async function linkInstall(root: string): Promise<void> {
  const file = join(root, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  for (const field of ['dependencies', 'devDependencies']) {
    for (const name of Object.keys(pkg[field] ?? {})) {
      const target = name === '@armature/cli' ? CLI_ROOT : realpathSync(join(CLI_ROOT, 'node_modules', name));
      (pkg[field] as Record<string, string>)[name] = `link:${target}`;
    }
  }
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
  const install = await run('pnpm', ['install', '--offline', '--ignore-workspace'], root, 60_000);
  if (install.code !== 0) throw new Error(`pnpm install --offline failed:\n${install.stdout}\n${install.stderr}`);
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
export async function projectTests(root: string, files: readonly string[] = [], timeoutMs = 180_000) {
  const reportDir = tempDir('armature-report-');
  const report = join(reportDir, 'report.json');
  const result = await run(
    'pnpm',
    ['run', 'test', ...files, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    root,
    timeoutMs,
  );
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
