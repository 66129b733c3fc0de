// tools/call throughput of an Armature tool vs the same tool on a bare SDK McpServer, side by side
// in one process and one run. Usage: node --expose-gc dist/bench.js [--quick] [--only=<text>]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import type { McpApp } from '@armature/core';
import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  type Connection,
  connectHttp,
  connectInMemory,
  type Listener,
  listenBareSessionful,
  listenBareStateless,
  RawConnection,
} from './connections.js';
import {
  type Call,
  comparePair,
  cpuRatioOf,
  fmtInt,
  fmtMs,
  fmtRatio,
  gc,
  latency,
  type PairResult,
  pairTable,
  ratioOf,
  type Timing,
  table,
  throughput,
} from './harness.js';
import { createArmatureApp, createBareServer, createManyToolsApp } from './servers.js';

const GOAL = 0.9;
const CONCURRENCY = 32;

interface Settings {
  quick: boolean;
  only?: string;
  timing: Timing;
  listCalls: number;
  memory: { first: number; total: number };
}

function parseArgs(argv: readonly string[]): Settings {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log('usage: node --expose-gc dist/bench.js [--quick] [--only=<part of a scenario label, "tools-list" or "memory-check">]');
    process.exit(0);
  }
  const quick = argv.includes('--quick');
  const only = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  return quick
    ? {
        quick,
        only,
        timing: { sampleMs: 60, warmupMs: 60, rounds: 3, initialWarmupMs: 300 },
        listCalls: 10,
        memory: { first: 1_000, total: 5_000 },
      }
    : {
        quick,
        only,
        timing: { sampleMs: 800, warmupMs: 1_000, rounds: 7, initialWarmupMs: 4_000 },
        listCalls: 100,
        memory: { first: 10_000, total: 100_000 },
      };
}

/** Without --expose-gc the samples and the heap figures are not comparable: restart with it. */
function ensureGc(): void {
  if (typeof (globalThis as { gc?: unknown }).gc === 'function') return;
  const child = spawnSync(process.execPath, ['--expose-gc', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(child.status ?? 1);
}

function version(pkg: string): string {
  try {
    const file = new URL(`../node_modules/${pkg}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

/** Results as the client sees them, undefined members dropped (as on the wire). */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

/** A timed call fails loudly on an error result (the same tiny check on both sides). */
function checked(result: unknown): unknown {
  if ((result as CallToolResult).isError) throw new Error(`tools/call failed: ${JSON.stringify(result)}`);
  return result;
}

function addCall(connection: Connection): Call {
  let i = 0;
  return () => {
    i = (i + 1) % 1000;
    return connection.client.callTool({ name: 'add', arguments: { a: i, b: 1 } }).then(checked);
  };
}

function rawAddCall(connection: RawConnection): Call {
  let i = 0;
  return () => {
    i = (i + 1) % 1000;
    return connection.request('tools/call', { name: 'add', arguments: { a: i, b: 1 } }).then(checked);
  };
}

/** Both sides must answer the very same result, `5` as one text block, before anything is timed. */
async function checkSameResult(label: string, armature: () => Promise<unknown>, bare: () => Promise<unknown>): Promise<void> {
  const [a, b] = [plain(await armature()) as CallToolResult, plain(await bare())];
  if (!isDeepStrictEqual(a, b) || a.isError || !isDeepStrictEqual(a.content, [{ type: 'text', text: '5' }])) {
    throw new Error(`${label}: the two servers answer differently:\n armature ${JSON.stringify(a)}\n bare     ${JSON.stringify(b)}`);
  }
}

interface Scenario {
  label: string;
  title: string;
  concurrency: number;
  /** Opens both sides, returns their calls and a closer. */
  open(): Promise<{ armature: Call; bare: Call; note: string; close(): Promise<void> }>;
}

function clientPair(
  connectArmature: () => Promise<Connection>,
  connectBare: () => Promise<Connection>,
  label: string,
  extraClose: () => Promise<void> = async () => {},
) {
  return async () => {
    const [armature, bare] = [await connectArmature(), await connectBare()];
    const fixed = (c: Connection) => () => c.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    await checkSameResult(label, fixed(armature), fixed(bare));
    const versions = `negotiated ${armature.client.getNegotiatedProtocolVersion()} (armature) / ${bare.client.getNegotiatedProtocolVersion()} (bare)`;
    return {
      armature: addCall(armature),
      bare: addCall(bare),
      note: versions,
      async close() {
        await Promise.allSettled([armature.close(), bare.close()]);
        await extraClose();
      },
    };
  };
}

function scenarios(app: McpApp): Scenario[] {
  const list: Scenario[] = [];
  for (const concurrency of [1, CONCURRENCY]) {
    const shape = concurrency === 1 ? 'sequential' : `${concurrency} concurrent`;
    list.push({
      label: `in-memory ${shape}`,
      title: `in-memory, ${shape}: official v2 client over InMemoryTransport.createLinkedPair() (2025-11-25)`,
      concurrency,
      open: clientPair(
        () => connectInMemory(app.createServer()),
        () => connectInMemory(createBareServer()),
        `in-memory ${shape}`,
      ),
    });
  }
  list.push({
    label: 'in-memory server-only sequential',
    title: 'in-memory, sequential, server only: raw JSON-RPC into the server transport, no client (2025-11-25)',
    concurrency: 1,
    async open() {
      const [armature, bare] = [await RawConnection.open(app.createServer()), await RawConnection.open(createBareServer())];
      const fixed = (c: RawConnection) => () => c.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
      await checkSameResult('server-only', fixed(armature), fixed(bare));
      return {
        armature: rawAddCall(armature),
        bare: rawAddCall(bare),
        note: "no client-side parsing: the figures are the servers' own cost (plus the in-memory hand-off)",
        async close() {
          await Promise.allSettled([armature.close(), bare.close()]);
        },
      };
    },
  });
  for (const era of ['2025-11-25', '2026-07-28'] as const) {
    const modern = era === '2026-07-28';
    for (const concurrency of [1, CONCURRENCY]) {
      const shape = concurrency === 1 ? 'sequential' : `${concurrency} concurrent`;
      const label = `http ${era} ${shape}`;
      const bareHow = modern
        ? 'bare: createMcpHandler(() => new McpServer + registerTool) via toNodeHandler'
        : 'bare: McpServer + NodeStreamableHTTPServerTransport per session on node:http';
      list.push({
        label,
        title: `HTTP 127.0.0.1, ${era}${modern ? ' (client versionNegotiation auto, stateless)' : ' with a session'}, ${shape}: armature app.listenHttp vs ${bareHow}`,
        concurrency,
        async open() {
          const listeners: Listener[] = [await app.listenHttp({ port: 0 })];
          listeners.push(await (modern ? listenBareStateless(() => createBareServer()) : listenBareSessionful(() => createBareServer())));
          const [armatureUrl, bareUrl] = listeners.map((l) => l.url) as [string, string];
          return clientPair(
            () => connectHttp(armatureUrl, modern),
            () => connectHttp(bareUrl, modern),
            label,
            async () => {
              await Promise.allSettled(listeners.map((l) => l.close()));
            },
          )();
        },
      });
    }
  }
  return list;
}

/** Both sides' in-memory call paths to steady state before the first sample (see Timing.initialWarmupMs). */
async function initialWarmup(app: McpApp, timing: Timing): Promise<void> {
  const armature = await connectInMemory(app.createServer());
  const bare = await connectInMemory(createBareServer());
  try {
    for (const side of [armature, bare]) await throughput(addCall(side), timing.initialWarmupMs, 1);
  } finally {
    await Promise.allSettled([armature.close(), bare.close()]);
  }
}

async function runScenario(scenario: Scenario, timing: Timing): Promise<PairResult> {
  const started = performance.now();
  const opened = await scenario.open();
  try {
    console.log(`\n== ${scenario.title} ==`);
    console.log(opened.note);
    const result = await comparePair(scenario.title, scenario.label, opened.armature, opened.bare, scenario.concurrency, timing);
    console.log(pairTable(result));
    console.log(took(started));
    return result;
  } finally {
    await opened.close();
  }
}

interface ListFigures {
  rows: string[][];
  armatureGrowth: number;
  bareGrowth: number;
}

async function toolsListLatency(settings: Settings): Promise<ListFigures> {
  const count = settings.listCalls;
  const warmup = Math.max(5, count / 10);
  const measure = async (name: string, tools: number, build: () => import('@modelcontextprotocol/server').McpServer) => {
    const viaClient = await connectInMemory(build());
    const raw = await RawConnection.open(build());
    try {
      const listed = await viaClient.client.listTools();
      if (listed.tools.length !== tools) throw new Error(`${name}: expected ${tools} tools, listed ${listed.tools.length}`);
      const client = await latency(() => viaClient.client.listTools(), count, warmup);
      const server = await latency(() => raw.request('tools/list'), count, warmup);
      return { name, tools, client, server };
    } finally {
      await Promise.allSettled([viaClient.close(), raw.close()]);
    }
  };
  const one = createArmatureApp();
  const many = createManyToolsApp(499);
  const figures = [
    await measure('armature', 1, () => one.createServer()),
    await measure('armature', 500, () => many.createServer()),
    await measure('bare SDK', 1, () => createBareServer()),
    await measure('bare SDK', 500, () => createBareServer(499)),
  ];
  const rows = figures.map((f) => [f.name, String(f.tools), fmtMs(f.client), fmtMs(f.server)]);
  const [a1, a500, b1, b500] = figures as [(typeof figures)[0], (typeof figures)[0], (typeof figures)[0], (typeof figures)[0]];
  return { rows, armatureGrowth: a500.server / a1.server, bareGrowth: b500.server / b1.server };
}

interface MemoryFigures {
  liveScopes: number;
  calls: number;
  heapFirst: number;
  heapTotal: number;
}

function heapUsed(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

/** N tools/call through one in-memory connection, CONCURRENCY in flight, exactly `count` calls. */
async function callExactly(connection: Connection, count: number): Promise<void> {
  let issued = 0;
  const worker = async () => {
    while (issued < count) {
      issued++;
      checked(await connection.client.callTool({ name: 'add', arguments: { a: issued % 1000, b: 1 } }));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function memoryCheck(settings: Settings): Promise<MemoryFigures> {
  const app = createArmatureApp();
  const connection = await connectInMemory(app.createServer());
  try {
    await callExactly(connection, settings.memory.first);
    const heapFirst = heapUsed();
    await callExactly(connection, settings.memory.total - settings.memory.first);
    const heapTotal = heapUsed();
    return { liveScopes: app.stats.liveScopes, calls: app.stats.calls, heapFirst, heapTotal };
  } finally {
    await connection.close();
  }
}

const busy = (cores: number) => (loadavg()[0] ?? 0) > cores * 0.75;
const took = (since: number) => `(took ${((performance.now() - since) / 1000).toFixed(1)} s)`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

async function main(): Promise<void> {
  ensureGc();
  const settings = parseArgs(process.argv.slice(2));
  const selected = (label: string) => !settings.only || label.includes(settings.only);
  const started = performance.now();
  const { timing } = settings;
  const cpu = cpus();
  console.log(`Armature vs bare SDK: tools/call throughput (${settings.quick ? 'quick' : 'full'} run)`);
  console.log(
    `node ${process.version}, ${cpu.length} x ${cpu[0]?.model.trim() ?? 'cpu'}; @modelcontextprotocol/server ${version('@modelcontextprotocol/server')}, ` +
      `client ${version('@modelcontextprotocol/client')}, node ${version('@modelcontextprotocol/node')}, zod ${version('zod')}`,
  );
  console.log(
    `each side: ${timing.warmupMs} ms warm-up, then ${timing.rounds} samples of ${timing.sampleMs} ms, interleaved A B / B A per round, ` +
      `after an initial ${timing.initialWarmupMs} ms in-memory warm-up per side; figure = median calls/s; client and server share this process`,
  );
  if (settings.quick)
    console.log('quick run: a smoke test of the benchmark, its figures are indicative only (short samples, little JIT warm-up)');

  const load = () => loadavg()[0]?.toFixed(1) ?? '?';
  console.log(
    `load average at start: ${load()} on ${cpu.length} cores` +
      (busy(cpu.length) ? ' (BUSY: other processes compete for the cores, wall-clock figures are noisy; compare the CPU-time ratios)' : ''),
  );

  const app = createArmatureApp();
  const summary: string[] = [];
  const cpuSummary: string[] = [];
  let failed = false;
  try {
    const chosen = scenarios(app).filter((scenario) => selected(scenario.label));
    if (chosen.length > 0) await initialWarmup(app, timing);
    for (const scenario of chosen) {
      const result = await runScenario(scenario, timing);
      summary.push(`ratio armature/bare (${result.label}): ${fmtRatio(ratioOf(result))} (goal >= ${GOAL.toFixed(2)}x)`);
      cpuSummary.push(`${result.label} ${fmtRatio(cpuRatioOf(result))}`);
    }

    if (selected('tools-list')) {
      const listStarted = performance.now();
      console.log('\n== tools/list latency, in memory (2025-11-25): 1 vs 500 tools ==');
      const list = await toolsListLatency(settings);
      console.log(
        `median of ${settings.listCalls} sequential calls; "server only" = raw JSON-RPC into the server transport, no client-side parsing`,
      );
      console.log(table(['server', 'tools', 'via v2 client (ms)', 'server only (ms)'], list.rows));
      summary.push(
        `tools/list server-only latency, 500 vs 1 tools: armature ${fmtRatio(list.armatureGrowth)}, bare SDK ${fmtRatio(list.bareGrowth)}`,
      );
      console.log(took(listStarted));
    }

    if (selected('memory-check')) {
      const memoryStarted = performance.now();
      const { first, total } = settings.memory;
      console.log(`\n== memory: ${fmtInt(total)} armature tools/call in memory (v2 client, ${CONCURRENCY} in flight) ==`);
      const memory = await memoryCheck(settings);
      const growth = ((memory.heapTotal - memory.heapFirst) / memory.heapFirst) * 100;
      console.log(
        table(
          ['after', 'heap used after GC', 'app.stats.calls', 'app.stats.liveScopes'],
          [
            [`${fmtInt(first)} calls`, mb(memory.heapFirst), '', ''],
            [`${fmtInt(total)} calls`, mb(memory.heapTotal), fmtInt(memory.calls), String(memory.liveScopes)],
          ],
        ),
      );
      console.log(took(memoryStarted));
      if (memory.liveScopes !== 0 || memory.calls !== total) failed = true;
      summary.push(`armature liveScopes after ${fmtInt(total)} calls: ${memory.liveScopes} (must be 0)`);
      summary.push(
        `armature heap after GC, ${fmtInt(first)} -> ${fmtInt(total)} calls: ${mb(memory.heapFirst)} -> ${mb(memory.heapTotal)} ` +
          `(${growth >= 0 ? '+' : ''}${growth.toFixed(1)}%)`,
      );
    }
  } finally {
    await app.close();
  }

  console.log('\n== summary ==');
  for (const line of summary) console.log(line);
  if (cpuSummary.length > 0) console.log(`same ratios by CPU time per call (bare/armature): ${cpuSummary.join(', ')}`);
  console.log(`load average at end: ${load()} on ${cpu.length} cores`);
  console.log(`total time ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (failed) {
    console.error('FAILED: a DI scope was left open or calls went missing');
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
