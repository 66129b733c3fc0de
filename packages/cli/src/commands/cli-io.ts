import { CreateError } from '../create/create-project.js';
import { FieldSpecError } from '../generate/field-spec.js';
import { GenerateError } from '../generate/generate-context.js';
import { InspectError } from '../inspect/load-catalogue.js';
import { PlanConflictError } from '../util/file-plan.js';
import { ProjectError } from '../util/project.js';
import { SourceEditError } from '../util/source-edit.js';
import { CancelledError, defaultUi, type Ui } from '../util/ui.js';
import { ViteNodeMissingError } from '../util/vite-node.js';
import { UsageError } from './arguments.js';

/** What a run printed and how it ended; `main` turns it into the process's output and exit code. */
export interface CliIo {
  ui?: Ui;
  cwd?: string;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** The Node version `new`/`create` checks a template against. Default: this process's. */
  nodeVersion?: string;
}

/** Where a command prints its output: the caller's `stdout`, else this process's. */
export function stdoutOf(io: CliIo): (text: string) => void {
  return io.stdout ?? ((text: string) => process.stdout.write(text));
}

/** Where a command prints what goes beside its output: the caller's `stderr`, else this process's. */
export function stderrOf(io: CliIo): (text: string) => void {
  return io.stderr ?? ((text: string) => process.stderr.write(text));
}

/** The errors a user can cause and fix: said as one message, without a stack. */
const EXPECTED = [
  UsageError,
  CreateError,
  GenerateError,
  FieldSpecError,
  PlanConflictError,
  ProjectError,
  SourceEditError,
  InspectError,
  ViteNodeMissingError,
  CancelledError,
];

/**
 * Runs a command and turns an expected failure (a wrong argument, a project it cannot work on, a
 * cancelled prompt) into its message on the UI and exit code 1 (130 when cancelled); anything
 * else is a bug and is thrown.
 */
export async function guard(io: CliIo, work: (ui: Ui) => Promise<number>): Promise<number> {
  const ui = io.ui ?? defaultUi();
  try {
    return await work(ui);
  } catch (error) {
    if (
      error instanceof Error &&
      (EXPECTED.some((type) => error instanceof type) || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
    ) {
      ui.error(error.message);
      return error instanceof CancelledError ? 130 : 1;
    }
    throw error;
  }
}
