import { randomUUID } from 'node:crypto';
import { type CallToolResult, ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, type Server } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../builder/definitions.js';
import { ArmatureBuildError } from '../../messages/build-error.js';
import { callMessages, messageOf } from '../../messages/call-messages.js';
import { MESSAGES, problem } from '../../messages/message-catalog.js';
import type { ServerEvents } from '../../observability/server-events.js';
import type { TaskLimits, TaskQuota } from '../../state/task-quota.js';
import { isTerminal, type TaskOutcome, type TaskRecord, type TaskStore, type TaskUpdate } from '../../state/task-store.js';
import { CallRequest, type RequestEnvironment } from '../call-request.js';
import { type CallKind, type ExecutorSettings, executeCall } from '../execute-call.js';
import { callerOf } from '../principal-key.js';
import type { RequestSource } from '../request-source.js';
import type { TaskAdoption } from '../task-hand-over.js';
import { type FallbackToolNames, FallbackTools } from './fallback-tools.js';
import { InMemoryTaskQuota } from './in-memory-task-quota.js';
import { InMemoryTaskStore } from './in-memory-task-store.js';
import { type AskClient, TaskRequestContext, TaskRunSource } from './task-context.js';
import { TaskQuestions } from './task-questions.js';
import { idempotencyKeyOf, TaskRetries } from './task-retries.js';

/** What users pass as `createMcpApp(..., { tasks })`. */
export interface TaskOptions {
  /** Where tasks live. Default: this process's memory (one instance). */
  store?: TaskStore;
  /** How long a task and its result are kept when the client asks for no ttl. Default 1 hour. */
  defaultTtlMs?: number;
  /** The longest ttl a client may ask for (longer requests are cut to it). Default 24 hours. */
  maxTtlMs?: number;
  /** The polling interval suggested to clients (`pollInterval`). Default 1,000 ms. */
  pollIntervalMs?: number;
  /**
   * How long a task stays `working` without its instance renewing the lease (renewed every third
   * of it while the handler runs). Past it, the task is failed. Default 30,000 ms.
   */
  leaseMs?: number;
  /**
   * 2026-07-28: how long a task waits for the answer to a question it asked (`ctx.elicit`,
   * `ctx.elicitUrl`, `ctx.sample`, `ctx.roots`, shown in its `inputRequests`); past it the question
   * fails with a JSON-RPC error (-32603) and, unless the handler catches it, so does the task.
   * Default 600,000 ms (10 minutes: time for a person to read and answer a form).
   */
  inputTimeoutMs?: number;
  /**
   * Caps on tasks per owner and in total; each left out keeps its default (`DEFAULT_TASK_LIMITS`).
   * With a shared store (`redisState`) they count across all instances. See docs/limits.md.
   */
  limits?: Partial<TaskLimits>;
  /**
   * Tools, named by the app, that stand in for tasks/get, tasks/result and tasks/cancel for clients
   * that never poll tasks: a `'required'` task tool they call starts its task and answers at once
   * with its id and these names. Off by default. See docs/tasks.md.
   */
  fallbackTools?: FallbackToolNames;
}

/**
 * The default task limits. A caller is a principal, else a client address (anonymous HTTP), else
 * a connection (stdio, in memory), and one task handler costs tens of kilobytes while it runs: the
 * defaults leave room for a client fanning out a batch (16 at once, 100 kept) and cap what one
 * anonymous client can make the server hold however many sessions it opens (16 handlers, 100
 * records, 16 MiB of results), while the whole server holds at most 256 handlers, 10,000 tasks and
 * 256 MiB of results (with redisState: all instances together). See docs/tasks.md.
 */
export const DEFAULT_TASK_LIMITS: TaskLimits = Object.freeze({
  maxOpenTasksPerOwner: 100,
  maxRunningTasksPerOwner: 16,
  maxRunningTasks: 256,
  maxResultBytesPerOwner: 16 * 1024 * 1024,
  maxOpenTasks: 10_000,
  maxResultBytes: 256 * 1024 * 1024,
});

/** Who the caps count a task against: its caller (principal, else client address), else its owner (a connection). */
function countedAs(record: TaskRecord): string {
  return record.caller ?? record.owner;
}

/**
 * A cancelled task is still kept one to two of these after the cancel (its ttl is cut): long
 * enough for its client to read its status; 2025-11-25 lets a receiver delete a cancelled task at
 * any time, and the 2026-07-28 extension lets a task's `ttlMs` change.
 */
const CANCELLED_KEPT_MS = 60_000;

/** The limits with the defaults filled in; a limit that is not a whole number of 1 or more is a start-up error. */
function limitsOf(chosen: Partial<TaskLimits> = {}): TaskLimits {
  const given = Object.entries(chosen).filter(([, value]) => value !== undefined);
  const problems = given
    .filter(([, value]) => !(Number.isSafeInteger(value) && (value as number) >= 1))
    .map(([limit, value]) =>
      problem(
        MESSAGES.taskLimitInvalid,
        'createMcpApp options',
        limit,
        typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value)),
      ),
    );
  if (problems.length > 0) throw new ArmatureBuildError(problems, 'Armature cannot start the MCP server', 'in its options');
  return Object.freeze({ ...DEFAULT_TASK_LIMITS, ...Object.fromEntries(given) });
}

/** `tasks.inputTimeoutMs`, 10 minutes when left out; one that is not a whole number of 1 or more is a start-up error. */
function inputTimeoutOf(chosen: number | undefined): number {
  if (chosen === undefined) return 600_000;
  if (Number.isSafeInteger(chosen) && chosen >= 1) return chosen;
  const found = typeof chosen === 'number' ? String(chosen) : (JSON.stringify(chosen) ?? String(chosen));
  const problems = [problem(MESSAGES.taskInputTimeoutInvalid, 'createMcpApp options', found)];
  throw new ArmatureBuildError(problems, 'Armature cannot start the MCP server', 'in its options');
}

/** A task as the wire shows it (2025-11-25 `Task`). */
export interface WireTask {
  taskId: string;
  status: TaskRecord['status'];
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number;
  pollInterval: number;
}

/** What a task's run needs from the app. */
export interface TaskEnvironment extends RequestEnvironment, ExecutorSettings {
  readonly kinds: { readonly tools: CallKind<CallToolResult, ToolDefinition> };
  /** The app's tools by name: a task run again on another instance names its tool. */
  readonly tools: { get(name: string): ToolDefinition | undefined };
  /** Hears the tasks refused at a limit. */
  readonly events: ServerEvents;
}

/** The 2025-11-25 `Task` of a record. */
export function wireOf(record: TaskRecord): WireTask {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined ? { statusMessage: record.statusMessage } : {}),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
}

function notFound(taskId: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.taskNotFound(taskId));
}

/** The first text of a tool result, for a failed task's `statusMessage`. */
function firstText(result: CallToolResult): string | undefined {
  const block = result.content?.find((c) => c.type === 'text');
  return block && 'text' in block ? block.text : undefined;
}

/**
 * Tasks of one app: creates them from task-augmented `tools/call`s, runs their handlers through
 * the one executor, and answers `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`.
 * The rules live here (owner scoping, ttl bounds, lease expiry); the store only keeps data.
 */
export class TaskService {
  readonly store: TaskStore;
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
  readonly inputTimeoutMs: number;
  readonly limits: TaskLimits;
  private readonly quota: TaskQuota;
  private readonly retries: TaskRetries;
  /** The fallback tools, when the app has them (`fallbackTools`). */
  readonly fallback?: FallbackTools;

  constructor(
    private readonly env: TaskEnvironment,
    options: TaskOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.store = options.store ?? new InMemoryTaskStore(now);
    this.defaultTtlMs = options.defaultTtlMs ?? 3_600_000;
    this.maxTtlMs = options.maxTtlMs ?? 86_400_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.inputTimeoutMs = inputTimeoutOf(options.inputTimeoutMs);
    this.limits = limitsOf(options.limits);
    this.quota = this.store.quota ?? new InMemoryTaskQuota();
    if (options.fallbackTools) this.fallback = new FallbackTools(options.fallbackTools, this);
    this.retries = new TaskRetries(this.store.queue, {
      store: this.store,
      leaseMs: this.leaseMs,
      now,
      toolNamed: (name) => this.env.tools.get(name),
      fail: async (record, message) => {
        await this.store.update(record.taskId, { status: 'failed', statusMessage: message, outcome: this.failure(record, message) });
      },
      runAgain: async (record, tool, args, origin, ticket) => {
        // Its running share lapsed with the stopped instance's lease: the run here counts again.
        await this.quota.resumed(countedAs(record), record.taskId, record.leaseExpiresAt);
        this.run(record, tool, args, origin, undefined, ticket);
      },
      reportError: (error, taskId) => this.env.reportError(error, { tool: 'tasks', requestId: taskId, label: 'task retries' }),
    });
  }

  /**
   * With a store that has a queue (`redisState`): starts running again here the retriable tasks of
   * instances that stopped, and vouching for those running here. Returns how to stop.
   */
  resumeLost(): () => Promise<void> {
    return this.retries.start();
  }

  /**
   * Creates the task and starts its handler in the background; returns the task as created, once
   * the store holds it (so a `tasks/get` on any instance finds it). A task over one of the limits
   * is refused with a JSON-RPC error naming it (`-32600`, `data: { limit, max }`): it was never
   * accepted, so no task exists to report it. `server` is the connection
   * notifications go to; `extension` marks a task of the 2026-07-28 tasks extension, which has no
   * stream to notify.
   */
  async start(
    tool: ToolDefinition,
    args: unknown,
    requested: { ttl?: unknown },
    call: CallRequest,
    owner: string,
    server: Server,
    extension = false,
  ): Promise<TaskRecord> {
    const { record, ticket } = await this.open(tool, args, requested, call, owner, extension);
    this.run(record, tool, args, call.ctx.source, server, ticket);
    return record;
  }

  /**
   * `ctx.continueAsTask()` in a call of the 2026-07-28 tasks extension: the task is created as by
   * `start` (refused the same way at a limit), but its handler is the one already running in the
   * call, which goes on under the task's signal, asking through its `inputRequests`, its progress
   * in its status. `answer` is what the `tools/call` is answered with.
   */
  async adopt(
    tool: ToolDefinition,
    args: unknown,
    call: CallRequest,
    owner: string,
    answer: (record: TaskRecord) => unknown,
  ): Promise<TaskAdoption> {
    const { record, ticket } = await this.open(tool, args, {}, call, owner, true);
    const run = this.supervise(record, undefined, ticket);
    return {
      answer: answer(record),
      signal: run.signal,
      questions: new TaskQuestions(call.ctx.source, run.signal, this.store, record.taskId, this.inputTimeoutMs),
      timeoutMs: record.ttlMs,
      progress: (progress, total, message) => run.report(callMessages.taskProgress(progress, total, message)),
      finish: (outcome, end) => run.finish(tool, outcome as Promise<CallToolResult>, end),
    };
  }

  /**
   * The task as created, once the store holds it (so a `tasks/get` on any instance finds it), and
   * the ticket of its retries; refused at a limit with a JSON-RPC error naming it.
   */
  private async open(
    tool: ToolDefinition,
    args: unknown,
    requested: { ttl?: unknown },
    call: CallRequest,
    owner: string,
    extension: boolean,
  ): Promise<{ record: TaskRecord; ticket: string | undefined }> {
    const now = this.now();
    const asked = typeof requested.ttl === 'number' && requested.ttl > 0 ? requested.ttl : this.defaultTtlMs;
    const retries = this.retries.retries(tool);
    const caller = callerOf(call);
    const record: TaskRecord = {
      taskId: randomUUID(),
      owner,
      tool: tool.name,
      status: 'working',
      statusMessage: callMessages.taskStarted(),
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: Math.min(asked, this.maxTtlMs),
      pollIntervalMs: this.pollIntervalMs,
      leaseExpiresAt: now + this.leaseMs,
      ...(extension ? { extension: true } : {}),
      ...(retries > 0 ? { retries } : {}),
      ...(caller !== undefined && caller !== owner ? { caller } : {}),
    };
    const share = { owner: countedAs(record), taskId: record.taskId, expiresAt: now + record.ttlMs, leaseExpiresAt: record.leaseExpiresAt };
    const refused = await this.quota.admit(share, this.limits, now);
    if (refused) {
      const max = this.limits[refused];
      const message = callMessages.taskLimitReached(refused, max);
      const requestId = call.ctx.requestId;
      this.env.events.emit({
        event: 'refused',
        reason: 'task-limit',
        message,
        method: 'tools/call',
        // Not the owner: an anonymous owner is its session id, which would let a log reader take the session.
        ...(typeof requestId === 'string' || typeof requestId === 'number' ? { requestId } : {}),
      });
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, message, { limit: refused, max });
    }
    let ticket: string | undefined;
    try {
      await this.store.create(record);
      ticket = await this.retries.hold(record, args, call.ctx.principal);
    } catch (error) {
      await this.quota.release(share.owner, record.taskId);
      throw error;
    }
    return { record, ticket };
  }

  /** `tasks/get`: the caller's task, failed first if its instance stopped renewing the lease. */
  async get(taskId: string, owner: string): Promise<WireTask> {
    return wireOf(await this.visible(taskId, owner));
  }

  /**
   * The caller's task as stored (failed first if its lease ran out), for the 2026-07-28 tasks
   * extension, which shows it in its own shape.
   */
  record(taskId: string, owner: string): Promise<TaskRecord> {
    return this.visible(taskId, owner);
  }

  /**
   * `tasks/cancel` of the 2026-07-28 tasks extension: the caller's intent to cancel. A task that
   * finished meanwhile keeps the status it reached; the extension acknowledges either way.
   */
  async requestCancel(taskId: string, owner: string): Promise<void> {
    const record = await this.visible(taskId, owner);
    if (!isTerminal(record.status)) await this.markCancelled(record);
  }

  /**
   * `tasks/update` of the 2026-07-28 tasks extension: the answers to questions the caller's task
   * is waiting on reach the store, which wakes the instance running it. Answers to keys that are
   * not outstanding (never asked, answered already, withdrawn) are ignored, as the extension asks.
   */
  async answer(taskId: string, owner: string, responses: Readonly<Record<string, unknown>>): Promise<void> {
    const record = await this.visible(taskId, owner);
    const outstanding = Object.entries(responses).filter(([key]) => record.inputRequests && Object.hasOwn(record.inputRequests, key));
    if (outstanding.length > 0) await this.store.update(taskId, { answer: Object.fromEntries(outstanding) });
  }

  /** `tasks/list`: the caller's live tasks, a page at a time. */
  async list(owner: string, cursor: string | undefined, pageSize: number) {
    const page = await this.store.list(owner, cursor, pageSize);
    if (!page) throw new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.taskInvalidCursor());
    const tasks = await Promise.all(page.tasks.map((t) => this.leased(t)));
    return { tasks: tasks.map(wireOf), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  /** `tasks/cancel`: marks the task cancelled; the instance running it aborts the handler's signal. */
  async cancel(taskId: string, owner: string): Promise<WireTask> {
    const record = await this.visible(taskId, owner);
    if (isTerminal(record.status)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.taskAlreadyTerminal(taskId, record.status));
    }
    const cancelled = await this.markCancelled(record);
    // Finished meanwhile: the task keeps the status it reached first.
    if (!cancelled) return this.cancel(taskId, owner);
    return wireOf(cancelled);
  }

  /**
   * Marks a task cancelled in the store; the instance running it sees the change and aborts it.
   * Its shares of the limits are freed at once, without waiting for the handler to stop, and it is
   * kept one to two minutes more (`CANCELLED_KEPT_MS`): a cancelled task counts against no limit,
   * so cancelling must not pile records up for a whole ttl.
   */
  private async markCancelled(record: TaskRecord): Promise<TaskRecord | undefined> {
    const message = callMessages.taskCancelled();
    const cancelled = await this.store.update(record.taskId, {
      status: 'cancelled',
      statusMessage: message,
      outcome: { kind: 'result', result: this.env.kinds.tools.fail(message) as Record<string, unknown> },
      // Whole periods since creation, so the ttl a client reads does not depend on the millisecond of the cancel.
      ttlMs: Math.min(record.ttlMs, (Math.floor((this.now() - record.createdAt) / CANCELLED_KEPT_MS) + 2) * CANCELLED_KEPT_MS),
    });
    if (cancelled) await this.quota.release(countedAs(record), record.taskId);
    return cancelled;
  }

  /** The answer to a caller who may not use the tool: exactly that of an ordinary call to it. */
  denied(tool: ToolDefinition, call: CallRequest): Promise<never> {
    return this.env.kinds.tools.denied(tool.plan, tool, call);
  }

  /**
   * `tasks/result`: waits until the task is terminal, then answers what the `tools/call` would have
   * (its result, or its JSON-RPC error), tagged with the task.
   */
  async result(taskId: string, owner: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    let record = await this.visible(taskId, owner);
    while (!isTerminal(record.status)) {
      await this.changeOf(taskId, record.leaseExpiresAt - this.now(), signal);
      record = await this.visible(taskId, owner);
    }
    const outcome = record.outcome as TaskOutcome;
    if (outcome.kind === 'error') throw new ProtocolError(outcome.code, outcome.message, outcome.data);
    const meta = (outcome.result._meta as Record<string, unknown> | undefined) ?? {};
    return { ...outcome.result, _meta: { ...meta, [RELATED_TASK_META_KEY]: { taskId } } };
  }

  /** The task if `owner` may see it; another caller's task answers exactly like a missing one. */
  private async visible(taskId: string, owner: string): Promise<TaskRecord> {
    const record = await this.store.get(taskId);
    if (!record || record.owner !== owner) throw notFound(taskId);
    return this.leased(record);
  }

  /**
   * A working task whose lease ran out belongs to an instance that stopped: it is failed now, unless
   * it has retries left, when another instance gets one more lease to take it over.
   */
  private async leased(record: TaskRecord): Promise<TaskRecord> {
    const retrying = (record.attempt ?? 1) <= (record.retries ?? 0) ? this.leaseMs : 0;
    if (isTerminal(record.status) || record.leaseExpiresAt + retrying > this.now()) return record;
    const message = callMessages.taskLeaseExpired(this.leaseMs);
    const failed = await this.store.update(record.taskId, {
      status: 'failed',
      statusMessage: message,
      outcome: this.failure(record, message),
    });
    // Not updated: another reader failed it first, or it just expired (then the caller keeps the old view).
    return failed ?? (await this.store.get(record.taskId)) ?? record;
  }

  /** What a task Armature fails answers: the extension fails a task with a JSON-RPC error only; the utility with a tool error. */
  private failure(record: TaskRecord, message: string): TaskOutcome {
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
    const kept = await this.quota.keep(countedAs(record), taskId, bytes, this.limits, this.now());
    if (kept.kept || 'gone' in kept) {
      await this.store.update(taskId, update);
      return;
    }
    const message = callMessages.taskResultOverLimit(bytes, kept.limit, this.limits[kept.limit], kept.used);
    await this.store.update(taskId, { status: 'failed', statusMessage: message, outcome: this.failure(record, message) });
  }

  /** Resolves on the task's next change, or after `maxWaitMs` (to look at its lease again). */
  private changeOf(taskId: string, maxWaitMs: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        stop();
        clearTimeout(timer);
        signal.removeEventListener('abort', aborted);
      };
      const stop = this.store.watch(taskId, () => {
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

  /**
   * Runs the handler through the one executor, outside the request that created the task: its own
   * Context (progress -> status), its own DI scope, its signal aborted by `tasks/cancel`, its run
   * bounded by the ttl. The lease (and with it the task's running share) is renewed until it ends.
   * Guards and scopes are not asked again: the request that created the task asked them.
   */
  private run(
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
      await this.store.update(taskId, { status: 'input_required' });
      try {
        return await ask();
      } finally {
        await this.store.update(taskId, { status: 'working' });
      }
    };
    const source = new TaskRunSource(origin, server, run.signal, taskId, detached ? undefined : asking);
    const questions = extension ? new TaskQuestions(origin, run.signal, this.store, taskId, this.inputTimeoutMs) : undefined;
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
    const execute = () => executeCall(settings, checked, this.env.kinds.tools, tool, request, args);
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
  private supervise(record: TaskRecord, server: Server | undefined, ticket: string | undefined) {
    const { taskId, extension = false } = record;
    const owner = countedAs(record);
    const controller = new AbortController();
    if (ticket) this.retries.running(ticket, controller);
    // 2026-07-28: the request that created the task has been answered and its server closed; the
    // extension's own notifications (subscriptions/listen) are not served, clients poll.
    const notify = (changed: TaskRecord) =>
      server?.notification({ method: 'notifications/tasks/status', params: { ...wireOf(changed) } } as never).catch(() => undefined);
    const stopWatching = this.store.watch(taskId, (changed) => {
      void notify(changed);
      if (isTerminal(changed.status) && !controller.signal.aborted) controller.abort(changed.statusMessage);
    });
    const renew = setInterval(
      () => {
        const leaseExpiresAt = this.now() + this.leaseMs;
        void this.store.update(taskId, { leaseExpiresAt }).catch(() => undefined);
        void this.quota.renew(owner, taskId, leaseExpiresAt).catch(() => undefined);
      },
      Math.max(Math.floor(this.leaseMs / 3), 1),
    );
    renew.unref();
    const report = async (statusMessage: string) => {
      await this.store.update(taskId, { statusMessage }).catch(() => undefined);
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
          if (ticket) await this.retries.ended(ticket).catch(() => undefined);
          await this.quota.stopped(owner, taskId).catch(() => undefined);
          await end();
        });
    };
    return { signal: controller.signal, report, finish };
  }
}
