import { createProject } from '../create/create-project.js';
import { TEMPLATES, type Template, type Transport } from '../create/project-files.js';
import { RUNTIMES, type Runtime } from '../create/runtime-commands.js';
import { PACKAGE_MANAGERS, type PackageManager } from '../util/package-manager.js';
import { oneOf, parseCommand, UsageError } from './arguments.js';
import { type CliIo, guard, stdoutOf } from './cli-io.js';
import { CREATE_HELP } from './help-texts.js';

/** `armature new ...` and `create-armature ...`. */
export async function runCreate(argv: readonly string[], io: CliIo = {}): Promise<number> {
  return guard(io, async (ui) => {
    const { values, positionals } = parseCommand(argv, {
      transport: { type: 'string' },
      template: { type: 'string' },
      runtime: { type: 'string' },
      pm: { type: 'string' },
      install: { type: 'boolean' },
      'no-install': { type: 'boolean' },
      dir: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
      force: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      stdoutOf(io)(CREATE_HELP);
      return 0;
    }
    if (positionals.length > 1) throw new UsageError(`one project name is expected, got ${positionals.join(' ')}`);
    const created = await createProject(
      {
        name: positionals[0],
        directory: values.dir,
        transport: oneOf<Transport>(values.transport, ['stdio', 'http'], '--transport'),
        template: oneOf<Template>(values.template, TEMPLATES, '--template'),
        runtime: oneOf<Runtime>(values.runtime, RUNTIMES, '--runtime'),
        packageManager: oneOf<PackageManager>(values.pm, PACKAGE_MANAGERS, '--pm'),
        install: values['no-install'] ? false : values.install,
        yes: values.yes,
        force: values.force,
        dryRun: values['dry-run'],
        cwd: io.cwd,
        nodeVersion: io.nodeVersion,
      },
      ui,
    );
    // The project is written either way; a failed install still fails the command for scripts.
    return created.installFailed ? 1 : 0;
  });
}
