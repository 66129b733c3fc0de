import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { checkContract, readContractSnapshot, skippedCheck, writeContractSnapshot } from '../inspect/contract-file.js';
import { INSPECT_FORMATS, type InspectFormat } from '../inspect/format-catalogue.js';
import { inspectProject } from '../inspect/inspect.js';
import { RULES } from '../inspect/lint-catalogue.js';
import { loadCatalogue } from '../inspect/load-catalogue.js';
import { findProject } from '../util/project.js';
import { oneOf, parseCommand, UsageError } from './arguments.js';
import { type CliIo, guard, stdoutOf } from './cli-io.js';
import { serveConsole } from './serve-console.js';

const INSPECT_USAGE =
  'usage: armature inspect [entry] [--format text|json|markdown|server-json|server-card [--url <url>]] [--strict] | [entry] --snapshot <file> | [entry] --check <file> [--if-present]';

/** `armature inspect [entry] [options]`: the catalogue and its lint, the rules, the contract file, or the console. */
export function runInspect(args: readonly string[], io: CliIo): Promise<number> {
  return guard(io, async () => {
    const out = stdoutOf(io);
    const { values, positionals } = parseCommand(args, {
      format: { type: 'string' },
      strict: { type: 'boolean' },
      rules: { type: 'boolean' },
      snapshot: { type: 'string' },
      check: { type: 'string' },
      'if-present': { type: 'boolean' },
      ui: { type: 'boolean' },
      url: { type: 'string' },
    });
    if (values.url !== undefined && values.format !== 'server-card') throw new UsageError(INSPECT_USAGE);
    if (values.ui) return serveConsole(positionals, [], io);
    if (values.rules) {
      out(
        `${Object.entries(RULES)
          .map(([rule, what]) => `${rule.padEnd(24)} ${what}`)
          .join('\n')}\n`,
      );
      return 0;
    }
    if (positionals.length > 1) throw new UsageError(INSPECT_USAGE);
    if (values.snapshot !== undefined || values.check !== undefined) {
      return contractFile({ snapshot: values.snapshot, check: values.check, ifPresent: values['if-present'] }, positionals[0], io);
    }
    const result = await inspectProject({
      entry: positionals[0],
      format: oneOf<InspectFormat>(values.format, INSPECT_FORMATS, '--format'),
      ...(values.url === undefined ? {} : { url: values.url }),
      cwd: io.cwd,
    });
    out(result.output);
    return values.strict && result.findings.length > 0 ? 1 : 0;
  });
}

/** `--snapshot <file>` writes the tool contract; `--check <file>` compares with it (exit 1 on a breaking change). */
async function contractFile(
  file: { snapshot: string | undefined; check: string | undefined; ifPresent: boolean | undefined },
  entry: string | undefined,
  io: CliIo,
): Promise<number> {
  const out = stdoutOf(io);
  const cwd = io.cwd ?? process.cwd();
  if (file.snapshot !== undefined && file.check !== undefined) throw new UsageError(INSPECT_USAGE);
  if (file.check !== undefined && file.ifPresent && !existsSync(resolve(cwd, file.check))) {
    out(skippedCheck(file.check));
    return 0;
  }
  // A missing or unreadable snapshot is said before the app is loaded (which takes seconds).
  const recorded = file.check === undefined ? undefined : readContractSnapshot(cwd, file.check);
  const catalogue = await loadCatalogue(findProject(cwd).root, entry);
  if (recorded === undefined) {
    out(writeContractSnapshot(cwd, file.snapshot as string, catalogue));
    return 0;
  }
  const check = checkContract(file.check as string, recorded, catalogue);
  out(check.output);
  return check.breaking ? 1 : 0;
}
