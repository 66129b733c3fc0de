import type { ChildProcess } from 'node:child_process';

/** The children handed to `stopsWithProcess` that still run, each with its signal. */
const running = new Map<ChildProcess, NodeJS.Signals>();
let hooked = false;

/**
 * Stops `child` with `signal` if it still runs when this process exits: a test run or a bench cut
 * short (by a timeout's SIGTERM, once it exits through `process.exit`) leaves no redis-server or
 * server under test behind.
 */
export function stopsWithProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): void {
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const [left, leftSignal] of running) left.kill(leftSignal);
    });
  }
  running.set(child, signal);
  child.once('exit', () => running.delete(child));
}
