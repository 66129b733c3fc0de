import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A bench run cut off by a timeout (SIGTERM, as bench-quick.test.ts's spawnSync sends) used to
// leave its servers listening: Node ends at once on SIGTERM and runs no exit hook. The fixture
// starts what a run starts, then is sent SIGTERM; everything it started must be gone.

const FIXTURE = fileURLToPath(new URL('./fixtures/cut-off-run.mjs', import.meta.url));

/** Whether process `pid` still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether something accepts connections at `url`'s port on 127.0.0.1. */
function listening(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(url).port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('a bench command cut off by SIGTERM', () => {
  it('exits through its exit hook and stops the servers and the redis-server it started', async () => {
    const run = spawn(process.execPath, [FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'] });
    const started = await new Promise<{ pids: number[]; redis?: string }>((resolve, reject) => {
      let out = '';
      run.stdout.setEncoding('utf8');
      run.stdout.on('data', (chunk: string) => {
        out += chunk;
        if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
      });
      run.once('exit', (code) => reject(new Error(`the fixture exited (${code}) before it started its servers`)));
    });
    try {
      expect(started.pids.every(alive)).toBe(true);
      if (started.redis) expect(await listening(started.redis)).toBe(true);
      const exited = new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));
      run.kill('SIGTERM');
      expect(await exited).toBe(143);
      // The exit hook signals them; they need a moment to go.
      await expect.poll(() => started.pids.filter(alive), { timeout: 10_000, interval: 100 }).toEqual([]);
      if (started.redis) await expect.poll(() => listening(started.redis as string), { timeout: 10_000, interval: 100 }).toBe(false);
    } finally {
      for (const pid of started.pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
      if (run.exitCode === null) run.kill('SIGKILL');
    }
  }, 60_000);
});
