import { type CallToolResult, ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../builder/definitions.js';
import { promised } from '../../context/maybe-promise.js';
import { callMessages, messageOf } from '../../messages/call-messages.js';
import type { ServerEvents } from '../../observability/server-events.js';
import type { TaskLimits, TaskQuota } from '../../state/task-quota.js';
import { isTerminal, type TaskOutcome, type TaskRecord, type TaskStore, type TaskUpdate } from '../../state/task-store.js';
import { CallRequest, type RequestEnvironment } from '../call-request.js';
import { type CallKind, type ExecutorSettings, executeCall } from '../execute-call.js';
import type { RequestSource } from '../request-source.js';
import { type AskClient, TaskRequestContext, TaskRunSource } from './task-context.js';
import { TaskQuestions } from './task-questions.js';
import { idempotencyKeyOf, type TaskRetries } from './task-retries.js';
import { wireOf } from './wire-task.js';

/** What a task's run needs from the app. */
export interface TaskEnvironment extends RequestEnvironment, ExecutorSettings {
  readonly kinds: { readonly tools: CallKind<CallToolResult, ToolDefinition> };
  /** The app's tools by name: a task run again on another instance names its tool. */
  readonly tools: { get(name: string): ToolDefinition | undefined };
  /** Hears the tasks refused at a limit. */
  readonly events: ServerEvents;
}

/** Who the caps count a task against: its caller (principal, else client address), else its owner (a connection). */
export function countedAs(record: TaskRecord): string {
  return record.caller ?? record.owner;
}

/** The first text of a tool result, for a failed task's `statusMessage`. */
function firstText(result: CallToolResult): string | undefined {
  const block = result.content?.find((c) => c.type === 'text');
  return block && 'text' in block ? block.text : undefined;
}

/** What a task's run reads from the app's tasks. */
export interface TaskRunSettings {
  readonly store: TaskStore;
  readonly quota: TaskQuota;
  readonly retries: TaskRetries;
  readonly leaseMs: number;
  readonly inputTimeoutMs: number;
  readonly limits: TaskLimits;
  readonly now: () => number;
}

/**
 * Runs tasks' handlers and watches over them while they run (lease, cancel, 2025-11-25 status
 * notifications), then settles each task with its handler's outcome. Creating tasks and
 * answering about them is TaskService's.
 */
export class TaskRunner {
  constructor(
    private readonly env: TaskEnvironment,
    private readonly settings: TaskRunSettings,
  ) {}

  /**
   * Runs the handler through the one executor, outside the request that created the task: its own
   * Context (progress -> status), its own DI scope, its signal aborted by `tasks/cancel`, its run
   * bounded by the ttl. The lease (and with it the task's running share) is renewed until it ends.
   * Guards and scopes are not asked again: the request that created the task asked them.
   */
  run(
    record: TaskRecord,
    tool: ToolDefinition,
    args: unknown,
    origin: RequestSource,
    /** The connection of the request that created the task; none for a task run again on another instance. */
    server: Server | undefined,
    ticket: string | undefined,
  ): void {
    const { taskId, extension = false } = record;
    const detached = extension || server === undefined;
    const run = this.supervise(record, detached ? undefined : server, ticket);
    const asking: AskClient = async (ask) => {
      await this.settings.store.update(taskId, { status: 'input_required' });
      try {
        return await ask();
      } finally {
        await this.settings.store.update(taskId, { status: 'working' });
      }
    };
    const source = new TaskRunSource(origin, server, run.signal, taskId, detached ? undefined : asking);
    const questions = extension
      ? new TaskQuestions(origin, run.signal, this.settings.store, taskId, this.settings.inputTimeoutMs)
      : undefined;
    const attempt = { attempt: record.attempt ?? 1, idempotencyKey: idempotencyKeyOf(taskId) };
    const ctx = new TaskRequestContext(source, server, this.env.codec, run.report, !detached, attempt, questions);
    // Already a task: `ctx.continueAsTask()` of a tool that may call it goes on as it is.
    if (tool.taskStart) ctx.taskStart = 'as-is';
    const request = new CallRequest(this.env, 'tools/call', source, server, ctx);
    const settings: ExecutorSettings = {
      timeoutMs: record.ttlMs,
      exposeErrors: this.env.exposeErrors,
      errorFilter: this.env.errorFilter,
      reportError: this.env.reportError,
      stats: this.env.stats,
      telemetry: this.env.telemetry,
    };
    const checked = { ...tool.plan, guarded: false };
    const execute = () => promised(() => executeCall(settings, checked, this.env.kinds.tools, tool, request, args));
    run.finish(tool, this.env.telemetry ? this.env.telemetry.task(taskId, tool.name, request, execute) : execute(), async () =>
      request.end(),
    );
  }

  /**
   * Watches over a task while its handler runs: renews its lease (and with it its running share),
   * aborts its signal when it turns terminal (`tasks/cancel` on any instance), tells `server` of
   * its changes (2025-11-25), and, once `finish` is given the handler's outcome, settles the task
   * with it and frees what it held.
   */
  supervise(record: TaskRecord, server: Server | undefined, ticket: string | undefined) {
    const { taskId, extension = false } = record;
    const owner = countedAs(record);
    const controller = new AbortController();
    if (ticket) this.settings.retries.running(ticket, controller);
    // 2026-07-28: the request that created the task has been answered and its server closed; the
    // extension's own notifications (subscriptions/listen) are not served, clients poll.
    const notify = (changed: TaskRecord) =>
      server?.notification({ method: 'notifications/tasks/status', params: { ...wireOf(changed) } } as never).catch(() => undefined);
    const stopWatching = this.settings.store.watch(taskId, (changed) => {
      void notify(changed);
      if (isTerminal(changed.status) && !controller.signal.aborted) controller.abort(changed.statusMessage);
    });
    const renew = setInterval(
      () => {
        const leaseExpiresAt = this.settings.now() + this.settings.leaseMs;
        void this.settings.store.update(taskId, { leaseExpiresAt }).catch(() => undefined);
        void this.settings.quota.renew(owner, taskId, leaseExpiresAt).catch(() => undefined);
      },
      Math.max(Math.floor(this.settings.leaseMs / 3), 1),
    );
    renew.unref();
    const report = async (statusMessage: string) => {
      await this.settings.store.update(taskId, { statusMessage }).catch(() => undefined);
    };
    const finish = (tool: ToolDefinition, outcome: Promise<CallToolResult>, end: () => Promise<void>) => {
      outcome
        .then(
          (result): TaskUpdate & { outcome: TaskOutcome } => ({
            // 2026-07-28: a tool error is a result like any other; only a JSON-RPC error fails the task.
            status: result.isError && !extension ? 'failed' : 'completed',
            ...(result.isError ? { statusMessage: firstText(result) } : { statusMessage: undefined }),
            outcome: { kind: 'result', result: result as Record<string, unknown> },
          }),
          (error: unknown): TaskUpdate & { outcome: TaskOutcome } => ({
            status: 'failed',
            statusMessage: messageOf(error),
            outcome:
              error instanceof ProtocolError
                ? { kind: 'error', code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) }
                : { kind: 'error', code: ProtocolErrorCode.InternalError, message: messageOf(error) },
          }),
        )
        .then((update) => this.settle(record, update))
        .catch((error: unknown) => this.env.reportError(error, { tool: tool.name, requestId: taskId, label: `tool "${tool.name}"` }))
        .finally(async () => {
          clearInterval(renew);
          stopWatching();
          if (ticket) await this.settings.retries.ended(ticket).catch(() => undefined);
          await this.settings.quota.stopped(owner, taskId).catch(() => undefined);
          await end();
        });
    };
    return { signal: controller.signal, report, finish };
  }

  /** What a task Armature fails answers: the extension fails a task with a JSON-RPC error only; the utility with a tool error. */
  failure(record: TaskRecord, message: string): TaskOutcome {
    return record.extension
      ? { kind: 'error', code: ProtocolErrorCode.InternalError, message }
      : { kind: 'result', result: this.env.kinds.tools.fail(message) as Record<string, unknown> };
  }

  /**
   * Ends the task with `update`, its outcome counted against the owner's result bytes; an outcome
   * that does not fit is dropped and the task failed saying so, so what an owner keeps stays bounded.
   */
  private async settle(record: TaskRecord, update: TaskUpdate & { outcome: TaskOutcome }): Promise<void> {
    const { taskId } = record;
    const bytes = Buffer.byteLength(JSON.stringify(update.outcome));
    const kept = await this.settings.quota.keep(countedAs(record), taskId, bytes, this.settings.limits, this.settings.now());
    if (kept.kept || 'gone' in kept) {
      await this.settings.store.update(taskId, update);
      return;
    }
    const message = callMessages.taskResultOverLimit(bytes, kept.limit, this.settings.limits[kept.limit], kept.used);
    await this.settings.store.update(taskId, { status: 'failed', statusMessage: message, outcome: this.failure(record, message) });
  }
}
