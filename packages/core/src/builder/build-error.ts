/** One thing wrong with the decorated classes, found at start-up. */
export interface BuildProblem {
  /** `Class.method` (or `Class`, or `Dto.property`). */
  readonly where: string;
  /** What was found. */
  readonly message: string;
  /** How to fix it, as code where possible. */
  readonly fix: string;
}

/**
 * Thrown by `createMcpApp` before the first request when the decorated classes cannot be served.
 * It lists every problem at once, each naming `Class.method` and the fix.
 */
export class ArmatureBuildError extends Error {
  constructor(readonly problems: readonly BuildProblem[]) {
    super(formatProblems(problems));
    this.name = 'ArmatureBuildError';
  }
}

function formatProblems(problems: readonly BuildProblem[]): string {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  const lines = problems.map((p, i) => `  ${i + 1}. ${p.where}: ${p.message}\n     Fix: ${p.fix}`);
  return `Armature cannot start the MCP server: ${count} in the decorated classes.\n${lines.join('\n')}`;
}
