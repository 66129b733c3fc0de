import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Instance as Upstream } from '@armature/test-redis';

/** The multi-instance test app; the tasks test starts its own (`fixtures/task-instance.mjs`). */
export const SHOP_FIXTURE = fileURLToPath(new URL('../fixtures/instance.mjs', import.meta.url));

/** One instance of the test app: a real Node process. */
export interface Instance extends Upstream {
  readonly process: ChildProcess;
}

export async function startInstance(
  name: string,
  redisUrl: string,
  env: Record<string, string> = {},
  fixture: string = SHOP_FIXTURE,
): Promise<Instance> {
  const child = spawn(process.execPath, [fixture], {
    env: { ...process.env, ...env, INSTANCE: name, REDIS_URL: redisUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance ${name} did not start within 45 s: ${stderr}`)), 45_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /listening (\S+)/.exec(chunk.toString());
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`instance ${name} exited with ${code}: ${stderr}`));
    });
  });
  return { name, url: new URL(url), process: child };
}

export async function stopInstance(instance: Instance, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const child = instance.process;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
