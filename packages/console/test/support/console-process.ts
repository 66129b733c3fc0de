import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ARMATURE = fileURLToPath(new URL('../../../cli/dist/bin/armature.js', import.meta.url));

/** `armature <command> --ui` running in `cwd`, as a user starts it: the console's URL and what it printed. */
export interface ConsoleProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything printed on stderr so far. */
  output(): string;
  /** Resolves when the output has matched `pattern` `times` times. */
  waitFor(pattern: RegExp, times?: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startConsoleProcess(cwd: string, args: readonly string[], timeoutMs = 60_000): Promise<ConsoleProcess> {
  const child = spawn(process.execPath, [ARMATURE, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const waiters = new Set<() => void>();
  const hear = (chunk: Buffer) => {
    output += chunk;
    for (const waiter of waiters) waiter();
  };
  child.stderr?.on('data', hear);
  child.stdout?.on('data', hear);
  const waitFor = (pattern: RegExp, times = 1, limit = timeoutMs) =>
    new Promise<void>((done, fail) => {
      const global = new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`);
      const check = () => {
        if ((output.match(global)?.length ?? 0) >= times) {
          finish();
          done();
        }
      };
      const timer = setTimeout(() => {
        finish();
        fail(new Error(`armature ${args.join(' ')}: no ${pattern} (x${times}) within ${limit} ms; it printed:\n${output}`));
      }, limit);
      const onExit = () => {
        finish();
        fail(new Error(`armature ${args.join(' ')} exited before ${pattern}; it printed:\n${output}`));
      };
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(check);
        child.off('exit', onExit);
      };
      waiters.add(check);
      child.once('exit', onExit);
      check();
    });
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('exit', () => {
        clearTimeout(kill);
        done();
      });
      child.kill('SIGTERM');
    });
  try {
    await waitFor(/\[armature\] console: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/);
  } catch (error) {
    await stop();
    throw error;
  }
  const url = /\[armature\] console: (\S+)/.exec(output)?.[1] as string;
  return { url, child, output: () => output, waitFor, stop };
}
