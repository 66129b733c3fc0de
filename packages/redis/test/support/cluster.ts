import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type RedisServer, RoundRobinProxy, type Instance as Upstream } from '@armature/test-redis';
import { afterAll, beforeAll } from 'vitest';
import { type RedisEnv, startTestRedis, type TestRedis } from './topology.js';

/** The multi-instance test app; the tasks test starts its own (`fixtures/task-instance.mjs`). */
export const SHOP_FIXTURE = fileURLToPath(new URL('../fixtures/instance.mjs', import.meta.url));

/** One instance of the test app: a real Node process. */
export interface Instance extends Upstream {
  readonly process: ChildProcess;
}

export async function startInstance(
  name: string,
  redis: RedisEnv,
  env: Record<string, string> = {},
  fixture: string = SHOP_FIXTURE,
): Promise<Instance> {
  const child = spawn(process.execPath, [fixture], {
    env: { ...process.env, ...env, INSTANCE: name, ...redis },
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

/** What a test file works with: its instances and the proxy in front of them. */
export interface Cluster {
  /** The one redis-server (not on the cluster project: a test stopping Redis runs on one Redis only). */
  readonly redis: RedisServer;
  readonly instances: Instance[];
  readonly proxy: RoundRobinProxy & { url: URL };
}

/**
 * Starts a redis-server (or, on the cluster project, a three-master Redis Cluster), one instance per
 * name (sharing it) and the round-robin proxy before the file's tests, and stops them all after.
 */
export function useCluster(names: readonly string[], options: { env?: Record<string, string>; fixture?: string } = {}): Cluster {
  let redis: TestRedis | undefined;
  const cluster = {
    get redis(): RedisServer {
      if (!redis?.server) throw new Error('this test stops or reads one redis-server: leave it out of the cluster project');
      return redis.server;
    },
    instances: [] as Instance[],
    proxy: undefined as unknown as RoundRobinProxy & { url: URL },
  };
  beforeAll(async () => {
    redis = await startTestRedis();
    const env = redis.env;
    cluster.instances = await Promise.all(names.map((name) => startInstance(name, env, options.env, options.fixture)));
    cluster.proxy = await RoundRobinProxy.start(cluster.instances);
  });
  afterAll(async () => {
    await cluster.proxy?.close();
    await Promise.all(cluster.instances.map((instance) => stopInstance(instance)));
    await redis?.dispose();
  });
  return cluster;
}
