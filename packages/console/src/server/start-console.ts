import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { HostMessage } from '../agent/span-record.js';
import { ConsoleServer } from './console-server.js';
import { hostSource } from './host-source.js';

const AGENT = new URL('../agent/agent.js', import.meta.url).href;

export interface ConsoleOptions {
  /** The console's port on 127.0.0.1 (default 0: a free one). */
  port?: number;
}

/**
 * The console of `armature dev --ui` and `armature inspect --ui`: its page is served at `url`; the
 * command runs `wrap()`'s module in place of the app entry and hands each server process it starts
 * to `attach()`, which follows it (up at which URL, failed with which problems, its spans, gone).
 */
export interface DevConsole {
  /** The page, with its token: http://127.0.0.1:<port>/?token=... */
  readonly url: string;
  /**
   * The module that serves `entry`'s app for the console, the Node flags that load the span
   * collector, and whether plain node runs it (a built app: JavaScript) rather than vite-node.
   */
  wrap(root: string, entry: string, readyEnv: string): { entry: string; execArgv: string[]; plainNode: boolean };
  /** Follows one server process, started with an IPC channel. */
  attach(child: ChildProcess): void;
  close(): Promise<void>;
}

export async function startConsole(options: ConsoleOptions = {}): Promise<DevConsole> {
  const server = new ConsoleServer();
  const url = await server.listen(options.port);
  const written = new Set<string>();
  return {
    url,
    wrap(root, entry, readyEnv) {
      // A dot file with the `.armature-` prefix: `armature dev` does not watch it.
      const host = join(root, `.armature-console-${randomUUID().slice(0, 8)}.mjs`);
      writeFileSync(host, hostSource(entry, relative(root, entry), readyEnv));
      written.add(host);
      return { entry: host, execArgv: ['--import', AGENT], plainNode: /\.[cm]?js$/.test(entry) };
    },
    attach(child) {
      let failed = false;
      server.setServer({ state: 'starting' });
      child.on('message', (message: HostMessage) => {
        if (message.type === 'up') server.setServer({ state: 'up', url: message.url, handlers: message.handlers ?? {} });
        else if (message.type === 'spans') server.spans(message.spans);
        else if (message.type === 'failed') {
          failed = true;
          server.setServer({ state: 'failed', message: message.message, problems: message.problems });
        }
      });
      child.on('exit', (code, signal) => {
        if (!failed) server.setServer({ state: 'down', reason: `the server exited (${signal ?? `code ${code}`})` });
      });
    },
    async close() {
      for (const file of written) rmSync(file, { force: true });
      await server.close();
    },
  };
}
