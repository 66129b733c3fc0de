import { ArmatureBuildError, createMcpApp } from '@armature/core';
import { redisState } from '@armature/redis';
import { RedisCluster } from '@armature/test-redis';
import { type Instance, NotesServer, renameTwice, roundRobinClient } from './scale-out.js';
import { expectEqual } from './support/check.js';

// #region cluster
/** One instance on a Redis Cluster: give it some of the cluster's nodes, ioredis finds the others. */
async function instance(nodes: { host: string; port: number }[]): Promise<Instance> {
  const app = createMcpApp(NotesServer, {
    // e.g. [{ host: 'redis-1', port: 6379 }, { host: 'redis-2', port: 6379 }],
    // or URLs: ['rediss://user:password@redis-1:6379'] (TLS, and the user and password for every node)
    state: redisState({ cluster: nodes }),
    requestStateKey: 'the same secret on every instance', // e.g. process.env.MCP_REQUEST_STATE_KEY
  });
  const { url } = await app.listenHttp({ port: 0 }); // waits until the cluster answers
  return { url, close: () => app.close() }; // the app's close ends its listener and its Redis connections
}
// #endregion

export const outputs: Record<string, string> = {};

/** The ArmatureBuildError redisState() throws for `options` (it checks them when called: no Redis is needed). */
function refusal(options: Parameters<typeof redisState>[0]): ArmatureBuildError {
  try {
    redisState(options);
  } catch (error) {
    if (error instanceof ArmatureBuildError) return error;
    throw error;
  }
  throw new Error(`redisState accepted ${JSON.stringify(options)}`);
}

outputs['both'] = refusal({ url: 'redis://127.0.0.1:6379', cluster: [] }).message;
// The table of docs/error-codes.md: one refusal of each code.
outputs['codes'] = [
  '| code | example | fix |',
  '| --- | --- | --- |',
  ...[refusal({ cluster: [{ host: '10.0.0.1', port: 0 }] }), refusal({ keyPrefix: 'app{1}:' })]
    .map((error) => error.problems[0] as { code: string; message: string; fix: string })
    .map(({ code, message, fix }) => `| ${code} | ${message} | ${fix} |`),
].join('\n');

export async function main(): Promise<void> {
  // A real three-master cluster of redis-server processes on free 127.0.0.1 ports.
  const cluster = await RedisCluster.start();
  const [first, second] = cluster.addresses as [{ host: string; port: number }, { host: string; port: number }];
  // Each instance is given one other node: both find the whole cluster.
  const [a, b] = [await instance([first]), await instance([second])] as [Instance, Instance];
  const { client, transport } = roundRobinClient([a.url, b.url]);
  try {
    await renameTwice(client, transport);
  } finally {
    await client.close().catch(() => undefined);
    await Promise.all([a.close(), b.close()]);
    await cluster.dispose();
  }

  expectEqual(outputs['both']?.includes('[ARM194]'), true, 'url and an empty cluster are refused');
}
