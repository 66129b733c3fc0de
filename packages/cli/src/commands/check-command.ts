import { findUndecoratedProperties } from '../inspect/find-undecorated-properties.js';
import { missingDecoratorSettings } from '../util/decorator-settings.js';
import { findProject } from '../util/project.js';
import { parseCommand, UsageError } from './arguments.js';
import { type CliIo, guard, stdoutOf } from './cli-io.js';

/** `armature check [folder]`: DTO properties with no decorator, and decorator settings the tsconfig lacks. */
export function runCheck(args: readonly string[], io: CliIo): Promise<number> {
  return guard(io, async () => {
    const out = stdoutOf(io);
    const { positionals } = parseCommand(args, {});
    if (positionals.length > 1) throw new UsageError('usage: armature check [folder]');
    const project = findProject(io.cwd ?? process.cwd());
    const settings = missingDecoratorSettings(project.root).map((m) => ({
      rule: 'decorator-settings',
      where: m.tsconfig,
      message: `does not set "${m.setting}": true: ${m.message} [${m.code}]. Fix: ${m.fix}`,
    }));
    const findings = [...settings, ...findUndecoratedProperties(project.root, positionals[0])];
    for (const f of findings) out(`${f.rule}  ${f.where}: ${f.message}\n`);
    out(findings.length === 0 ? 'armature check: every DTO property has a decorator\n' : `armature check: ${findings.length} finding(s)\n`);
    return findings.length === 0 ? 0 : 1;
  });
}
