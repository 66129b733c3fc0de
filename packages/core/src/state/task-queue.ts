import type { AuthInfo } from '@modelcontextprotocol/server';

/**
 * What another instance needs to run a task again: the tool, its arguments and who called it. The
 * caller's bearer token is not kept (`principal.token` is empty): a run again sees the caller's
 * client id, scopes and claims, never a credential stored in the queue.
 */
export interface TaskJob {
  readonly taskId: string;
  readonly tool: string;
  readonly args: unknown;
  /** How many times the task may run again after its first run (`@Tool({ task: { retries } })`). */
  readonly retries: number;
  readonly principal?: AuthInfo;
}

/** A job this instance holds: the queue's ticket for it and the run it is (1 for the first). */
export interface HeldJob {
  readonly ticket: string;
  readonly job: TaskJob;
  readonly attempt: number;
}

/**
 * The queue behind task retries, shared by the instances of one app (`redisState`: a Redis Streams
 * consumer group). A job is held by the instance running it, which vouches for it while it runs;
 * a job nobody vouched for within the lease is claimed by another instance, one delivery more.
 * Each method is atomic. A store without one (in memory, one process) runs each task once.
 */
export interface TaskQueue {
  /** Queues the job, held by `consumer` (its first run is the one starting there); returns its ticket. */
  hold(consumer: string, job: TaskJob): Promise<string>;
  /**
   * `consumer` still runs these jobs; returns the tickets it no longer holds (claimed by another
   * instance meanwhile, or done), whose runs here should stop.
   */
  renew(consumer: string, tickets: readonly string[]): Promise<string[]>;
  /** The job ended (its task is terminal): forgets it. */
  done(ticket: string): Promise<void>;
  /** Takes over at most `count` jobs nobody vouched for within `minIdleMs`, each counted one delivery more. */
  claim(consumer: string, minIdleMs: number, count: number): Promise<HeldJob[]>;
}
