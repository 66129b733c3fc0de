import type { AuthInfo } from '@modelcontextprotocol/server';
import { wireMessages } from '../../messages/wire-messages.js';
import { isTerminal, type TaskRecord } from '../../state/task-store.js';
import { declaresTasksIn, detailedTaskOf, extensionOwner, TASKS_EXTENSION_CAPABILITY } from './task-extension.js';
import type { TaskService } from './task-service.js';

/**
 * Task status notifications of the 2026-07-28 tasks extension (`notifications/tasks`, SEP-2663),
 * for `subscriptions/listen` streams that ask for them (`notifications: { taskIds }`), from the
 * task store's change notices: with a shared store, a change made on any instance reaches the
 * listen streams of every instance. Only a task's owner may follow it. (The transport's
 * `TaskFeed`.)
 */
export class TaskNotifications {
  constructor(private readonly tasks: TaskService) {}

  /** The -32021 error for a listen request that does not declare the extension, or undefined. */
  undeclared(envelope: Record<string, unknown> | undefined) {
    if (declaresTasksIn(envelope)) return undefined;
    return { code: -32021, message: wireMessages.listenTasksUndeclared, data: { requiredCapabilities: TASKS_EXTENSION_CAPABILITY } };
  }

  /** The tasks among `taskIds` that `principal` may follow (its own of the extension, still kept), in the order asked. */
  async follow(taskIds: readonly string[], principal: AuthInfo | undefined): Promise<TaskRecord[]> {
    const owner = extensionOwner(principal);
    const found = await Promise.all([...new Set(taskIds)].map((taskId) => this.tasks.record(taskId, owner).catch(() => undefined)));
    return found.filter((record): record is TaskRecord => record !== undefined && record.extension === true);
  }

  /**
   * Calls `send` with the `notifications/tasks` params (the task as `tasks/get` shows it) with each
   * of `tasks` as it stands, then at each change, on whichever instance it was made; and `ended`
   * once every one of them is terminal. Returns the function that stops it.
   */
  watch(tasks: readonly TaskRecord[], send: (params: Record<string, unknown>) => void, ended: () => void): () => void {
    const open = new Set(tasks.map((task) => task.taskId));
    // What was last sent for each task: its time and its text. Two changes can share a millisecond
    // (the last progress and the completion often do), so the time alone cannot tell them apart.
    const last = new Map<string, { at: number; text: string }>();
    const seen = (record: TaskRecord) => {
      if (!open.has(record.taskId)) return;
      const params = detailedTaskOf(record);
      const text = JSON.stringify(params);
      const before = last.get(record.taskId);
      // Each state once (a change notice and the first read may carry the same one), and never an
      // older state after a newer one (the first read may answer after a change notice).
      if (before && (record.lastUpdatedAt < before.at || (record.lastUpdatedAt === before.at && text === before.text))) return;
      last.set(record.taskId, { at: record.lastUpdatedAt, text });
      send(params);
      if (!isTerminal(record.status)) return;
      open.delete(record.taskId);
      if (open.size === 0) ended();
    };
    const stops = [...open].map((taskId) => this.tasks.store.watch(taskId, seen));
    if (open.size === 0) queueMicrotask(ended);
    // Then each task as it stands now: a change made before the watch began is not missed.
    for (const taskId of open) {
      this.tasks.store.get(taskId).then(
        (record) => record && seen(record),
        () => undefined,
      );
    }
    return () => {
      for (const stop of stops) stop();
    };
  }
}
