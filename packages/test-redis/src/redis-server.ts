import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopsWithProcess } from './stops-with-process.js';

/** A free TCP port on 127.0.0.1 (bound, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts `redis-server` with `args`, resolving once it accepts connections (10 s at most). */
export async function spawnRedisServer(args: string[]): Promise<ChildProcess> {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  stopsWithProcess(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start within 10 s')), 10_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`redis-server could not be started (${error.message}); run .ci/install-redis.sh`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return child;
}

/** Stops a redis-server started by `spawnRedisServer` (SIGTERM), if it still runs. */
export async function stopRedisServer(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/**
 * A real redis-server (Debian's `redis-server`; `.ci/install-redis.sh` installs it) on a free
 * 127.0.0.1 port. By default with an append-only file (fsync on every write) in a temporary
 * directory, so that `stop` then `start` brings the same data back (an outage, not a wipe);
 * `{ durable: false }` keeps the data in memory only (the benchmark: no disk in the figures).
 */
export class RedisServer {
  private process?: ChildProcess;
  private readonly dir = mkdtempSync(join(tmpdir(), 'armature-redis-'));

  private constructor(
    readonly port: number,
    private readonly durable: boolean,
  ) {}

  /** Whether `redis-server` is on the PATH (callers that can do without it skip, and say so). */
  static installed(): boolean {
    return spawnSync('redis-server', ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  }

  static async start(options: { durable?: boolean } = {}): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), options.durable ?? true);
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      ...(this.durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
    ];
    this.process = await spawnRedisServer(args);
  }

  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    await stopRedisServer(child);
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
