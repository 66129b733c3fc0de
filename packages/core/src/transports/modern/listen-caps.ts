import type { StreamLeases } from '../../state/app-state.js';
import { PerClientCounter } from '../http/per-client-counter.js';

/** How long a listen stream's lease lasts without renewal (renewed every third of it while open). */
const LEASE_MS = 30_000;

/**
 * The per-client cap on 2026-07-28 `subscriptions/listen` streams: counted here, and, when instances
 * share a state, over every instance through leases that an open stream keeps renewing (so a stream
 * whose instance died stops counting once its lease lapses).
 */
export class ListenCaps {
  private readonly local: PerClientCounter;

  constructor(
    readonly max: number,
    private readonly leases?: StreamLeases,
  ) {
    this.local = new PerClientCounter(max);
  }

  /** Holds a stream for `client`: the function that lets it go, or undefined when the cap is reached. */
  async acquire(client: string | undefined): Promise<(() => void) | undefined> {
    if (!this.local.tryAcquire(client)) return undefined;
    const leases = this.leases;
    if (!leases || client === undefined) return () => this.local.release(client);
    let lease: string | undefined;
    try {
      lease = await leases.acquire(client, this.max, LEASE_MS);
    } catch (error) {
      this.local.release(client);
      throw error;
    }
    if (lease === undefined) {
      this.local.release(client);
      return undefined;
    }
    const held = lease;
    const renewal = setInterval(() => void leases.renew(client, held, LEASE_MS).catch(() => undefined), LEASE_MS / 3);
    renewal.unref();
    return () => {
      clearInterval(renewal);
      this.local.release(client);
      void leases.release(client, held).catch(() => undefined);
    };
  }
}
