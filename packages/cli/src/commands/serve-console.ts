import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { startConsole } from '@armature/console';
import { startDev } from '../dev/dev.js';
import { findProject } from '../util/project.js';
import { UsageError } from './arguments.js';
import { type CliIo, stderrOf } from './cli-io.js';

/**
 * `dev --ui` and `inspect --ui`: the console's page, and the app of `entry` (default src/app.ts)
 * served under it; `dev` restarts it on changes, `inspect` (`watch` empty) serves it as it is.
 */
export async function serveConsole(positionals: readonly string[], watch: string[] | undefined, io: CliIo): Promise<number> {
  if (positionals.length > 1) throw new UsageError('usage: armature dev|inspect [entry] --ui');
  const entry = positionals[0] ?? 'src/app.ts';
  const root = findProject(io.cwd ?? process.cwd()).root;
  if (!existsSync(resolve(root, entry))) {
    throw new UsageError(
      `${entry} does not exist. Fix: armature dev --ui <the module that exports the app: createApp(), an app, servers, or the @McpServer classes>`,
    );
  }
  const ui = await startConsole();
  try {
    const session = startDev({ entry, watch, cwd: io.cwd, ui });
    stderrOf(io)(`[armature] console: ${ui.url}\n`);
    await session.closed;
  } catch (error) {
    await ui.close();
    throw error;
  }
  return 0;
}
