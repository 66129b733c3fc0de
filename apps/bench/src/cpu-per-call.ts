// CPU time per call of each HTTP 2026-07-28 server (its process's user + system time, from
// /proc/<pid>/stat) and of the bench's own client, tools/call `add` over the bench's keep-alive
// pool: what a throughput line cannot show when the client, not the server, sets the pace (the
// hand-written loop's line), and a figure a shared machine's load disturbs far less than calls/s.
// Interleaved passes, medians. Linux only.
// With --session, the calls are 2025-11-25 tools/call in one session per server (HttpSessionClient),
// and the entries default to the in-memory state against the Redis state (a redis-server started
// here; its own CPU is not counted): the `redis session add` line's two sides.
// Usage: node dist/cpu-per-call.js [--session] [--calls=N] [--passes=N] [entry ...]
//   (default: raw-loop-http armature-http sdk-http; with --session: armature-http armature-http-redis)
import { loadavg } from 'node:os';
import { RedisServer } from '@armature/test-redis';
import { Http2026Client, spawnHttpServer } from './drivers/http-2026-client.js';
import { HttpSessionClient } from './drivers/http-session-client.js';
import { cpuSecondsOf, pipelined } from './drivers/stdio-child.js';
import { median } from './harness.js';

const argv = process.argv.slice(2);
const option = (name: string, fallback: number) => Number(argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const calls = option('calls', 10_000);
const passes = option('passes', 5);
const session = argv.includes('--session');
const entries = argv.filter((a) => !a.startsWith('--'));
const names =
  entries.length > 0 ? entries : session ? ['armature-http', 'armature-http-redis'] : ['raw-loop-http', 'armature-http', 'sdk-http'];

interface Side {
  name: string;
  pid: number;
  client: { callTool(name: string, args: Record<string, unknown>): Promise<unknown>; close(): unknown };
  stop(): Promise<void>;
  rates: number[];
  server: number[];
  own: number[];
}

let redis: RedisServer | undefined;

async function start(name: string): Promise<Side> {
  const needsRedis = name.endsWith('-redis');
  if (needsRedis) redis ??= await RedisServer.start({ durable: false });
  const server = await spawnHttpServer(name, needsRedis && redis ? { REDIS_URL: redis.url } : {});
  const client = session ? await HttpSessionClient.open(server.url, 32) : new Http2026Client(server.url, 32);
  return { name, pid: server.pid, client, stop: () => server.close(), rates: [], server: [], own: [] };
}

const sides: Side[] = [];
try {
  for (const name of names) sides.push(await start(name));
  console.log(
    `CPU per call, ${calls.toLocaleString('en-US')} calls per sample over 32 keep-alive connections, ${passes} passes; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const side of sides) await pipelined(2_000, 32, (i) => side.client.callTool('add', { a: i, b: 1 }));
  for (let pass = 0; pass < passes; pass++) {
    for (const side of [...sides.slice(pass % sides.length), ...sides.slice(0, pass % sides.length)]) {
      const server = cpuSecondsOf(side.pid);
      const own = process.cpuUsage();
      side.rates.push(await pipelined(calls, 32, (i) => side.client.callTool('add', { a: i, b: 1 })));
      const used = process.cpuUsage(own);
      side.server.push(((cpuSecondsOf(side.pid) - server) * 1e6) / calls);
      side.own.push((used.user + used.system) / calls);
    }
  }
  for (const side of sides) {
    console.log(
      `${side.name.padEnd(22)} server ${median(side.server).toFixed(1).padStart(6)} µs/call   client ${median(side.own).toFixed(1).padStart(6)} µs/call   ${Math.round(median(side.rates)).toLocaleString('en-US').padStart(7)} calls/s`,
    );
  }
  console.log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
} finally {
  await Promise.allSettled(sides.map((side) => side.client.close()));
  await Promise.allSettled(sides.map((side) => side.stop()));
  await redis?.dispose();
}
