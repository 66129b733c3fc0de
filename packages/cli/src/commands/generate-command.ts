import { generate } from '../generate/generate.js';
import { GENERATE_KINDS } from '../generate/generate-context.js';
import { parseCommand, UsageError } from './arguments.js';
import { type CliIo, guard } from './cli-io.js';

/** `armature generate <kind> <name> [options]`. */
export function runGenerate(args: readonly string[], io: CliIo): Promise<number> {
  return guard(io, async (ui) => {
    const { values, positionals } = parseCommand(args, {
      server: { type: 'string' },
      fields: { type: 'string' },
      output: { type: 'string' },
      'read-only': { type: 'boolean' },
      uri: { type: 'string' },
      tags: { type: 'string' },
      operations: { type: 'string' },
      'no-format': { type: 'boolean' },
      force: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
    });
    const [kind, name, ...extra] = positionals;
    if (!kind || !name || extra.length > 0) throw new UsageError(`usage: armature generate <${GENERATE_KINDS.join('|')}> <name> [options]`);
    await generate(
      kind,
      name,
      {
        server: values.server,
        fields: values.fields,
        output: values.output,
        readOnly: values['read-only'],
        uri: values.uri,
        tags: values.tags,
        operations: values.operations,
        format: !values['no-format'],
        force: values.force,
        dryRun: values['dry-run'],
        cwd: io.cwd,
      },
      ui,
    );
    return 0;
  });
}
