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
  private lastSweep = 0;

  async admit(share: TaskShare, limits: TaskLimits, now: number): Promise<AdmissionLimit | undefined> {
    this.sweep(now);
    const mine = this.openOf(share.owner, now);
    let runningMine = 0;
    for (const [taskId, entry] of this.running) {
      if (entry.leaseExpiresAt <= now) this.running.delete(taskId);
      else if (entry.owner === share.owner) runningMine++;
    }
    if ((mine?.size ?? 0) >= limits.maxOpenTasksPerOwner) return 'maxOpenTasksPerOwner';
    if (runningMine >= limits.maxRunningTasksPerOwner) return 'maxRunningTasksPerOwner';
    if (this.running.size >= limits.maxRunningTasks) return 'maxRunningTasks';
    let tasks = mine;
    if (!tasks) {
      tasks = new Map();
      this.open.set(share.owner, tasks);
    }
    tasks.set(share.taskId, { expiresAt: share.expiresAt, bytes: 0 });
    this.running.set(share.taskId, { owner: share.owner, leaseExpiresAt: share.leaseExpiresAt });
    return undefined;
  }

  async renew(_owner: string, taskId: string, leaseExpiresAt: number): Promise<void> {
    const entry = this.running.get(taskId);
    if (entry) entry.leaseExpiresAt = leaseExpiresAt;
  }

  async stopped(_owner: string, taskId: string): Promise<void> {
    this.running.delete(taskId);
  }

  async keep(owner: string, taskId: string, bytes: number, limits: TaskLimits, now: number): Promise<KeepOutcome> {
    const entry = this.openOf(owner, now)?.get(taskId);
    if (!entry) return { kept: false, gone: true };
    let used = 0;
    for (const other of this.open.get(owner)?.values() ?? []) if (other !== entry) used += other.bytes;
    if (used + bytes > limits.maxResultBytesPerOwner) return { kept: false, used };
    entry.bytes = bytes;
    return { kept: true };
  }

  async release(owner: string, taskId: string): Promise<void> {
    this.running.delete(taskId);
    const tasks = this.open.get(owner);
    tasks?.delete(taskId);
    if (tasks?.size === 0) this.open.delete(owner);
  }

  /** The owner's open tasks, those past their ttl forgotten first. */
  private openOf(owner: string, now: number): Map<string, Open> | undefined {
    const tasks = this.open.get(owner);
    if (!tasks) return undefined;
    for (const [taskId, entry] of tasks) if (entry.expiresAt <= now) tasks.delete(taskId);
    if (tasks.size > 0) return tasks;
    this.open.delete(owner);
    return undefined;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const owner of [...this.open.keys()]) this.openOf(owner, now);
  }
}
