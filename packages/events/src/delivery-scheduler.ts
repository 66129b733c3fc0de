import type { DeliveryRecord, EventsStore } from './events-store.js';

/** What one attempt came to: delivered, failed for good, or failed and worth another try. */
export type AttemptResult =
  | { readonly outcome: 'delivered' }
  | { readonly outcome: 'failed'; readonly retryable: boolean; readonly reason: string };

export interface SchedulerOptions {
  /** Waits before each retry: `[5000, 300000]` means a second try after 5 s and a third 5 min later. */
  readonly retryDelaysMs: readonly number[];
  /** How long a claimed delivery is reserved for the instance that took it. */
  readonly leaseMs: number;
  /** How often the store is looked at for deliveries nobody here scheduled (another instance's, a dead one's). */
  readonly sweepMs: number;
  /** Most deliveries in flight at once from this instance. */
  readonly concurrency: number;
}

/**
 * Sends pending deliveries from the store: claims the due ones under a lease, makes one attempt
 * each, and then finishes them or puts them back with the next backoff delay. A delivery whose
 * instance dies is claimed again by any instance once the lease has run out.
 */
export class DeliveryScheduler {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private sweeping = false;
  private again = false;
  private stopped = false;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly store: EventsStore,
    private readonly attempt: (record: DeliveryRecord) => Promise<AttemptResult>,
    private readonly options: SchedulerOptions,
    private readonly onDropped: (record: DeliveryRecord, reason: string) => void,
  ) {}

  start(): void {
    this.sweeper = setInterval(() => this.wake(), this.options.sweepMs);
    this.sweeper.unref();
    this.wake();
  }

  /** Looks for due deliveries now (after an emit), or after `delayMs` (a retry coming due). */
  wake(delayMs = 0): void {
    if (this.stopped) return;
    if (delayMs > 0) {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.wake();
      }, delayMs);
      timer.unref();
      this.timers.add(timer);
      return;
    }
    if (this.sweeping) {
      this.again = true;
      return;
    }
    this.sweeping = true;
    void this.sweep().finally(() => {
      this.sweeping = false;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async sweep(): Promise<void> {
    const room = this.options.concurrency - this.inFlight.size;
    if (room <= 0) return;
    let claimed: DeliveryRecord[];
    try {
      claimed = await this.store.claimDue(Date.now(), this.options.leaseMs, room);
    } catch {
      return; // The store is away: the next sweep tries again.
    }
    for (const record of claimed) {
      const run = this.run(record).finally(() => {
        this.inFlight.delete(run);
        this.wake();
      });
      this.inFlight.add(run);
    }
  }

  private async run(record: DeliveryRecord): Promise<void> {
    const result = await this.attempt(record).catch((error: unknown) => ({
      outcome: 'failed' as const,
      retryable: true,
      reason: error instanceof Error ? error.message : String(error),
    }));
    const attempts = record.attempts + 1;
    try {
      if (result.outcome === 'delivered') return await this.store.finish(record.id);
      const delay = this.options.retryDelaysMs[attempts - 1];
      if (!result.retryable || delay === undefined) {
        await this.store.finish(record.id);
        return this.onDropped({ ...record, attempts }, result.reason);
      }
      await this.store.retryAt({ ...record, attempts }, Date.now() + delay);
      this.wake(delay);
    } catch {
      // The store is away: the lease runs out and the delivery is claimed again.
    }
  }

  /** Stops claiming and waits for the attempts in flight (at most one attempt timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }
}
