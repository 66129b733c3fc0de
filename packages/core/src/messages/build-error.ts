/** One thing wrong with the decorated classes, found at start-up. */
export interface BuildProblem {
  /** Stable code of the message (`ARM101`), listed with its fix in docs/error-codes.md. */
  readonly code?: string;
  /** `Class.method` (or `Class`, or `Dto.property`). */
  readonly where: string;
  /** What was found. */
  readonly message: string;
  /** How to fix it, as code where possible. */
  readonly fix: string;
}

/**
 * Thrown by `createMcpApp` before the first request when the decorated classes cannot be served.
 * It lists every problem at once (builder and DI alike), each naming `Class.method` and the fix.
 */
export class ArmatureBuildError extends Error {
  /** Every problem found, each with where, what, its code and the fix. */
  declare readonly problems: readonly BuildProblem[];

  constructor(
    problems: readonly BuildProblem[],
    heading = 'Armature cannot start the MCP server',
    scope = 'in the decorated classes',
    options?: ErrorOptions,
  ) {
    // Uncaught (`node dist/main.js`, the bundle), Node prints the stack and then every own
    // enumerable property: 28 lines through Armature's internals with the problems twice, where the
    // message already says what is wrong and how to fix it. So one frame (none would also lose
    // Node's pointer to the throw), the problems not enumerable, and the cause (a raw EADDRINUSE
    // error) only with ARMATURE_DEBUG=1, which brings the whole stack back.
    const limit = Error.stackTraceLimit;
    if (!debugging()) Error.stackTraceLimit = 1;
    try {
      super(formatProblems(heading, scope, problems), debugging() ? options : undefined);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'ArmatureBuildError';
    Object.defineProperty(this, 'problems', { value: problems, enumerable: false });
  }
}

/**
 * Points an uncaught start-up error at the user's own call (`createMcpApp(...)` in their entry)
 * instead of Armature's compiled source: Node prints the source line of the error's first frame
 * above the message, and that line is now the user's. `entry` is the public function called.
 * Other errors, and every error with ARMATURE_DEBUG=1, keep their stack.
 */
export function pointAtCaller(error: unknown, entry: Function): unknown {
  if (!(error instanceof ArmatureBuildError) || debugging() || typeof Error.captureStackTrace !== 'function') return error;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 1;
  try {
    Error.captureStackTrace(error, entry);
  } finally {
    Error.stackTraceLimit = limit;
  }
  return error;
}

/** Whether ARMATURE_DEBUG asks for the stacks and causes of start-up errors (any value but empty or 0). */
export function debugging(): boolean {
  const value = globalThis.process?.env?.ARMATURE_DEBUG;
  return value !== undefined && value !== '' && value !== '0';
}

/**
 * The one way a list of problems is written: a heading with the count, then each problem numbered
 * with where it is, what was found, its code, and the fix on the next line.
 *
 * @example
 * ```ts
 * formatProblems('SearchInput cannot be used as a tool input', 'in the DTO', error.problems);
 * ```
 */
export function formatProblems(heading: string, scope: string, problems: readonly BuildProblem[]): string {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  const lines = problems.map((p, i) => `  ${i + 1}. ${p.where}: ${p.message}${p.code ? ` [${p.code}]` : ''}\n     Fix: ${p.fix}`);
  return `${heading}: ${count} ${scope}.\n${lines.join('\n')}`;
}
