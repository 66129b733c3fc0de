import { randomBytes } from 'node:crypto';
import type { DeliveryRecord, DeliveryStatus, EventsStore, LogLimits, LogPage, SubscriptionRecord } from './events-store.js';

interface Log {
  /** Sequence number of the last entry appended (0: none yet). */
  last: number;
  /** Sequence number of the last entry dropped (0: none). */
  dropped: number;
  entries: { seq: number; at: number; body: string }[];
}

/** Subscriptions and pending deliveries of one instance, in memory. */
export class MemoryEventsStore implements EventsStore {
  readonly shared = false;
  private readonly subscriptions = new Map<string, SubscriptionRecord>();
  private readonly verified = new Map<string, number>();
  private readonly deliveries = new Map<string, { record: DeliveryRecord; dueAt: number }>();
  private readonly logs = new Map<string, Log>();
  private readonly statuses = new Map<string, DeliveryStatus>();
  // Cursors name the process that gave them out: after a restart they read as a gap, not as positions.
  private readonly epoch = randomBytes(6).toString('hex');

  async saveSubscription(record: SubscriptionRecord): Promise<void> {
    this.subscriptions.set(record.id, record);
  }

  async subscription(id: string, now: number): Promise<SubscriptionRecord | undefined> {
    const record = this.subscriptions.get(id);
    if (record && record.expiresAt <= now) {
      this.subscriptions.delete(id);
      return undefined;
    }
    return record;
  }

  async removeSubscription(id: string): Promise<boolean> {
    this.statuses.delete(id);
    return this.subscriptions.delete(id);
  }

  async status(id: string): Promise<DeliveryStatus | undefined> {
    return this.subscriptions.has(id) ? this.statuses.get(id) : undefined;
  }

  async recordAttempt(id: string, at: number, error: string | undefined): Promise<void> {
    this.statuses.set(id, nextStatus(this.statuses.get(id), at, error));
  }

  async countOf(principal: string, now: number): Promise<number> {
    let count = 0;
    for (const record of this.subscriptions.values()) if (record.principal === principal && record.expiresAt > now) count++;
    return count;
  }

  async subscriptionsTo(name: string, now: number): Promise<SubscriptionRecord[]> {
    const live: SubscriptionRecord[] = [];
    for (const [id, record] of this.subscriptions) {
      if (record.expiresAt <= now) {
        this.subscriptions.delete(id);
        this.statuses.delete(id);
      } else if (record.name === name) live.push(record);
    }
    return live;
  }

  async markVerified(key: string, until: number): Promise<void> {
    this.verified.set(key, until);
  }

  async isVerified(key: string, now: number): Promise<boolean> {
    const until = this.verified.get(key);
    if (until === undefined) return false;
    if (until > now) return true;
    this.verified.delete(key);
    return false;
  }

  async enqueue(deliveries: readonly DeliveryRecord[], dueAt: number): Promise<void> {
    for (const record of deliveries) this.deliveries.set(record.id, { record, dueAt });
  }

  async claimDue(now: number, leaseMs: number, max: number): Promise<DeliveryRecord[]> {
    const claimed: DeliveryRecord[] = [];
    for (const entry of this.deliveries.values()) {
      if (claimed.length >= max) break;
      if (entry.dueAt > now) continue;
      entry.dueAt = now + leaseMs;
      claimed.push(entry.record);
    }
    return claimed;
  }

  async finish(id: string): Promise<void> {
    this.deliveries.delete(id);
  }

  async retryAt(record: DeliveryRecord, dueAt: number): Promise<void> {
    this.deliveries.set(record.id, { record, dueAt });
  }

  async nextDue(): Promise<number | undefined> {
    let next: number | undefined;
    for (const { dueAt } of this.deliveries.values()) if (next === undefined || dueAt < next) next = dueAt;
    return next;
  }

  async appendToLog(name: string, body: string, now: number, limits: LogLimits): Promise<void> {
    const log = this.logs.get(name) ?? { last: 0, dropped: 0, entries: [] };
    this.logs.set(name, log);
    log.last += 1;
    log.entries.push({ seq: log.last, at: now, body });
    while (log.entries.length > 0) {
      const oldest = log.entries[0] as { seq: number; at: number };
      if (log.entries.length <= limits.maxEvents && oldest.at > now - limits.maxAgeMs) break;
      log.entries.shift();
      log.dropped = oldest.seq;
    }
  }

  async readLog(name: string, cursor: string | null, max: number): Promise<LogPage | undefined> {
    const log = this.logs.get(name) ?? { last: 0, dropped: 0, entries: [] };
    const at = (seq: number) => `${this.epoch}.${seq}`;
    if (cursor === null) return { bodies: [], cursors: [], cursor: at(log.last), truncated: false, hasMore: false };
    const match = /^([0-9a-f]{12})\.(\d{1,15})$/.exec(cursor);
    if (!match) return undefined;
    const seq = Number(match[2]);
    // Another process's cursor, or one from the future: everything retained is new to the caller.
    const foreign = match[1] !== this.epoch || seq > log.last;
    const after = foreign ? log.dropped : seq;
    const unread = log.entries.filter((entry) => entry.seq > after);
    const page = unread.slice(0, max);
    const end = page.length > 0 ? (page[page.length - 1] as { seq: number }).seq : Math.max(after, log.dropped);
    return {
      bodies: page.map((e) => e.body),
      cursors: page.map((e) => at(e.seq)),
      cursor: at(end),
      truncated: foreign || after < log.dropped,
      hasMore: unread.length > page.length,
    };
  }

  async close(): Promise<void> {
    this.deliveries.clear();
  }
}

/** The status after one attempt: a success clears the error, a failure keeps when failures began. */
export function nextStatus(previous: DeliveryStatus | undefined, at: number, error: string | undefined): DeliveryStatus {
  const when = new Date(at).toISOString();
  if (error === undefined) return { lastDeliveryAt: when, lastError: null };
  return { lastDeliveryAt: previous?.lastDeliveryAt ?? null, lastError: error, failedSince: previous?.failedSince ?? when };
}
