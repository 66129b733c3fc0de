import type { TaskStore } from '../../state/task-store.js';

/**
 * Resolves on the task's next change in `store`, or after `maxWaitMs` (to look at its lease
 * again); rejects with the reason when `signal` aborts.
 */
export function nextChangeOf(store: TaskStore, taskId: string, maxWaitMs: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = () => {
      stop();
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
    };
    const stop = store.watch(taskId, () => {
      done();
      resolve();
    });
    const timer = setTimeout(() => {
      done();
      resolve();
    }, Math.max(maxWaitMs, 0) + 5);
    const aborted = () => {
      done();
      reject(signal.reason);
    };
    if (signal.aborted) aborted();
    else signal.addEventListener('abort', aborted, { once: true });
  });
}
