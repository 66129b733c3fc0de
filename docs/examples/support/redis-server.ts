import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** Debian's redis-server (installed by .ci/install-redis.sh) on a free 127.0.0.1 port, in memory only. */
export async function startRedis(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  await new Promise<void>((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`redis-server could not start (${error.message}); run .ci/install-redis.sh`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Ready to accept connections')) resolve();
    });
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
