import { buildApp } from '../build/bundle-app.js';
import { parseCommand, UsageError } from './arguments.js';
import { type CliIo, guard, stdoutOf } from './cli-io.js';

const BUILD_USAGE = 'usage: armature build [entry] [--out <dir>] [--external <package>] [--target node|workers]';

/** `armature build [entry] [options]`: one bundle of the compiled server, and how to run it. */
export function runBuild(args: readonly string[], io: CliIo): Promise<number> {
  return guard(io, async () => {
    const out = stdoutOf(io);
    const { values, positionals } = parseCommand(args, {
      out: { type: 'string' },
      external: { type: 'string', multiple: true },
      target: { type: 'string' },
    });
    if (positionals.length > 1) throw new UsageError(BUILD_USAGE);
    const target = values.target ?? 'node';
    if (target !== 'node' && target !== 'workers') throw new UsageError(`--target is node or workers, got ${target}\n${BUILD_USAGE}`);
    const built = await buildApp({ entry: positionals[0], outDir: values.out, external: values.external, target, cwd: io.cwd });
    const files = built.files.filter((f) => f.endsWith('.mjs')).length;
    out(`armature build: ${built.entry} (${(built.bytes / 1024).toFixed(0)} KiB of JavaScript in ${files} file(s))\n`);
    if (built.notInstalled.length > 0) {
      out(`Not installed, so left as imports that fail only if they run: ${built.notInstalled.join(', ')}\n`);
    }
    out(
      target === 'workers'
        ? `Serve it with: npx wrangler dev (wrangler.toml: main = "${built.entry}")\n`
        : `Run it with: node ${built.entry}\n`,
    );
    return 0;
  });
}
