import { createHash, randomUUID } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../builder/definitions.js';
import { callMessages } from '../../messages/call-messages.js';
import type { HeldJob, TaskJob, TaskQueue } from '../../state/task-queue.js';
import { isTerminal, type TaskRecord, type TaskStore } from '../../state/task-store.js';
import { ClientlessSource, type RequestSource } from '../request-source.js';

/** Jobs of instances that stopped taken over per sweep, at most: the rest wait for the next sweep. */
const CLAIM_PER_SWEEP = 16;

/** The key a task's handler passes on so that a run again does no work twice: stable per task, not its id (a bearer token on 2026-07-28). */
export function idempotencyKeyOf(taskId: string): string {
  return createHash('sha256').update(`armature-task\u0000${taskId}`).digest('base64url');
}

/**
 * What a retried run needs from the task service: the tool of a job, how to fail a task, and how
 * to run a task on this instance from a request that reaches no client.
 */
export interface RetryHost {
  readonly store: TaskStore;
  readonly leaseMs: number;
  readonly now: () => number;
  toolNamed(name: string): ToolDefinition | undefined;
  fail(record: TaskRecord, message: string): Promise<void>;
  runAgain(record: TaskRecord, tool: ToolDefinition, args: unknown, origin: RequestSource, ticket: string): Promise<void>;
  reportError(error: unknown, taskId: string): void;
}

/**
 * Runs tasks again when the instance running them stops (at least once, `@Tool({ task: { retries } })`),
 * over the store's `TaskQueue` (Redis Streams with `redisState`): this instance holds the job of
 * each retriable task it runs and vouches for them every third of the lease; every sweep it also
 * claims the jobs nobody vouched for within the lease, and runs them again, one attempt more, or
 * fails their task once its retries are spent. Without a queue (one process) it does nothing.
 */
export class TaskRetries {
  /** This process, as the queue's consumer. */
  private readonly consumer = `instance-${randomUUID()}`;
  /** The jobs this instance holds, by ticket: the run to stop when another instance took one over. */
  private readonly held = new Map<string, AbortController>();
  private timer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly queue: TaskQueue | undefined,
    private readonly host: RetryHost,
  ) {}

  /** Whether a task of `tool` runs again when its instance stops. */
  retries(tool: ToolDefinition): number {
    return this.queue ? tool.taskRetries : 0;
  }

  /** Queues the job of a retriable task, held by this instance; its run here starts next. */
  async hold(record: TaskRecord, args: unknown, principal: AuthInfo | undefined): Promise<string | undefined> {
    if (!this.queue || !record.retries) return undefined;
    const job: TaskJob = {
      taskId: record.taskId,
      tool: record.tool,
      args,
      retries: record.retries,
      // Who called, without the credential: the queue keeps no bearer token.
      ...(principal ? { principal: { ...principal, token: '' } } : {}),
    };
    return this.queue.hold(this.consumer, job);
  }

  /** The run of the job `ticket` started here: `controller` aborts it if another instance takes the job over. */
  running(ticket: string, controller: AbortController): void {
    this.held.set(ticket, controller);
  }

  /** The run ended: its job is done (the task is terminal, or it never will be from here). */
  async ended(ticket: string): Promise<void> {
    this.held.delete(ticket);
    await this.queue?.done(ticket);
  }

  /** Starts vouching and claiming, every third of the lease; returns how to stop. */
  start(): () => Promise<void> {
    if (!this.queue || this.timer) return async () => undefined;
    this.timer = setInterval(() => void this.sweep(), Math.max(Math.floor(this.host.leaseMs / 3), 1));
    this.timer.unref();
    return async () => {
      clearInterval(this.timer);
      this.timer = undefined;
    };
  }

  private async sweep(): Promise<void> {
    const queue = this.queue;
    if (!queue || this.sweeping) return;
    this.sweeping = true;
    try {
      if (this.held.size > 0) {
        const lost = await queue.renew(this.consumer, [...this.held.keys()]);
        for (const ticket of lost) {
          this.held.get(ticket)?.abort(callMessages.taskTakenOver());
          this.held.delete(ticket);
        }
      }
      for (const job of await queue.claim(this.consumer, this.host.leaseMs, CLAIM_PER_SWEEP)) await this.resume(job);
    } catch {
      // The store is away: the next sweep tries again (a lease lapses only after three missed sweeps).
    } finally {
      this.sweeping = false;
    }
  }

  /** Runs a job another instance stopped running, or fails its task once its retries are spent. */
  private async resume({ ticket, job, attempt }: HeldJob): Promise<void> {
    const { store, leaseMs, now } = this.host;
    try {
      const record = await store.get(job.taskId);
      const tool = this.host.toolNamed(job.tool);
      if (!record || isTerminal(record.status) || !tool) return void (await this.queue?.done(ticket));
      if (attempt > job.retries + 1) {
        await this.host.fail(record, callMessages.taskRetriesSpent(leaseMs, job.retries + 1));
        return void (await this.queue?.done(ticket));
      }
      const resumed = await store.update(job.taskId, {
        attempt,
        leaseExpiresAt: now() + leaseMs,
        statusMessage: callMessages.taskRunAgain(attempt, job.retries + 1),
      });
      if (!resumed) return void (await this.queue?.done(ticket));
      const origin = new ClientlessSource(job.taskId, 'tools/call', undefined, job.principal, callMessages.taskRunAgainCannotAsk());
      await this.host.runAgain(resumed, tool, job.args, origin, ticket);
    } catch (error) {
      this.host.reportError(error, job.taskId);
    }
  }
}
