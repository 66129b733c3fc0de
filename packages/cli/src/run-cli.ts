import { runBuild } from './commands/build-command.js';
import { runCheck } from './commands/check-command.js';
import { type CliIo, stderrOf, stdoutOf } from './commands/cli-io.js';
import { runDev } from './commands/dev-command.js';
import { runGenerate } from './commands/generate-command.js';
import { HELP, VERSION } from './commands/help-texts.js';
import { runInspect } from './commands/inspect-command.js';
import { runCreate } from './commands/new-command.js';

/** Each command (and its alias) of `armature`, run with the arguments after its name. */
const COMMANDS: Readonly<Record<string, (args: readonly string[], io: CliIo) => Promise<number>>> = {
  new: runCreate,
  create: runCreate,
  generate: runGenerate,
  g: runGenerate,
  inspect: runInspect,
  check: runCheck,
  build: runBuild,
  dev: runDev,
};

/** The `armature` command. Returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    stdoutOf(io)(HELP);
    return 0;
  }
  if (command === '--version' || command === '-v') {
    stdoutOf(io)(`${VERSION}\n`);
    return 0;
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (run) return run(rest, io);
  stderrOf(io)(`armature: unknown command "${command}"\n\n${HELP}`);
  return 1;
}
