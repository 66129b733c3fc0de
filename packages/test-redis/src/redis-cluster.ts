import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnRedisServer, stopRedisServer } from './redis-server.js';

/** Runs `redis-cli` with `args`, resolving with its output, or rejecting with it (bounded by `timeoutMs`). */
function redisCli(args: string[], timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-cli', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`redis-cli could not be started (${error.message}); run .ci/install-redis.sh`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`redis-cli ${args.join(' ')} exited with ${code}: ${output}`));
    });
  });
}

/** One master of the cluster: its client port and its cluster-bus port, both free on 127.0.0.1. */
interface Node {
  readonly port: number;
  readonly busPort: number;
  process?: ChildProcess;
}

/**
 * A real Redis Cluster of three masters (no replicas): three `redis-server --cluster-enabled yes`
 * (the same Debian binary as `RedisServer`) on free 127.0.0.1 ports, their cluster bus on free
 * ports too (`--cluster-port`, Redis 7.0), joined and given the 16,384 slots by
 * `redis-cli --cluster create`. As `RedisServer`, by default with an append-only file (fsync on every
 * write), so that `stop` then `start` brings the same cluster and data back (an outage, not a wipe);
 * `{ durable: false }` keeps the data in memory only. `dispose` stops every node and removes its files.
 */
export class RedisCluster {
  private readonly dir = mkdtempSync(join(tmpdir(), 'armature-redis-cluster-'));

  private constructor(
    private readonly nodes: Node[],
    private readonly durable: boolean,
  ) {}

  static async start(options: { masters?: number; durable?: boolean } = {}): Promise<RedisCluster> {
    const masters = options.masters ?? 3;
    const nodes: Node[] = [];
    // One at a time: freePort releases the port, so two calls at once could get the same one.
    for (let i = 0; i < masters; i++) nodes.push({ port: await freePort(), busPort: await freePort() });
    const cluster = new RedisCluster(nodes, options.durable ?? true);
    try {
      await Promise.all(nodes.map((node) => cluster.startNode(node)));
      await redisCli(['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes']);
      await cluster.untilOk();
    } catch (error) {
      await cluster.dispose();
      throw error;
    }
    return cluster;
  }

  /** The masters' addresses, as `redisState({ cluster })` takes them. */
  get addresses(): { host: string; port: number }[] {
    return this.nodes.map((node) => ({ host: '127.0.0.1', port: node.port }));
  }

  /** The same, as `host:port` text (one environment variable for a child process). */
  get spec(): string {
    return this.addresses.map((node) => `${node.host}:${node.port}`).join(',');
  }

  private async startNode(node: Node): Promise<void> {
    const args = [
      '--port',
      String(node.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--cluster-enabled',
      'yes',
      '--cluster-port',
      String(node.busPort),
      '--cluster-config-file',
      `nodes-${node.port}.conf`,
      '--cluster-node-timeout',
      '5000',
      '--save',
      '',
      ...(this.durable
        ? [
            '--appendonly',
            'yes',
            '--appendfsync',
            'always',
            '--appendfilename',
            `appendonly-${node.port}.aof`,
            '--appenddirname',
            `aof-${node.port}`,
          ]
        : ['--appendonly', 'no']),
    ];
    node.process = await spawnRedisServer(args);
  }

  /** Waits (20 s at most) until every node says the cluster is ok (all slots served, gossip settled). */
  private async untilOk(): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const states = await Promise.all(this.nodes.map((node) => redisCli(['-p', String(node.port), 'cluster', 'info'], 5_000)));
      if (states.every((info) => info.includes('cluster_state:ok'))) return;
      if (Date.now() > deadline) throw new Error(`the redis cluster did not become ok within 20 s: ${states.join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Stops every node (SIGTERM): the whole cluster is away, as in an outage. */
  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map((node) => {
        const child = node.process;
        node.process = undefined;
        return stopRedisServer(child);
      }),
    );
  }

  /** Starts the stopped nodes again from their files (the same slots, and the data if durable), once the cluster is ok. */
  async restart(): Promise<void> {
    await Promise.all(this.nodes.map((node) => this.startNode(node)));
    await this.untilOk();
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
