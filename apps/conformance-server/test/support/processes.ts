import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built server; tests run the JavaScript build, never the TypeScript sources. */
export const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(MAIN)) {
    throw new Error(`${MAIN} is missing: build first (pnpm --filter @armature/conformance-server build, or the root pnpm test)`);
  }
}

const started = new Set<ChildProcess>();

/** Kills every process these helpers started that is still running (for afterAll). */
export function killStarted(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  started.clear();
}

export interface HttpServer {
  readonly url: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Starts `node dist/main.js` on a free port (PORT=0), with `env` added, and waits for the URL line it prints. */
export function startHttpServer(timeoutMs = 15_000, env: Record<string, string> = {}): Promise<HttpServer> {
  assertBuilt();
  return startServerProcess([process.execPath, MAIN], { timeoutMs, env });
}

/**
 * Starts `argv` (any runtime running any entry) on a free port (PORT=0), with `env` added, and
 * waits for the `MCP endpoint at URL` line it prints on stdout or stderr.
 */
export async function startServerProcess(
  argv: readonly [string, ...string[]],
  { timeoutMs = 15_000, env = {} }: { timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<HttpServer> {
  const [file, ...args] = argv;
  const child = spawn(file, args, { env: { ...process.env, ...env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${argv.join(' ')} printed no URL within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      const match = /MCP endpoint at (http:\/\/\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${argv.join(' ')} exited with ${code} before listening:\n${out}`));
    });
  });
  return {
    url,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
      started.delete(child);
    },
  };
}
