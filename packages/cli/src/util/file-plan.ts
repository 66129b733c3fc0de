import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One file a command will write. `update` edits a file that exists; `create` makes a new one. */
export interface PlannedFile {
  readonly path: string;
  readonly action: 'create' | 'update';
  readonly content: string;
  /** What an update changes, for the printed plan. */
  readonly note?: string;
}

export interface ApplyOptions {
  /** Replace files that `create` would otherwise refuse to touch. */
  force?: boolean;
  /** Print the plan only. */
  dryRun?: boolean;
}

export interface AppliedPlan {
  /** Lines such as `create  src/weather/weather.server.ts`. */
  readonly lines: string[];
  /** Files written (relative paths); none on a dry run. */
  readonly written: string[];
}

export class PlanConflictError extends Error {
  constructor(readonly paths: readonly string[]) {
    super(
      `${paths.length === 1 ? 'This file exists' : 'These files exist'} and would be overwritten:\n${paths.map((p) => `  ${p}`).join('\n')}\n` +
        'Nothing was written. Use --force to overwrite, or pick another name (--dry-run shows the plan).',
    );
    this.name = 'PlanConflictError';
  }
}

/**
 * Writes a plan under `root`, all or nothing: every conflict is found before the first write. A
 * `create` over an existing file is refused without `force`; a file whose content would not
 * change is left alone.
 */
export function applyPlan(root: string, plan: readonly PlannedFile[], options: ApplyOptions = {}): AppliedPlan {
  const conflicts = plan.filter((file) => file.action === 'create' && existsSync(join(root, file.path)));
  if (conflicts.length > 0 && !options.force) throw new PlanConflictError(conflicts.map((file) => file.path));
  const lines: string[] = [];
  const written: string[] = [];
  for (const file of plan) {
    const target = join(root, file.path);
    const exists = existsSync(target);
    const unchanged = exists && readFileSync(target, 'utf8') === file.content;
    const verb = unchanged ? 'same' : file.action === 'create' && exists ? 'overwrite' : file.action;
    lines.push(`${verb.padEnd(9)} ${file.path}${file.note ? `  (${file.note})` : ''}`);
    if (options.dryRun || unchanged) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
    written.push(file.path);
  }
  return { lines, written };
}
