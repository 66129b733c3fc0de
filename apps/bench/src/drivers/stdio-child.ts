// A server under test as a real child process over stdio, driven by a raw JSON-RPC line client:
// one write per request, lines split and parsed by hand, ids matched in a Map. Nothing else runs
// per call on the client side, so the client is not the bottleneck.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { stopsWithProcess } from '@armature/test-redis';
import { type Runtime, runtimeArgv } from './runtime-command.js';

export const PROTOCOL_VERSION = '2025-11-25';
/** Linux's USER_HZ, the unit of /proc/<pid>/stat's times (100 on every Linux architecture Node runs on). */
const CLOCK_TICKS = 100;
const CLIENT_INFO = { name: 'armature-bench', version: '1.0.0' };

type Pending = { resolve(result: unknown): void; reject(error: Error): void };

export class StdioChild {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffered = '';
  private stderr = '';
  private failure?: Error;
  private readonly exited: Promise<number | null>;

  private constructor(
    readonly label: string,
    private readonly child: ChildProcessWithoutNullStreams,
  ) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.onData(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (this.stderr.length < 4_000) this.stderr += chunk;
    });
    child.stdin.on('error', () => undefined); // EPIPE once the child is gone: reported through `exited`
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    void this.exited.then((code) => this.fail(new Error(`${label} exited (code ${code})\n${this.stderr}`)));
  }

  /** Spawns `node <entry> ...args` (or Bun, or Deno); `entry` is a file of dist/, e.g. `servers/sdk-stdio.js`. */
  static spawn(label: string, entry: string, args: readonly string[] = [], runtime: Runtime = 'node'): StdioChild {
    const [command, ...argv] = runtimeArgv(runtime, new URL(`../${entry}`, import.meta.url).pathname, args);
    const child = spawn(command, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    stopsWithProcess(child, 'SIGKILL');
    return new StdioChild(label, child);
  }

  /** Spawn to the answer of the first tools/list, in ms; the child stays up (initialized) with that answer. */
  static async coldStart(
    label: string,
    entry: string,
    args: readonly string[] = [],
    runtime: Runtime = 'node',
  ): Promise<{ ms: number; child: StdioChild; listed: unknown }> {
    const started = performance.now();
    const child = StdioChild.spawn(label, entry, args, runtime);
    await child.initialize();
    const listed = await child.request('tools/list', {});
    return { ms: performance.now() - started, child, listed };
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** Every request in flight, and every later one, fails with `error`. */
  private fail(error: Error): void {
    this.failure ??= error;
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
  }

  private onData(chunk: string): void {
    const lines = (this.buffered + chunk).split('\n');
    this.buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') continue;
      let message: { id?: number; result?: unknown; error?: { code: number; message: string } };
      try {
        message = JSON.parse(line);
      } catch {
        this.fail(new Error(`${this.label} wrote a line that is not JSON on stdout: ${line.slice(0, 200)}`));
        this.child.kill('SIGKILL');
        return;
      }
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiting) continue; // a notification
      this.pending.delete(message.id as number);
      if (message.error) waiting.reject(new Error(`${this.label}: ${message.error.code} ${message.error.message}`));
      else waiting.resolve(message.result);
    }
  }

  request(method: string, params: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}\n`);
    });
  }

  async initialize(): Promise<void> {
    await this.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO });
    this.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  }

  /** Resident set size of the child, from /proc (Linux). */
  rssMb(): number {
    return memoryMbOf(this.pid, 'VmRSS');
  }

  /**
   * CPU seconds (user and system) the child has used, from /proc (Linux): a figure per call that
   * other load on the machine sways far less than wall-clock throughput does.
   */
  cpuSeconds(): number {
    return cpuSecondsOf(this.pid);
  }

  /** Closes stdin (a stdio server exits then); kills the child if it has not exited within 2 s. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2_000);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * A memory figure of process `pid` from /proc (Linux), in MB: `VmRSS` (resident now) or `VmHWM`
 * (the peak resident set since it started).
 */
export function memoryMbOf(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) / 1024;
}

/** CPU seconds (user and system) process `pid` has used, from /proc (Linux). */
export function cpuSecondsOf(pid: number): number {
  // The fields after the command's name (which may hold spaces): utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Exactly `count` calls of `call`, `inFlight` at a time; returns completed calls per second. */
export async function pipelined(count: number, inFlight: number, call: (i: number) => Promise<unknown>): Promise<number> {
  let issued = 0;
  const started = performance.now();
  const worker = async () => {
    while (issued < count) await call(issued++);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
  return (count * 1000) / (performance.now() - started);
}
