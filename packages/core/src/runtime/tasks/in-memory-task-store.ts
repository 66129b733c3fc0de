import { isTerminal, type TaskRecord, type TaskStore, type TaskUpdate } from '../../state/task-store.js';
import { TaskWatchers } from '../../state/task-watchers.js';

/** Expired tasks are swept at most this often (on writes), so memory stays bounded without a timer. */
const SWEEP_EVERY_MS = 10_000;

/** The questions and answers of a task after `update` (see TaskUpdate), with the status they leave it in. */
function questionsAfter(current: TaskRecord, status: TaskRecord['status'], update: TaskUpdate): Partial<TaskRecord> {
  // Maps: keys are the client's text (an answer keyed "__proto__" is just an unknown key).
  const requests = new Map(Object.entries({ ...current.inputRequests }));
  for (const [key, value] of Object.entries(update.ask ?? {})) requests.set(key, value);
  const responses = new Map(Object.entries({ ...current.inputResponses }));
  for (const [key, value] of Object.entries(update.answer ?? {})) {
    if (requests.delete(key)) responses.set(key, value);
  }
  for (const key of update.settle ?? []) {
    requests.delete(key);
    responses.delete(key);
  }
  return {
    inputRequests: requests.size > 0 ? Object.fromEntries(requests) : undefined,
    inputResponses: responses.size > 0 ? Object.fromEntries(responses) : undefined,
    status: status === 'input_required' && requests.size === 0 ? 'working' : status,
  };
}

/**
 * The default task store: one process's memory. Tasks disappear with the process; a shared store
 * (Redis) is needed when several instances serve one endpoint.
 */
export class InMemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly watchers = new TaskWatchers();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async create(record: TaskRecord): Promise<void> {
    this.sweep();
    this.tasks.set(record.taskId, record);
  }

  async get(taskId: string): Promise<TaskRecord | undefined> {
    return this.live(taskId);
  }

  async list(owner: string, cursor: string | undefined, limit: number) {
    const offset = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isSafeInteger(offset) || offset < 0 || String(offset) !== (cursor ?? '0')) return undefined;
    const mine = [...this.tasks.values()].filter((t) => t.owner === owner && this.alive(t));
    const tasks = mine.slice(offset, offset + limit);
    return offset + limit < mine.length ? { tasks, nextCursor: String(offset + limit) } : { tasks };
  }

  async update(taskId: string, update: TaskUpdate): Promise<TaskRecord | undefined> {
    // Read and written in one turn: concurrent updates (two questions asked at once) never lose one.
    const current = this.live(taskId);
    if (!current || isTerminal(current.status)) return undefined;
    // A lease renewal is bookkeeping, not a change a client sees.
    const renewal = Object.keys(update).every((key) => key === 'leaseExpiresAt');
    const { ask, answer, settle, ...fields } = update;
    const next: TaskRecord = {
      ...current,
      ...fields,
      ...(ask || answer || settle ? questionsAfter(current, fields.status ?? current.status, update) : {}),
      lastUpdatedAt: renewal ? current.lastUpdatedAt : this.now(),
    };
    this.tasks.set(taskId, next);
    if (!renewal) this.watchers.tell(next);
    return next;
  }

  watch(taskId: string, listener: (record: TaskRecord) => void): () => void {
    return this.watchers.add(taskId, listener);
  }

  /** The task while its ttl lasts; past it, the task is forgotten. */
  private live(taskId: string): TaskRecord | undefined {
    const record = this.tasks.get(taskId);
    if (!record || this.alive(record)) return record;
    this.tasks.delete(taskId);
    return undefined;
  }

  private alive(record: TaskRecord): boolean {
    return this.now() < record.createdAt + record.ttlMs;
  }

  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [id, record] of this.tasks) if (!this.alive(record)) this.tasks.delete(id);
  }
}
