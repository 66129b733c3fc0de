// The server child process: an Armature app served over HTTP or stdio, with an IPC channel the
// script uses to read what only the server can see (memory after GC, event-loop delay, counters,
// unhandled rejections). Run by the script as
//   node --expose-gc dist/server.js --transport http|stdio|both [--timeout-ms N] [--max-body N] [--http-options JSON]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type CreateMcpAppOptions, createMcpApp } from '@armature/core';
import { counters, ReliabilityServer, resetCounters } from './server/fixture.js';
import type { ControlCommand, ControlReply, MemoryReport, ReadyMessage, SampleReport, StatsReport } from './server/protocol.js';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

if (typeof process.send !== 'function') {
  process.stderr.write('server.js is started by the reliability script (it needs the IPC channel)\n');
  process.exit(2);
}
const send = process.send.bind(process);

let unhandledRejections = 0;
let firstUnhandled: string | undefined;
process.on('unhandledRejection', (reason) => {
  unhandledRejections++;
  firstUnhandled ??= reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
});

const transport = option('transport') ?? 'http';
const timeoutMs = option('timeout-ms');
const maxBody = option('max-body');
// listenHttp options of a figure (caps, eventStore), as JSON.
const httpOptions = JSON.parse(option('http-options') ?? '{}') as Record<string, unknown>;

// `timeoutMs` is the handler-timeout option of createMcpApp (issue 5). It is passed through an
// untyped object so this file compiles against a core that does not have it yet.
const options: Record<string, unknown> = {
  onError: () => {
    counters.reported++;
  },
};
if (timeoutMs !== undefined) options.timeoutMs = Number(timeoutMs);
const app = createMcpApp(ReliabilityServer, options as CreateMcpAppOptions);

const loop = monitorEventLoopDelay({ resolution: 2 });
let cpuAtReset = process.cpuUsage();
loop.enable();

const gc = (globalThis as { gc?: () => void }).gc;
function memory(collect: boolean): MemoryReport {
  if (collect && gc) {
    gc();
    gc();
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, arrayBuffers: m.arrayBuffers };
}

let sampler: { timer: NodeJS.Timeout; start: MemoryReport; peak: MemoryReport; samples: number } | undefined;
function sample(): void {
  if (!sampler) return;
  const now = memory(false);
  sampler.samples++;
  for (const key of Object.keys(now) as Array<keyof MemoryReport>) sampler.peak[key] = Math.max(sampler.peak[key], now[key]);
}

function handle(command: ControlCommand): unknown {
  switch (command.cmd) {
    case 'memory':
      return memory(command.gc !== false);
    case 'stats':
      return {
        liveScopes: app.stats.liveScopes,
        calls: app.stats.calls,
        constructed: counters.constructed,
        disposed: counters.disposed,
        thrown: counters.thrown,
        reported: counters.reported,
        hangStarted: counters.hangStarted,
        hangAborted: counters.hangAborted,
        floodsDone: counters.floodsDone,
        floodMs: counters.floodMs,
        unhandledRejections,
        firstUnhandled,
        uptimeMs: Math.round(process.uptime() * 1000),
        pid: process.pid,
        timeoutMsOption: timeoutMs === undefined ? null : Number(timeoutMs),
        handles: (process as unknown as { _getActiveHandles?: () => unknown[] })._getActiveHandles?.().length ?? -1,
      } satisfies StatsReport;
    case 'reset':
      resetCounters();
      return null;
    case 'loop-reset':
      loop.reset();
      cpuAtReset = process.cpuUsage();
      return null;
    case 'loop-read': {
      const cpu = process.cpuUsage(cpuAtReset);
      return { maxMs: loop.max / 1e6, p99Ms: loop.percentile(99) / 1e6, samples: loop.count, cpuMs: (cpu.user + cpu.system) / 1000 };
    }
    case 'sample-start': {
      if (sampler) clearInterval(sampler.timer);
      const start = memory(true);
      sampler = { timer: setInterval(sample, command.everyMs), start, peak: { ...start }, samples: 0 };
      return null;
    }
    case 'sample-stop': {
      if (!sampler) throw new Error('sampling was not started');
      sample();
      clearInterval(sampler.timer);
      const report: SampleReport = { start: sampler.start, peak: sampler.peak, samples: sampler.samples };
      sampler = undefined;
      return report;
    }
    case 'calls':
      return [...counters.calls].map(([id, r]) => [id, r.starts, r.aborts, r.done]);
    default:
      throw new Error(`unknown command ${JSON.stringify(command)}`);
  }
}

process.on('message', (message: ControlCommand & { id: number }) => {
  let reply: ControlReply;
  try {
    reply = { reply: message.id, ok: true, data: handle(message) };
  } catch (error) {
    reply = { reply: message.id, ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  send(reply);
});
// The script owns this process: when it goes away, so does the server.
process.on('disconnect', () => process.exit(0));

let url: string | undefined;
if (transport === 'stdio' || transport === 'both') app.listenStdio(maxBody ? { maxMessageBytes: Number(maxBody) } : {});
if (transport === 'http' || transport === 'both') {
  const listener = await app.listenHttp({
    port: 0,
    ...(maxBody ? { maxRequestBodySize: Number(maxBody) } : {}),
    ...httpOptions,
  });
  url = listener.url;
}
send({ ready: true, url, pid: process.pid } satisfies ReadyMessage);
