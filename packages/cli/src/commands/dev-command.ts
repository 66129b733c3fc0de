import { startDev } from '../dev/dev.js';
import { parseCommand, UsageError } from './arguments.js';
import { type CliIo, guard } from './cli-io.js';
import { serveConsole } from './serve-console.js';

/** `armature dev [entry] [options] [-- args]`: the server run by vite-node, restarted on changes; or the console (`--ui`). */
export function runDev(args: readonly string[], io: CliIo): Promise<number> {
  return guard(io, async () => {
    // Everything after `--` belongs to the entry; only what comes before is armature's.
    const end = args.indexOf('--');
    const own = end === -1 ? args : args.slice(0, end);
    const entryArgs = end === -1 ? [] : args.slice(end + 1);
    const { values, positionals } = parseDevArgs(own);
    if (positionals.length > 1) throw new UsageError('usage: armature dev [entry] [--watch <path>] [-- <arguments for the entry>]');
    if (values.ui && entryArgs.length > 0) {
      throw new UsageError(`armature dev --ui serves the app itself, so arguments after -- are not used: drop ${entryArgs.join(' ')}`);
    }
    if (values.ui) return serveConsole(positionals, values.watch, io);
    const session = startDev({ entry: positionals[0], watch: values.watch, args: entryArgs, cwd: io.cwd });
    await session.closed;
    return 0;
  });
}

/** armature's own `dev` options; an unknown one was most likely meant for the entry, and the error says how to pass it. */
function parseDevArgs(args: readonly string[]) {
  try {
    return parseCommand(args, { watch: { type: 'string', multiple: true }, ui: { type: 'boolean' } });
  } catch (error) {
    const unknown = /Unknown option '([^']+)'/.exec((error as Error).message)?.[1];
    if (!unknown) throw error;
    const at = args.findIndex((arg) => arg === unknown || arg.startsWith(`${unknown}=`));
    const ownArgs = args.slice(0, at).some((arg) => !arg.startsWith('-')) ? args.slice(0, at) : [...args.slice(0, at), 'src/main.ts'];
    throw new UsageError(
      `armature dev has no option ${unknown}. Arguments for your entry go after --:\n  armature dev ${[...ownArgs, '--', ...args.slice(at)].join(' ')}`,
    );
  }
}
