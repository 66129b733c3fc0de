import type { TaskQueue } from './task-queue.js';
import type { TaskQuota } from './task-quota.js';

/** The states of a task (2025-11-25 tasks utility and 2026-07-28 tasks extension alike); the last three are terminal. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

/** True for `completed`, `failed` and `cancelled`: a task never leaves them. */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

/** What a finished task answers to `tasks/result`: the call's result, or the JSON-RPC error it raised. */
export type TaskOutcome =
  | { readonly kind: 'result'; readonly result: Record<string, unknown> }
  | { readonly kind: 'error'; readonly code: number; readonly message: string; readonly data?: unknown };

/**
 * One task as a store keeps it: plain JSON-able data, so a shared store (Redis) can hold it as is.
 * Times are epoch milliseconds.
 */
export interface TaskRecord {
  readonly taskId: string;
  /** Who may see, poll and cancel it: the principal, else the session, else the connection. */
  readonly owner: string;
  /**
   * Who the task caps count it against, when not its owner: the caller's client address (an
   * anonymous HTTP caller), so that opening sessions does not open new quotas.
   */
  readonly caller?: string;
  /** The tool it runs, for reports. */
  readonly tool: string;
  /**
   * Created through the tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`) rather than
   * the 2025-11-25 tasks utility: a tool result, even a tool error, ends it `completed`; only a
   * JSON-RPC error fails it.
   */
  readonly extension?: boolean;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** How long after `createdAt` the task and its result are kept. */
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  /**
   * Until when the instance running the task vouches for it; it renews the lease while the handler
   * runs. A `working` task whose lease ran out belongs to an instance that stopped: it is failed.
   */
  readonly leaseExpiresAt: number;
  /** Set once the task is terminal (absent for a task cancelled before it produced anything). */
  readonly outcome?: TaskOutcome;
  /**
   * 2026-07-28: the questions the handler waits on, by key (the tasks extension's `inputRequests`:
   * `{ method, params }` each). A key leaves when it is answered or withdrawn.
   */
  readonly inputRequests?: Readonly<Record<string, unknown>>;
  /** 2026-07-28: answers delivered (`tasks/update`) for keys that were outstanding, until the running instance takes them. */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /**
   * How many times the task may run again on another instance when the one running it stops
   * (`@Tool({ task: { retries } })`, with a store that has a `queue`). Absent: 0.
   */
  readonly retries?: number;
  /** Which run is under way: 1 for the first. Absent: 1. */
  readonly attempt?: number;
}

/** A change to a task that is not terminal yet. */
export interface TaskUpdate {
  readonly status?: TaskStatus;
  readonly statusMessage?: string;
  readonly outcome?: TaskOutcome;
  readonly leaseExpiresAt?: number;
  /** A shorter `ttlMs` (from `createdAt`, as always): the task is forgotten sooner (a cancelled one). */
  readonly ttlMs?: number;
  /** Questions added to `inputRequests` (the key must be new); give `status: 'input_required'` with them. */
  readonly ask?: Readonly<Record<string, unknown>>;
  /**
   * Answers: each one whose key is in `inputRequests` moves it to `inputResponses`; answers to any
   * other key are ignored. Once no question is left, an `input_required` task is `working` again.
   */
  readonly answer?: Readonly<Record<string, unknown>>;
  /**
   * Keys done with (their answer taken, or the question withdrawn): removed from `inputRequests`
   * and `inputResponses`. Once no question is left, an `input_required` task is `working` again.
   */
  readonly settle?: readonly string[];
  /** The run now under way (another instance took the task over). */
  readonly attempt?: number;
}

/**
 * Where tasks live: in memory for one process (the default), or a shared store (Redis) so that
 * any instance can answer `tasks/get`, `tasks/result` and `tasks/cancel` for a task another
 * instance runs. A store keeps data and tells watchers about changes; the rules (who may see a
 * task, when a lease has run out) are the task service's, so every store applies them alike.
 */
export interface TaskStore {
  /**
   * The counts behind the task limits, kept where the tasks are so that they hold across every
   * instance sharing the store. Without it, each instance counts its own (in memory).
   */
  readonly quota?: TaskQuota;
  /**
   * The queue that runs a task again on another instance when the one running it stops (tasks
   * with `retries`). Without it, a task whose instance stops is failed once its lease lapses.
   */
  readonly queue?: TaskQueue;
  /** Stores a new task. */
  create(record: TaskRecord): Promise<void>;
  /** The task, or undefined when it never existed or its ttl has passed. */
  get(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * The owner's live tasks, oldest first, `limit` per page; `cursor` is the previous page's
   * `nextCursor`. Undefined for a cursor this store did not issue.
   */
  list(owner: string, cursor: string | undefined, limit: number): Promise<{ tasks: TaskRecord[]; nextCursor?: string } | undefined>;
  /**
   * Applies `update` atomically if the task exists and is not terminal, and tells its watchers
   * (an update of `leaseExpiresAt` alone is a renewal: watchers are not told, `lastUpdatedAt` stays).
   * Returns the updated task, or undefined when there was nothing to change (gone or terminal):
   * a terminal task never changes again, which settles the race between finishing and cancelling.
   */
  update(taskId: string, update: TaskUpdate): Promise<TaskRecord | undefined>;
  /**
   * Calls `listener` with the task each time it changes, on whichever instance the change was
   * made (a shared store relays changes between instances). Returns the function that stops it.
   */
  watch(taskId: string, listener: (record: TaskRecord) => void): () => void;
}
