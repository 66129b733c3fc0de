// Issue 36's ceiling, by one command: for each `telemetry ...` line, what its goal leaves the
// OpenTelemetry SDK per call against what the SDK's own work costs, and the best ratio that work
// allows. Linux only (server CPU from /proc). Usage: node dist/otel-ceiling.js [--calls=N] [--passes=N]
// - X: the server's CPU per call with no SDK (servers/armature-stdio.js, the lines' other side),
//   and each line's own server (servers/armature-stdio-otel.js --otel <setup>), interleaved passes,
//   medians, 64 in flight through the raw line client, as the lines drive them;
// - the SDK's work per request as Armature calls it, and its floor (the least any caller can ask of
//   the SDK for the prescribed spans and metrics), from servers/otel-sdk-cost.js --json, each setup
//   in a process of its own.
// A goal of ratio r leaves the SDK X·(1/r − 1) per call; the floor bounds the ratio at X / (X + floor).
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { exitOnSignals } from './drivers/exit-on-signals.js';
import { cpuSecondsOf, pipelined, StdioChild } from './drivers/stdio-child.js';
import { median } from './harness.js';
import { TELEMETRY_LINES } from './scenarios/telemetry.js';
import { addArgs, ok, searchArgs } from './scenarios/tool-calls.js';
import type { OtelSetup } from './servers/otel-setup.js';

exitOnSignals();
const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const calls = Number(option('calls') ?? 40_000);
const passes = Number(option('passes') ?? 5);
const IN_FLIGHT = 64;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface SdkCost {
  setup: OtelSetup;
  /** ns per request, as Armature calls the SDK. */
  request: number;
  /** ns per request, the least any caller can ask. */
  floor: number;
}

const setups = [...new Set(TELEMETRY_LINES.map((line) => line.setup))];
console.log(`issue 36's ceiling: the SDK's own work (load average ${load()})`);
const sdk = new Map<OtelSetup, SdkCost>();
for (const setup of setups) {
  const script = fileURLToPath(new URL('./servers/otel-sdk-cost.js', import.meta.url));
  sdk.set(setup, JSON.parse(execFileSync(process.execPath, [script, '--otel', setup, '--json'], { encoding: 'utf8' })) as SdkCost);
}

interface Side {
  child: StdioChild;
  tool: 'add' | 'search';
  cpu: number[];
}
const sides = new Map<string, Side>();
const sideOf = (setup: OtelSetup | 'none', tool: 'add' | 'search') => `${setup} ${tool}`;
try {
  const untraced = StdioChild.spawn('no SDK', 'servers/armature-stdio.js');
  for (const tool of ['add', 'search'] as const) sides.set(sideOf('none', tool), { child: untraced, tool, cpu: [] });
  for (const setup of setups) {
    const child = StdioChild.spawn(setup, 'servers/armature-stdio-otel.js', ['--otel', setup]);
    for (const line of TELEMETRY_LINES.filter((l) => l.setup === setup))
      sides.set(sideOf(setup, line.tool), { child, tool: line.tool, cpu: [] });
  }
  await Promise.all([...new Set([...sides.values()].map((side) => side.child))].map((child) => child.initialize()));
  const run = (side: Side, count: number) =>
    pipelined(count, IN_FLIGHT, (i) =>
      side.child.request('tools/call', { name: side.tool, arguments: (side.tool === 'add' ? addArgs : searchArgs)(i) }).then(ok),
    );
  const all = [...sides.values()];
  for (const side of all) await run(side, 2_000);
  console.log(
    `server CPU per call: ${calls.toLocaleString('en-US')} calls per sample, ${passes} interleaved passes (load average ${load()})`,
  );
  for (let pass = 0; pass < passes; pass++) {
    for (const side of [...all.slice(pass % all.length), ...all.slice(0, pass % all.length)]) {
      const before = cpuSecondsOf(side.child.pid);
      await run(side, calls);
      side.cpu.push(((cpuSecondsOf(side.child.pid) - before) * 1e6) / calls);
    }
  }
  const µs = (n: number) => `${n.toFixed(2)} µs`;
  const rows = TELEMETRY_LINES.map((line) => {
    const x = median(sides.get(sideOf('none', line.tool))?.cpu ?? []);
    const traced = median(sides.get(sideOf(line.setup, line.tool))?.cpu ?? []);
    const cost = sdk.get(line.setup) as SdkCost;
    const budget = x * (1 / line.goal - 1);
    const floor = cost.floor / 1000;
    return {
      line: line.id,
      goal: `${line.goal}x`,
      'X (no SDK)': µs(x),
      'goal leaves the SDK': µs(budget),
      'SDK as Armature calls it': µs(cost.request / 1000),
      'SDK floor': µs(floor),
      'bound X/(X+floor)': `${(x / (x + floor)).toFixed(2)}x`,
      'measured (server CPU)': `${(x / traced).toFixed(2)}x`,
      verdict: floor > budget ? 'out of reach by the SDK alone' : 'within reach',
    };
  });
  console.table(rows);
  console.log(`load average at end: ${load()}`);
} finally {
  await Promise.allSettled([...new Set([...sides.values()].map((side) => side.child))].map((child) => child.close()));
}
