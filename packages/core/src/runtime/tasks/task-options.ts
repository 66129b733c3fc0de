import { ArmatureBuildError } from '../../messages/build-error.js';
import { MESSAGES, problem } from '../../messages/message-catalog.js';
import type { TaskLimits } from '../../state/task-quota.js';
import type { TaskStore } from '../../state/task-store.js';
import type { FallbackToolNames } from './fallback-tools.js';

// The tasks' options as users give them (`createMcpApp(..., { tasks })`), their defaults, and
// the start-up checks of those that must be whole numbers.

/** What users pass as `createMcpApp(..., { tasks })`. */
export interface TaskOptions {
  /** Where tasks live. Default: this process's memory (one instance). */
  store?: TaskStore;
  /** How long a task and its result are kept when the client asks for no ttl. Default 1 hour. */
  defaultTtlMs?: number;
  /** The longest ttl a client may ask for (longer requests are cut to it). Default 24 hours. */
  maxTtlMs?: number;
  /** The polling interval suggested to clients (`pollInterval`). Default 1,000 ms. */
  pollIntervalMs?: number;
  /**
   * How long a task stays `working` without its instance renewing the lease (renewed every third
   * of it while the handler runs). Past it, the task is failed. Default 30,000 ms.
   */
  leaseMs?: number;
  /**
   * 2026-07-28: how long a task waits for the answer to a question it asked (`ctx.elicit`,
   * `ctx.elicitUrl`, `ctx.sample`, `ctx.roots`, shown in its `inputRequests`); past it the question
   * fails with a JSON-RPC error (-32603) and, unless the handler catches it, so does the task.
   * Default 600,000 ms (10 minutes: time for a person to read and answer a form).
   */
  inputTimeoutMs?: number;
  /**
   * Caps on tasks per owner and in total; each left out keeps its default (`DEFAULT_TASK_LIMITS`).
   * With a shared store (`redisState`) they count across all instances. See docs/limits.md.
   */
  limits?: Partial<TaskLimits>;
  /**
   * Tools, named by the app, that stand in for tasks/get, tasks/result and tasks/cancel for clients
   * that never poll tasks: a `'required'` task tool they call starts its task and answers at once
   * with its id and these names. Off by default. See docs/tasks.md.
   */
  fallbackTools?: FallbackToolNames;
}

/**
 * The default task limits. A caller is a principal, else a client address (anonymous HTTP), else
 * a connection (stdio, in memory), and one task handler costs tens of kilobytes while it runs: the
 * defaults leave room for a client fanning out a batch (16 at once, 100 kept) and cap what one
 * anonymous client can make the server hold however many sessions it opens (16 handlers, 100
 * records, 16 MiB of results), while the whole server holds at most 256 handlers, 10,000 tasks and
 * 256 MiB of results (with redisState: all instances together). See docs/tasks.md.
 */
export const DEFAULT_TASK_LIMITS: TaskLimits = Object.freeze({
  maxOpenTasksPerOwner: 100,
  maxRunningTasksPerOwner: 16,
  maxRunningTasks: 256,
  maxResultBytesPerOwner: 16 * 1024 * 1024,
  maxOpenTasks: 10_000,
  maxResultBytes: 256 * 1024 * 1024,
});

/** The limits with the defaults filled in; a limit that is not a whole number of 1 or more is a start-up error. */
export function limitsOf(chosen: Partial<TaskLimits> = {}): TaskLimits {
  const given = Object.entries(chosen).filter(([, value]) => value !== undefined);
  const problems = given
    .filter(([, value]) => !(Number.isSafeInteger(value) && (value as number) >= 1))
    .map(([limit, value]) =>
      problem(
        MESSAGES.taskLimitInvalid,
        'createMcpApp options',
        limit,
        typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value)),
      ),
    );
  if (problems.length > 0) throw new ArmatureBuildError(problems, 'Armature cannot start the MCP server', 'in its options');
  return Object.freeze({ ...DEFAULT_TASK_LIMITS, ...Object.fromEntries(given) });
}

/** `tasks.inputTimeoutMs`, 10 minutes when left out; one that is not a whole number of 1 or more is a start-up error. */
export function inputTimeoutOf(chosen: number | undefined): number {
  if (chosen === undefined) return 600_000;
  if (Number.isSafeInteger(chosen) && chosen >= 1) return chosen;
  const found = typeof chosen === 'number' ? String(chosen) : (JSON.stringify(chosen) ?? String(chosen));
  const problems = [problem(MESSAGES.taskInputTimeoutInvalid, 'createMcpApp options', found)];
  throw new ArmatureBuildError(problems, 'Armature cannot start the MCP server', 'in its options');
}
