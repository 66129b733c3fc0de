import type { ClientChannel } from './client-requests.js';

/** What the task runtime gives a call that goes on as a task (`ctx.continueAsTask()`). */
export interface TaskAdoption {
  /** The `tools/call` answer: the task the call became. */
  readonly answer: unknown;
  /** The task's signal: aborted by `tasks/cancel` (on any instance), a lapsed lease, or the task ending. */
  readonly signal: AbortSignal;
  /** How the handler asks its client from now on: the task's `inputRequests`. */
  readonly questions: ClientChannel;
  /** The longest the rest of the handler may run: the task's ttl. */
  readonly timeoutMs: number;
  /** Reports progress into the task's status (`statusMessage`). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** Settles the task with the rest of the call's outcome (a result, or a thrown error), then runs `end`. */
  finish(outcome: Promise<unknown>, end: () => Promise<void>): void;
}

/**
 * How one call of a tool declared `task: { start: 'continueAsTask' }` may become a task mid-way:
 * made by the tasks route for a request that can be answered with a task (2026-07-28, the tasks
 * extension declared). `ctx.continueAsTask()` takes it; the executor, racing the handler against
 * `asked`, answers the call with the task and hands it the rest of the handler.
 */
export class TaskHandOver {
  /** The task, once the call became one. */
  adopted?: TaskAdoption;
  private taking?: Promise<TaskAdoption>;
  private own?: AbortController;
  private tell: (called: { readonly taking: Promise<TaskAdoption | undefined> }) => void = () => undefined;
  /**
   * Resolves when the handler first calls `ctx.continueAsTask()`, with the making of the task it
   * becomes (undefined when the task was refused, a limit: the handler got the error and may go on).
   */
  readonly asked = new Promise<{ readonly taking: Promise<TaskAdoption | undefined> }>((resolve) => {
    this.tell = resolve;
  });

  constructor(private readonly adopt: () => Promise<TaskAdoption>) {}

  /** The making of the task, once `ctx.continueAsTask()` was called (undefined when refused). */
  get called(): Promise<TaskAdoption | undefined> | undefined {
    return this.taking?.catch(() => undefined);
  }

  /** Makes the call a task (once; a second call waits for the same task, or gets the same refusal). */
  take(): Promise<TaskAdoption> {
    if (!this.taking) {
      this.taking = this.adopt().then((adoption) => {
        this.adopted = adoption;
        if (this.own) this.relay(adoption.signal, this.own);
        return adoption;
      });
      this.tell({ taking: this.taking.catch(() => undefined) });
    }
    return this.taking;
  }

  /**
   * The handler's signal, aborted through `own`: by the request's signal until the call becomes a
   * task (after it, the request is answered and its signal no longer concerns the handler), by the
   * task's signal after it.
   */
  signalOf(own: AbortController, request: AbortSignal): AbortSignal {
    this.own = own;
    if (this.adopted) this.relay(this.adopted.signal, own);
    else if (request.aborted) own.abort(request.reason);
    else
      request.addEventListener(
        'abort',
        () => {
          if (!this.adopted) own.abort(request.reason);
        },
        { once: true },
      );
    return own.signal;
  }

  private relay(from: AbortSignal, to: AbortController): void {
    if (from.aborted) to.abort(from.reason);
    else from.addEventListener('abort', () => to.abort(from.reason), { once: true });
  }
}
