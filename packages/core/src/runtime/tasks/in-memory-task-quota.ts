import type { AdmissionLimit, KeepOutcome, TaskLimits, TaskQuota, TaskShare } from '../../state/task-quota.js';

/** Owners nobody asked about are swept at most this often (on admissions), so memory stays bounded without a timer. */
const SWEEP_EVERY_MS = 10_000;

interface Open {
  readonly expiresAt: number;
  bytes: number;
}

/**
 * The task counts of one process (the default, with the in-memory task store): each instance
 * counts its own tasks. Everything runs in one turn, so every method is atomic.
 */
export class InMemoryTaskQuota implements TaskQuota {
  private readonly open = new Map<string, Map<string, Open>>();
  private readonly running = new Map<string, { readonly owner: string; leaseExpiresAt: number }>();
  /** Every owner's open tasks and kept result bytes together (the whole server's caps). */
  private openTotal = 0;
  private bytesTotal = 0;
  private lastSweep = 0;

  async admit(share: TaskShare, limits: TaskLimits, now: number): Promise<AdmissionLimit | undefined> {
    this.sweep(now, this.openTotal >= limits.maxOpenTasks);
    const mine = this.openOf(share.owner, now);
    let runningMine = 0;
    for (const [taskId, entry] of this.running) {
      if (entry.leaseExpiresAt <= now) this.running.delete(taskId);
      else if (entry.owner === share.owner) runningMine++;
    }
    if ((mine?.size ?? 0) >= limits.maxOpenTasksPerOwner) return 'maxOpenTasksPerOwner';
    if (runningMine >= limits.maxRunningTasksPerOwner) return 'maxRunningTasksPerOwner';
    if (this.running.size >= limits.maxRunningTasks) return 'maxRunningTasks';
    if (this.openTotal >= limits.maxOpenTasks) return 'maxOpenTasks';
    let tasks = mine;
    if (!tasks) {
      tasks = new Map();
      this.open.set(share.owner, tasks);
    }
    tasks.set(share.taskId, { expiresAt: share.expiresAt, bytes: 0 });
    this.openTotal++;
    this.running.set(share.taskId, { owner: share.owner, leaseExpiresAt: share.leaseExpiresAt });
    return undefined;
  }

  async renew(_owner: string, taskId: string, leaseExpiresAt: number): Promise<void> {
    const entry = this.running.get(taskId);
    if (entry) entry.leaseExpiresAt = leaseExpiresAt;
  }

  async resumed(owner: string, taskId: string, leaseExpiresAt: number): Promise<void> {
    this.running.set(taskId, { owner, leaseExpiresAt });
  }

  async stopped(_owner: string, taskId: string): Promise<void> {
    this.running.delete(taskId);
  }

  async keep(owner: string, taskId: string, bytes: number, limits: TaskLimits, now: number): Promise<KeepOutcome> {
    // Exact counts only when the whole server's cap is in sight: a sweep visits every owner.
    this.sweep(now, this.bytesTotal + bytes > limits.maxResultBytes);
    const entry = this.openOf(owner, now)?.get(taskId);
    if (!entry) return { kept: false, gone: true };
    let used = 0;
    for (const other of this.open.get(owner)?.values() ?? []) if (other !== entry) used += other.bytes;
    if (used + bytes > limits.maxResultBytesPerOwner) return { kept: false, used, limit: 'maxResultBytesPerOwner' };
    const usedByAll = this.bytesTotal - entry.bytes;
    if (usedByAll + bytes > limits.maxResultBytes) return { kept: false, used: usedByAll, limit: 'maxResultBytes' };
    this.bytesTotal += bytes - entry.bytes;
    entry.bytes = bytes;
    return { kept: true };
  }

  async release(owner: string, taskId: string): Promise<void> {
    this.running.delete(taskId);
    const tasks = this.open.get(owner);
    const entry = tasks?.get(taskId);
    if (entry) this.forget(tasks as Map<string, Open>, taskId, entry);
    if (tasks?.size === 0) this.open.delete(owner);
  }

  /** The owner's open tasks, those past their ttl forgotten first. */
  private openOf(owner: string, now: number): Map<string, Open> | undefined {
    const tasks = this.open.get(owner);
    if (!tasks) return undefined;
    for (const [taskId, entry] of tasks) if (entry.expiresAt <= now) this.forget(tasks, taskId, entry);
    if (tasks.size > 0) return tasks;
    this.open.delete(owner);
    return undefined;
  }

  private forget(tasks: Map<string, Open>, taskId: string, entry: Open): void {
    tasks.delete(taskId);
    this.openTotal--;
    this.bytesTotal -= entry.bytes;
  }

  /** Forgets every owner's expired tasks, at most every `SWEEP_EVERY_MS` unless a whole-server cap needs exact counts now. */
  private sweep(now: number, exact: boolean): void {
    if (!exact && now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const owner of [...this.open.keys()]) this.openOf(owner, now);
  }
}
