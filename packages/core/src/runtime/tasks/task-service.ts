import { randomUUID } from 'node:crypto';
import { type CallToolResult, ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, type Server } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../builder/definitions.js';
import { callMessages } from '../../messages/call-messages.js';
import type { TaskLimits, TaskQuota } from '../../state/task-quota.js';
import { isTerminal, type TaskOutcome, type TaskRecord, type TaskStore } from '../../state/task-store.js';
import type { CallRequest } from '../call-request.js';
import { callerOf } from '../principal-key.js';
import type { TaskAdoption } from '../task-hand-over.js';
import { FallbackTools } from './fallback-tools.js';
import { InMemoryTaskQuota } from './in-memory-task-quota.js';
import { InMemoryTaskStore } from './in-memory-task-store.js';
import { nextChangeOf } from './task-change.js';
import { inputTimeoutOf, limitsOf, type TaskOptions } from './task-options.js';
import { TaskQuestions } from './task-questions.js';
import { TaskRetries } from './task-retries.js';
import { countedAs, type TaskEnvironment, TaskRunner } from './task-runner.js';
import { type WireTask, wireOf } from './wire-task.js';

/**
 * A cancelled task is still kept one to two of these after the cancel (its ttl is cut): long
 * enough for its client to read its status; 2025-11-25 lets a receiver delete a cancelled task at
 * any time, and the 2026-07-28 extension lets a task's `ttlMs` change.
 */
const CANCELLED_KEPT_MS = 60_000;

function notFound(taskId: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, callMessages.taskNotFound(taskId));
}

/**
 * Tasks of one app: creates them from task-augmented `tools/call`s within their limits, hands
 * their handlers to the runner (`TaskRunner`), and answers `tasks/get`, `tasks/result`,
 * `tasks/list` and `tasks/cancel`. The rules live here (owner scoping, ttl bounds, lease expiry);
 * the store only keeps data.
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
  private readonly runner: TaskRunner;

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
        await this.store.update(record.taskId, { status: 'failed', statusMessage: message, outcome: this.runner.failure(record, message) });
      },
      runAgain: async (record, tool, args, origin, ticket) => {
        // Its running share lapsed with the stopped instance's lease: the run here counts again.
        await this.quota.resumed(countedAs(record), record.taskId, record.leaseExpiresAt);
        this.runner.run(record, tool, args, origin, undefined, ticket);
      },
      reportError: (error, taskId) => this.env.reportError(error, { tool: 'tasks', requestId: taskId, label: 'task retries' }),
    });
    this.runner = new TaskRunner(env, {
      store: this.store,
      quota: this.quota,
      retries: this.retries,
      leaseMs: this.leaseMs,
      inputTimeoutMs: this.inputTimeoutMs,
      limits: this.limits,
      now,
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
    this.runner.run(record, tool, args, call.ctx.source, server, ticket);
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
    const run = this.runner.supervise(record, undefined, ticket);
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

  /**
   * `tasks/result`: waits until the task is terminal, then answers what the `tools/call` would have
   * (its result, or its JSON-RPC error), tagged with the task.
   */
  async result(taskId: string, owner: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    let record = await this.visible(taskId, owner);
    while (!isTerminal(record.status)) {
      await nextChangeOf(this.store, taskId, record.leaseExpiresAt - this.now(), signal);
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
      outcome: this.runner.failure(record, message),
    });
    // Not updated: another reader failed it first, or it just expired (then the caller keeps the old view).
    return failed ?? (await this.store.get(record.taskId)) ?? record;
  }
}
