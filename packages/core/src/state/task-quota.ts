/**
 * The caps on tasks (`createMcpApp(..., { tasks: { limits } })`). An owner is who may see a task:
 * the authenticated principal, else the 2025-11-25 session, else the connection.
 */
export interface TaskLimits {
  /**
   * Tasks one owner holds: running, or finished and kept with their result until their ttl
   * passes. A cancelled or expired task no longer counts.
   */
  readonly maxOpenTasksPerOwner: number;
  /** Task handlers of one owner running at once. */
  readonly maxRunningTasksPerOwner: number;
  /** Task handlers running at once, all owners together (on a shared store: all instances together). */
  readonly maxRunningTasks: number;
  /**
   * Bytes of results (as JSON) one owner's finished tasks keep until their ttl passes. A result
   * that does not fit is dropped, and its task fails saying so.
   */
  readonly maxResultBytesPerOwner: number;
}

/** The name of one cap, as the option names it. */
export type TaskLimitName = keyof TaskLimits;

/** The caps that refuse a new task (the result bytes cap applies when a result is kept). */
export type AdmissionLimit = Exclude<TaskLimitName, 'maxResultBytesPerOwner'>;

/** One task as the quota counts it. Times are epoch milliseconds. */
export interface TaskShare {
  readonly owner: string;
  readonly taskId: string;
  /** When its open share ends by itself (`createdAt + ttl`). */
  readonly expiresAt: number;
  /** Until when its running share holds unless renewed (the task's lease: a stopped instance frees it). */
  readonly leaseExpiresAt: number;
}

/** What keeping a result came to. */
export type KeepOutcome =
  /** Counted against the owner's result bytes. */
  | { readonly kept: true }
  /** Over `maxResultBytesPerOwner`: not counted; `used` is what the owner's other results hold. */
  | { readonly kept: false; readonly used: number }
  /** The task holds no share any more (cancelled or expired meanwhile): nothing to count. */
  | { readonly kept: false; readonly gone: true };

/**
 * The counts behind the task limits. Each method is atomic, and each first forgets the shares that
 * have run out by `now` (expired tasks, running shares whose lease lapsed), so an expired task
 * frees its share the moment its ttl passes. In memory for one process by default; a shared
 * store (Redis) counts across all its instances.
 */
export interface TaskQuota {
  /**
   * Counts the task open and running if no cap is reached; else counts nothing and returns the
   * first cap reached, in the order of `TaskLimits`.
   */
  admit(share: TaskShare, limits: TaskLimits, now: number): Promise<AdmissionLimit | undefined>;
  /** Extends the task's running share to `leaseExpiresAt` (while its handler runs). */
  renew(owner: string, taskId: string, leaseExpiresAt: number): Promise<void>;
  /** The handler ended: frees the task's running share (its open share stays until the ttl). */
  stopped(owner: string, taskId: string): Promise<void>;
  /** Counts `bytes` of result against the owner's cap, if they fit and the task still holds a share. */
  keep(owner: string, taskId: string, bytes: number, limits: TaskLimits, now: number): Promise<KeepOutcome>;
  /** The task was cancelled: frees every share it holds at once. */
  release(owner: string, taskId: string): Promise<void>;
}
