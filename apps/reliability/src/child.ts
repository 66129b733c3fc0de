// Spawning and owning server child processes. Every child is registered here and killed by
// `killAll()` (called from the script's `finally` and on exit), whatever happened.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ControlCommand, ControlReply, ReadyMessage } from './server/protocol.js';

const SERVER = fileURLToPath(new URL('./server.js', import.meta.url));
const live = new Set<ServerProcess>();

export interface StartOptions {
  /** What the leg of a figure talks to; the process itself serves both when servers are shared. */
  transport: 'http' | 'stdio' | 'both';
  /** createMcpApp's handler timeout (figure 4). */
  timeoutMs?: number;
  /** maxRequestBodySize (HTTP) or maxMessageBytes (stdio). */
  maxBody?: number;
  /** More listenHttp options (caps, `eventStore: true`), as JSON (figure 9). */
  httpOptions?: Record<string, unknown>;
}

export class ServerProcess {
  readonly url?: string;
  exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private stderrTail = '';
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();

  private constructor(
    readonly child: ChildProcess,
    ready: ReadyMessage,
  ) {
    this.url = ready.url;
  }

  /** Starts a server and waits (at most 15 s) until it reports that it is listening. */
  static start(options: StartOptions): Promise<ServerProcess> {
    const args = ['--expose-gc', SERVER, '--transport', options.transport];
    if (options.timeoutMs !== undefined) args.push('--timeout-ms', String(options.timeoutMs));
    if (options.maxBody !== undefined) args.push('--max-body', String(options.maxBody));
    if (options.httpOptions !== undefined) args.push('--http-options', JSON.stringify(options.httpOptions));
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe', 'ipc'] });
    let stderr = '';
    const onStderr = (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-8192);
    };
    child.stderr?.on('data', onStderr);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the ${options.transport} server did not start within 15 s: ${stderr}`));
      }, 15_000);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the ${options.transport} server exited before it was ready (code ${code}, signal ${signal}): ${stderr}`));
      });
      child.once('message', (message: ReadyMessage) => {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        const server = new ServerProcess(child, message);
        server.stderrTail = stderr;
        child.stderr?.off('data', onStderr);
        child.stderr?.on('data', (chunk: Buffer) => {
          server.stderrTail = (server.stderrTail + chunk.toString('utf8')).slice(-8192);
        });
        child.on('message', (reply: ControlReply) => server.onReply(reply));
        child.on('exit', (code, signal) => {
          server.exit = { code, signal };
          for (const waiter of server.pending.values()) {
            clearTimeout(waiter.timer);
            waiter.reject(new Error(`the server exited (code ${code}, signal ${signal})`));
          }
          server.pending.clear();
          live.delete(server);
        });
        live.add(server);
        resolve(server);
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exit === null;
  }

  /** The last 8 KiB the server wrote to stderr. */
  get stderr(): string {
    return this.stderrTail;
  }

  /** One control command over IPC, answered within `timeoutMs`. */
  ask<T>(command: ControlCommand, timeoutMs = 30_000): Promise<T> {
    if (!this.alive) return Promise.reject(new Error('the server is not running'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`control command ${command.cmd} got no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.child.send({ ...command, id });
    });
  }

  private onReply(reply: ControlReply): void {
    const waiter = this.pending.get(reply.reply);
    if (!waiter) return;
    this.pending.delete(reply.reply);
    clearTimeout(waiter.timer);
    if (reply.ok) waiter.resolve(reply.data);
    else waiter.reject(new Error(reply.error));
  }

  /** Kills the process (SIGKILL) and waits for it to be gone, at most 5 s. */
  async kill(): Promise<void> {
    if (!this.alive) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    await Promise.race([gone, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  }
}

let shared: Map<string, ServerProcess> | undefined;

/**
 * Runs `work` with servers shared between its legs: a `withServer` call inside reuses a process
 * started with the same options (it serves HTTP and stdio at once) instead of starting another.
 * Every process is killed when `work` ends. Starting a server costs ~0.5-2 s, twice per figure.
 */
export async function sharingServers<T>(work: () => Promise<T>): Promise<T> {
  shared = new Map();
  try {
    return await work();
  } finally {
    const servers = [...shared.values()];
    shared = undefined;
    await Promise.all(servers.map((server) => server.kill()));
  }
}

/** Starts a server (or reuses the shared one), runs `work` with it, and kills what it started. */
export async function withServer<T>(options: StartOptions, work: (server: ServerProcess) => Promise<T>): Promise<T> {
  if (shared) {
    const key = JSON.stringify({ timeoutMs: options.timeoutMs, maxBody: options.maxBody, httpOptions: options.httpOptions });
    let server = shared.get(key);
    if (!server?.alive) {
      server = await ServerProcess.start({ ...options, transport: 'both' });
      shared.set(key, server);
    }
    return work(server);
  }
  const server = await ServerProcess.start(options);
  try {
    return await work(server);
  } finally {
    await server.kill();
  }
}

export async function killAll(): Promise<void> {
  await Promise.all([...live].map((server) => server.kill()));
}

/** Synchronous last resort for `process.on('exit')`. */
export function killAllNow(): void {
  for (const server of live) {
    try {
      server.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}
