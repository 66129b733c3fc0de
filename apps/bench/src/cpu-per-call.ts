// CPU time per call of each server (its process's user + system time, from /proc/<pid>/stat) and of
// the bench's own client: what a throughput line cannot show when the client, not the server, sets
// the pace (the hand-written loops' lines), and a figure a shared machine's load disturbs far less
// than calls/s. HTTP 2026-07-28 servers get tools/call `add` over the bench's keep-alive pool; stdio
// servers (an entry whose name holds `stdio`) get `--tool` (`add` or `search`) through the raw line
// client, 64 in flight. With --session, the HTTP calls are 2025-11-25 tools/call in one session per
// server (HttpSessionClient), and the entries default to the in-memory state against the Redis state
// (a redis-server started here; its own CPU is not counted): the `redis session add` line's two sides.
// Interleaved passes, medians. Linux only.
// With --log-level=<level> and/or --progress, each 2026-07-28 call's `_meta` also carries that log level
// and a progress token of its own (what a gateway or an official client may send on every call).
// Usage: node dist/cpu-per-call.js [--session] [--calls=N] [--passes=N] [--tool=add|search] [--log-level=L] [--progress] [entry ...]
//   (default: raw-loop-http armature-http sdk-http; e.g. raw-loop-stdio armature-stdio --tool=search;
//   with --session: armature-http armature-http-redis)
import { loadavg } from 'node:os';
import { RedisServer } from '@armature/test-redis';
import { exitOnSignals } from './drivers/exit-on-signals.js';
import { Http2026Client, spawnHttpServer } from './drivers/http-2026-client.js';
import { HttpSessionClient } from './drivers/http-session-client.js';
import { cpuSecondsOf, pipelined, StdioChild } from './drivers/stdio-child.js';
import { median } from './harness.js';
import { addArgs, ok, searchArgs } from './scenarios/tool-calls.js';

exitOnSignals();
const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const calls = Number(option('calls') ?? 10_000);
const passes = Number(option('passes') ?? 5);
const tool = option('tool') ?? 'add';
if (tool !== 'add' && tool !== 'search') throw new Error(`--tool must be add or search, not ${tool}`);
const args = tool === 'add' ? addArgs : searchArgs;
const session = argv.includes('--session');
const logLevel = option('log-level');
const progressTokens = argv.includes('--progress');
const entries = argv.filter((a) => !a.startsWith('--'));
const names =
  entries.length > 0 ? entries : session ? ['armature-http', 'armature-http-redis'] : ['raw-loop-http', 'armature-http', 'sdk-http'];
const IN_FLIGHT = { http: 32, stdio: 64 };

interface Side {
  name: string;
  pid: number;
  call(i: number): Promise<unknown>;
  stop(): Promise<void>;
  rates: number[];
  server: number[];
  own: number[];
  inFlight: number;
}

let redis: RedisServer | undefined;

async function start(name: string): Promise<Side> {
  const measures = { rates: [], server: [], own: [] };
  if (name.includes('stdio')) {
    const child = StdioChild.spawn(name, `servers/${name}.js`);
    await child.initialize();
    const call = async (i: number) => ok(await child.request('tools/call', { name: tool, arguments: args(i) }));
    return { name, pid: child.pid, call, stop: () => child.close(), inFlight: IN_FLIGHT.stdio, ...measures };
  }
  if (tool !== 'add') throw new Error(`${name}: the HTTP servers are measured with add only`);
  const needsRedis = name.endsWith('-redis');
  if (needsRedis) redis ??= await RedisServer.start({ durable: false });
  const server = await spawnHttpServer(name, needsRedis && redis ? { REDIS_URL: redis.url } : {});
  const client = session
    ? await HttpSessionClient.open(server.url, IN_FLIGHT.http)
    : new Http2026Client(server.url, IN_FLIGHT.http, { logLevel, progressTokens });
  const stop = async () => {
    await client.close();
    await server.close();
  };
  return { name, pid: server.pid, call: (i) => client.callTool('add', addArgs(i)), stop, inFlight: IN_FLIGHT.http, ...measures };
}

const sides: Side[] = [];
try {
  for (const name of names) sides.push(await start(name));
  const meta = [logLevel && `logLevel ${logLevel}`, progressTokens && 'a progress token'].filter(Boolean).join(' and ');
  console.log(
    `CPU per call of tools/call ${tool}${meta ? ` with ${meta}` : ''}, ${calls.toLocaleString('en-US')} calls per sample, ${passes} passes; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  for (const side of sides) await pipelined(2_000, side.inFlight, side.call);
  for (let pass = 0; pass < passes; pass++) {
    for (const side of [...sides.slice(pass % sides.length), ...sides.slice(0, pass % sides.length)]) {
      const server = cpuSecondsOf(side.pid);
      const own = process.cpuUsage();
      side.rates.push(await pipelined(calls, side.inFlight, side.call));
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
  await Promise.allSettled(sides.map((side) => side.stop()));
  await redis?.dispose();
}
