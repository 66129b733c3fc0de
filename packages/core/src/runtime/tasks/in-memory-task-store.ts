import { isTerminal, type TaskRecord, type TaskStore, type TaskUpdate } from '../../state/task-store.js';

/** Expired tasks are swept at most this often (on writes), so memory stays bounded without a timer. */
const SWEEP_EVERY_MS = 10_000;

/**
 * The default task store: one process's memory. Tasks disappear with the process; a shared store
 * (Redis) is needed when several instances serve one endpoint.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly watchers = new Map<string, Set<(record: TaskRecord) => void>>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async create(record: TaskRecord): Promise<void> {
    this.sweep();
    this.tasks.set(record.taskId, record);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    const record = this.tasks.get(taskId);
    if (!record || this.live(record)) return record;
    this.tasks.delete(taskId);
    return undefined;
  }

  async list(owner: string, cursor: string | undefined, limit: number) {
    const offset = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(offset) || offset < 0 || String(offset) !== (cursor ?? '0')) return undefined;
    const mine = [...this.tasks.values()].filter((t) => t.owner === owner && this.live(t));
    const tasks = mine.slice(offset, offset + limit);
    return offset + limit < mine.length ? { tasks, nextCursor: String(offset + limit) } : { tasks };
  }

  async update(taskId: string, update: TaskUpdate): Promise<TaskRecord | undefined> {
    const current = await this.get(taskId);
    if (!current || isTerminal(current.status)) return undefined;
    // A lease renewal is bookkeeping, not a change a client sees.
    const renewal = Object.keys(update).every((key) => key === 'leaseExpiresAt');
    const next: TaskRecord = { ...current, ...update, lastUpdatedAt: renewal ? current.lastUpdatedAt : this.now() };
    this.tasks.set(taskId, next);
    if (!renewal) for (const listener of this.watchers.get(taskId) ?? []) listener(next);
    return next;
  }

  watch(taskId: string, listener: (record: TaskRecord) => void): () => void {
    let set = this.watchers.get(taskId);
    if (!set) {
      set = new Set();
      this.watchers.set(taskId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.watchers.delete(taskId);
    };
  }

  private live(record: TaskRecord): boolean {
    return this.now() < record.createdAt + record.ttlMs;
  }

  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [id, record] of this.tasks) if (!this.live(record)) this.tasks.delete(id);
  }
}
