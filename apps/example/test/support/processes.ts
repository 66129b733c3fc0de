import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

// Paths from this file, not the cwd: a root `vitest run` runs with the repo root as cwd.
export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Fails with the command to run when `dist/` is missing or older than `src/`. */
export function assertBuilt(): void {
  const hint = 'Build it first: cd /path/to/repo && pnpm turbo run build --filter=@armature/example...';
  let built: number;
  try {
    built = statSync(MAIN).mtimeMs;
  } catch {
    throw new Error(`${MAIN} does not exist. ${hint}`);
  }
  const stale = readdirSync(SRC).filter((file) => statSync(SRC + file).mtimeMs > built);
  if (stale.length > 0) throw new Error(`dist/ is older than src/ (${stale.join(', ')}). ${hint}`);
}

const started = new Set<ChildProcess>();
const startedPids = new Set<number>();

/** Remembers a process started by the SDK's stdio transport, so `killStarted` can end it. */
export function trackPid(pid: number | null | undefined): void {
  if (pid) startedPids.add(pid);
}

/** Kills every process these tests started that is still running (afterAll safety net). */
export function killStarted(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started.clear();
  for (const pid of startedPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone: the transport closed it
    }
  }
  startedPids.clear();
}

/** Spawns `node dist/main.js ...args` with piped stdio; always killed by `killStarted`. */
export function spawnExample(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  started.add(child);
  return child;
}

/** Everything a stream has produced so far, as one string that keeps growing. */
export function capture(stream: Readable | null | undefined): { text(): string } {
  let text = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    text += chunk;
  });
  return { text: () => text };
}

export function waitForExit(child: ChildProcess, timeoutMs: number): Promise<number | string> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode ?? (child.signalCode as string));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`process ${child.pid} did not exit within ${timeoutMs} ms`)), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal as string));
    });
  });
}

export interface HttpExample {
  url: string;
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts the built server over HTTP on a free port (PORT=0) and reads its URL from stdout. */
export async function startHttpExample(timeoutMs = 10_000): Promise<HttpExample> {
  const child = spawnExample([], { PORT: '0' });
  const stdout = capture(child.stdout);
  const stderr = capture(child.stderr);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL on stdout within ${timeoutMs} ms; stderr: ${stderr.text()}`)), timeoutMs);
    const look = () => {
      const found = /MCP endpoint at (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(stdout.text());
      if (!found?.[1]) return;
      clearTimeout(timer);
      child.stdout?.off('data', look);
      resolve(found[1]);
    };
    child.stdout?.on('data', look);
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before listening; stderr: ${stderr.text()}`)));
  });
  return {
    url,
    stdout: stdout.text,
    stderr: stderr.text,
    async stop() {
      child.kill('SIGTERM');
      await waitForExit(child, 5_000);
    },
  };
}

const inspectorPackage = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector-cli/package.json');
const INSPECTOR = `${dirname(inspectorPackage)}/build/index.js`;

/**
 * Runs the official MCP Inspector CLI (`node build/index.js ...args`) and parses the JSON it prints.
 * Its cwd is the package's build folder: inspector-cli 1.0.3 looks for `../package.json` relative to
 * the cwd but imports it relative to its own file, and fails from anywhere else.
 */
export function runInspector(args: string[], timeoutMs = 20_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [INSPECTOR, ...args], { cwd: dirname(INSPECTOR), timeout: timeoutMs }, (error, stdout, stderr) => {
      if (error) reject(new Error(`inspector ${args.join(' ')} failed: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout));
    });
  });
}
