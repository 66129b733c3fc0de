import type { TaskRecord } from './task-store.js';

/**
 * The listeners of a `TaskStore`'s `watch`, by task id: what a store adds a listener to, tells of
 * a task's change, and asks whether anyone listens to a task. For stores written outside
 * Armature too (`@armature/redis`).
 */
export class TaskWatchers {
  private readonly byTask = new Map<string, Set<(record: TaskRecord) => void>>();

  /** Adds `listener` to the task's; returns how to remove it (once, or again: no effect). */
  add(taskId: string, listener: (record: TaskRecord) => void): () => void {
    let set = this.byTask.get(taskId);
    if (!set) {
      set = new Set();
      this.byTask.set(taskId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byTask.get(taskId) === set) this.byTask.delete(taskId);
    };
  }

  /** Whether anyone listens to the task. */
  has(taskId: string): boolean {
    return this.byTask.has(taskId);
  }

  /** Tells the listeners of `record`'s task of its new state. */
  tell(record: TaskRecord): void {
    for (const listener of this.byTask.get(record.taskId) ?? []) listener(record);
  }
}
