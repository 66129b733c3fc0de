/**
 * The official MCP conformance suite against THREE instances of the built server (`dist/main.js`
 * with ARMATURE_REDIS_URL: sessions, resumable events and change notifications on a real
 * redis-server; then with ARMATURE_REDIS_CLUSTER on a real three-master Redis Cluster) behind a
 * strictly alternating round-robin proxy, over Streamable HTTP: every scenario's initialize lands on
 * one instance and its later requests on the others. For every spec version the suite targets, all
 * scenarios (active and pending): 0 failures, 0 warnings.
 */
import { RedisCluster, RedisServer, RoundRobinProxy } from '@armature/test-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killSuiteRuns, runSuite, summarize } from './support/conformance.js';
import { assertBuilt, type HttpServer, killStarted, startHttpServer } from './support/processes.js';
import { expectClean, REVISIONS, setOf } from './support/requirements.js';
import { TASKS_EXPECTED_FAILURES } from './tasks-expected-failures.js';

const NAMES = ['a', 'b', 'c'];

/** The shared Redis of a run, and what tells the instances where it is. */
interface SharedRedis {
  readonly env: Record<string, string>;
  dispose(): Promise<void>;
}

const TOPOLOGIES: [string, () => Promise<SharedRedis>][] = [
  [
    'Redis',
    async () => {
      const server = await RedisServer.start();
      return { env: { ARMATURE_REDIS_URL: server.url }, dispose: () => server.dispose() };
    },
  ],
  [
    'a three-master Redis Cluster',
    async () => {
      const cluster = await RedisCluster.start({ durable: false });
      return { env: { ARMATURE_REDIS_CLUSTER: cluster.spec }, dispose: () => cluster.dispose() };
    },
  ],
];

describe.each(TOPOLOGIES)('over Streamable HTTP, three instances on %s behind a round-robin proxy', (topology, start) => {
  let redis: SharedRedis;
  let servers: HttpServer[] = [];
  let proxy: RoundRobinProxy & { url: URL };

  beforeAll(async () => {
    assertBuilt();
    redis = await start();
    const env = { ...redis.env, MCP_REQUEST_STATE_KEY: 'a shared key for the scale-out conformance run only' };
    servers = await Promise.all(NAMES.map(() => startHttpServer(45_000, env)));
    proxy = await RoundRobinProxy.start(servers.map((server, i) => ({ name: NAMES[i] as string, url: new URL(server.url) })));
  });
  afterAll(async () => {
    killSuiteRuns();
    await proxy?.close();
    await Promise.all(servers.map((server) => server.stop()));
    killStarted();
    await redis?.dispose();
  });

  it.each(REVISIONS)(
    'requirements %s: 0 failures, known warnings only, tasks extension at its baseline',
    { timeout: 200_000 },
    async (revision) => {
      const before = proxy.routed.length;
      const run = await runSuite({ url: proxy.url.href, requirements: revision, timeoutMs: 180_000 });
      console.log(
        summarize(`HTTP, 3 instances on ${topology}, requirements ${revision}`, run, {
          notScored: setOf(revision).notScored,
          baseline: TASKS_EXPECTED_FAILURES,
        }),
      );
      const logs = servers.map((server, i) => `--- instance ${NAMES[i]}:\n${server.output().slice(-1500)}`).join('\n');
      expectClean(run, revision, { log: logs });
      // The run went through every instance, in strict turn.
      const served = proxy.routed.slice(before).map((r) => r.instance);
      expect(served.slice(0, 6)).toEqual([0, 1, 2, 3, 4, 5].map((i) => NAMES[(before + i) % NAMES.length]));
      for (const name of NAMES) expect(served.filter((s) => s === name).length).toBeGreaterThan(served.length / 4);
    },
  );
});
