/**
 * The caps on tasks (`createMcpApp(..., { tasks: { limits } })`). The per-owner caps count per
 * caller: the authenticated principal, else the client's address (HTTP, `trustProxy` honoured),
 * else the connection (stdio, in memory); never per 2025-11-25 session, which a client may open
 * and close at will.
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
  /** Tasks the whole server holds, all callers together (on a shared store: all instances together). */
  readonly maxOpenTasks: number;
  /** Bytes of results the whole server keeps, all callers together (on a shared store: all instances together). */
  readonly maxResultBytes: number;
}

/** The name of one cap, as the option names it. */
export type TaskLimitName = keyof TaskLimits;

/** The caps on result bytes: they apply when a result is kept. */
export type ResultLimit = 'maxResultBytesPerOwner' | 'maxResultBytes';

/** The caps that refuse a new task. */
export type AdmissionLimit = Exclude<TaskLimitName, ResultLimit>;

/** One task as the quota counts it. Times are epoch milliseconds. */
export interface TaskShare {
  /** Who the caps count the task against (the caller: principal, else client address, else connection). */
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
  /** Over `limit`: not counted; `used` is what the other results it counts hold (the owner's, or the server's). */
  | { readonly kept: false; readonly used: number; readonly limit: ResultLimit }
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
  /**
   * The task runs again on this instance after the one running it stopped (`retries`): counts its
   * running share again until `leaseExpiresAt` (the share of the stopped run lapsed with its
   * lease). No cap is checked: the task was admitted when it was created, only its run moved.
   */
  resumed(owner: string, taskId: string, leaseExpiresAt: number): Promise<void>;
  /** The handler ended: frees the task's running share (its open share stays until the ttl). */
  stopped(owner: string, taskId: string): Promise<void>;
  /** Counts `bytes` of result against the owner's cap, if they fit and the task still holds a share. */
  keep(owner: string, taskId: string, bytes: number, limits: TaskLimits, now: number): Promise<KeepOutcome>;
  /** The task was cancelled: frees every share it holds at once. */
  release(owner: string, taskId: string): Promise<void>;
}
