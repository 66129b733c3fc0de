import type { DeliveryRecord, EventsStore, SubscriptionRecord } from './events-store.js';

/** Subscriptions and pending deliveries of one instance, in memory. */
export class MemoryEventsStore implements EventsStore {
  readonly shared = false;
  private readonly subscriptions = new Map<string, SubscriptionRecord>();
  private readonly verified = new Map<string, number>();
  private readonly deliveries = new Map<string, { record: DeliveryRecord; dueAt: number }>();

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
    return this.subscriptions.delete(id);
  }

  async subscriptionsTo(name: string, now: number): Promise<SubscriptionRecord[]> {
    const live: SubscriptionRecord[] = [];
    for (const [id, record] of this.subscriptions) {
      if (record.expiresAt <= now) this.subscriptions.delete(id);
      else if (record.name === name) live.push(record);
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

  async close(): Promise<void> {
    this.deliveries.clear();
  }
}
