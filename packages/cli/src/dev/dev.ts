import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { DevConsole } from '@armature/console';
import { watch } from 'chokidar';
import { findProject } from '../util/project.js';
import { READY_FD_ENV, viteNodeArgs } from '../util/vite-node.js';

export interface DevOptions {
  /** The module that starts the server (default `src/main.ts`). */
  entry?: string;
  /** Folders and files to watch, relative to the project (default `src`, tsconfig.json, package.json, .env). */
  watch?: string[];
  cwd?: string;
  /** How long to wait for quiet after a change before restarting. Default 150 ms. */
  debounceMs?: number;
  /** Arguments for the entry (its `process.argv.slice(2)`), as after `armature dev <entry> --`. */
  args?: readonly string[];
  /** Where the supervisor's own lines go. Default stderr (stdout belongs to a stdio server). */
  log?: (line: string) => void;
  /**
   * `--ui`: the console that follows the server. It runs its own module in place of the entry (which
   * then names the module exporting the app, as for `inspect`), and hears from each server process.
   */
  ui?: DevConsole;
}

export interface DevSession {
  /** Restarts so far. */
  readonly restarts: number;
  /** Stops watching and ends the server. */
  stop(): Promise<void>;
  /** Resolves when the session ends (stop(), or Ctrl-C). */
  readonly closed: Promise<void>;
}

/**
 * `armature dev`: runs the entry with vite-node (which keeps decorator metadata, unlike tsx) in a
 * child process, and restarts that process when a watched file changes. A real restart, not
 * vite-node's in-process re-run, so a listening HTTP port is released before the new server binds.
 * The child inherits stdin/stdout, so a stdio client can talk to it; the supervisor writes to stderr.
 */
export function startDev(options: DevOptions = {}): DevSession {
  const project = findProject(options.cwd ?? process.cwd());
  const root = project.root;
  const entry = resolve(root, options.entry ?? 'src/main.ts');
  if (!existsSync(entry)) throw new Error(`${relative(root, entry)} does not exist. Fix: armature dev <entry that starts the server>`);
  const wrapped = options.ui?.wrap(root, entry, READY_FD_ENV);
  // A built app (JavaScript) runs under plain node, as in production; TypeScript sources under vite-node.
  const args = wrapped?.plainNode
    ? [...wrapped.execArgv, wrapped.entry, ...(options.args ?? [])]
    : [...(wrapped?.execArgv ?? []), ...viteNodeArgs(root, wrapped?.entry ?? entry, options.args)];
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const debounceMs = options.debounceMs ?? 150;
  const targets = (options.watch ?? ['src', 'tsconfig.json', 'package.json', '.env']).map((p) => join(root, p)).filter(existsSync);

  let child: ChildProcess | undefined;
  let restarts = 0;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let changed = new Set<string>();
  let finish: () => void = () => undefined;
  const closed = new Promise<void>((done) => {
    finish = done;
  });

  const launch = () => {
    // fd 3 is the runner's "entry evaluated" signal (see vite-node-runner.ts): for a stdio server,
    // which prints nothing, it is the only sign that the restart worked.
    child = spawn(process.execPath, args, {
      cwd: root,
      // Under the console the server listens on HTTP and talks to the console over IPC: stdin is not its.
      stdio: options.ui ? ['ignore', 'inherit', 'inherit', 'pipe', 'ipc'] : ['inherit', 'inherit', 'inherit', 'pipe'],
      // Callers of the dev server read the message of unexpected errors (`exposeErrors` defaults to true).
      env: { ...process.env, [READY_FD_ENV]: '3', ARMATURE_EXPOSE_ERRORS: '1' },
    });
    const current = child;
    options.ui?.attach(current);
    const first = restarts === 0;
    (current.stdio[3] as NodeJS.ReadableStream | null)?.once('data', () => {
      if (current === child && !stopping) log(first ? '[armature] the server is up' : '[armature] the server is up again');
    });
    current.on('exit', (code, signal) => {
      if (current !== child || stopping) return;
      log(`[armature] the server exited (${signal ?? `code ${code}`}); waiting for a change to restart`);
    });
  };

  const end = (process_: ChildProcess | undefined): Promise<void> =>
    new Promise((done) => {
      if (!process_ || process_.exitCode !== null || process_.signalCode !== null) return done();
      const kill = setTimeout(() => process_.kill('SIGKILL'), 3000);
      process_.once('exit', () => {
        clearTimeout(kill);
        done();
      });
      process_.kill('SIGTERM');
    });

  const restart = async () => {
    // Editors and `sed -i` write through temporary files that are gone by now: name the rest.
    const existing = [...changed].filter((f) => existsSync(f));
    const files = (existing.length > 0 ? existing : [...changed]).map((f) => relative(root, f)).join(', ');
    changed = new Set();
    restarts += 1;
    log(`[armature] ${files} changed: restarting`);
    const previous = child;
    child = undefined;
    await end(previous);
    if (!stopping) launch();
  };

  // chokidar, not fs.watch: Node 20's recursive fs.watch on Linux loses a file replaced by rename
  // (sed -i, editors' atomic saves), so every later save of that file went unseen.
  const watcher = watch(targets, {
    ignoreInitial: true,
    ignored: (path) => /(^|[\\/])(node_modules|dist|\.git)([\\/]|$)|\.armature-/.test(path),
  });
  watcher.on('all', (_event, path) => {
    changed.add(resolve(root, path));
    clearTimeout(timer);
    timer = setTimeout(() => void restart(), debounceMs);
  });

  const onSignal = () => void stop();
  const stop = async () => {
    if (stopping) return closed;
    stopping = true;
    clearTimeout(timer);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await watcher.close();
    await end(child);
    await options.ui?.close();
    finish();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  log(
    `[armature] dev: ${relative(root, entry)} with ${wrapped?.plainNode ? 'node' : 'vite-node'}, ` +
      (targets.length === 0 ? 'not watching' : `restarting on changes in ${targets.map((t) => relative(root, t)).join(', ')}`),
  );
  launch();
  return {
    get restarts() {
      return restarts;
    },
    stop,
    closed,
  };
}
