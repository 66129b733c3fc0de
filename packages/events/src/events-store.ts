/** A webhook subscription as the server holds it until it expires. */
export interface SubscriptionRecord {
  /** Derived from (principal, url, name, arguments): stable across refreshes and instances. */
  readonly id: string;
  readonly principal: string;
  readonly url: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  /** The secrets deliveries are signed with: the current one first, then one being rotated out. */
  readonly secrets: readonly string[];
  /** Until when a rotated-out secret still signs, epoch ms. */
  readonly previousSecretUntil: number;
  /** Epoch ms after which the subscription is gone unless refreshed. */
  readonly expiresAt: number;
}

/** How deliveries to a subscription have gone (the draft's `deliveryStatus`). */
export interface DeliveryStatus {
  /** ISO time of the last delivery a receiver accepted. */
  readonly lastDeliveryAt: string | null;
  /** The failure category of the last failed attempt since then, or null. */
  readonly lastError: string | null;
  /** ISO time of the first failed attempt since the last success. */
  readonly failedSince?: string;
}

/** One event on its way to one subscription. */
export interface DeliveryRecord {
  readonly id: string;
  readonly subscriptionId: string;
  /** `webhook-id`: the event id, the same on every attempt so the receiver can deduplicate. */
  readonly webhookId: string;
  /** The exact body sent (and signed). */
  readonly body: string;
  /** Attempts made so far. */
  readonly attempts: number;
}

/**
 * Where subscriptions and pending deliveries live. In memory for one instance; on Redis for
 * several, so a subscription taken by one instance receives events emitted on another, and a
 * delivery claimed by an instance that died is claimed again when its lease runs out.
 */
export interface EventsStore {
  /** Whether several instances see the same subscriptions and deliveries. */
  readonly shared: boolean;
  saveSubscription(record: SubscriptionRecord): Promise<void>;
  subscription(id: string, now: number): Promise<SubscriptionRecord | undefined>;
  removeSubscription(id: string): Promise<boolean>;
  /** The delivery status of a subscription, if anything was attempted. */
  status(id: string): Promise<DeliveryStatus | undefined>;
  /** Records one attempt's outcome (`error` undefined: delivered), kept until `expiresAt`. */
  recordAttempt(id: string, at: number, error: string | undefined, expiresAt: number): Promise<void>;
  /** How many unexpired subscriptions one principal holds. */
  countOf(principal: string, now: number): Promise<number>;
  /** The unexpired subscriptions to one event. */
  subscriptionsTo(name: string, now: number): Promise<SubscriptionRecord[]>;
  /** Remembers that `key` (principal and URL) passed the verification challenge, until `until`. */
  markVerified(key: string, until: number): Promise<void>;
  isVerified(key: string, now: number): Promise<boolean>;
  /** Adds deliveries, due at `dueAt`. */
  enqueue(deliveries: readonly DeliveryRecord[], dueAt: number): Promise<void>;
  /**
   * Takes up to `max` deliveries due by `now` and leases them until `now + leaseMs`: nobody else
   * takes them in that time, and anybody may after it (the taker died or hung).
   */
  claimDue(now: number, leaseMs: number, max: number): Promise<DeliveryRecord[]>;
  /** The delivery is done (delivered, or given up): it is removed. */
  finish(id: string): Promise<void>;
  /** The delivery failed and waits until `dueAt` with its new attempt count. */
  retryAt(record: DeliveryRecord, dueAt: number): Promise<void>;
  /** The earliest due time of a pending delivery, if any. */
  nextDue(): Promise<number | undefined>;
  /**
   * Keeps an emitted event body in the event type's log for `events/poll` (the draft's emit-only
   * ring buffer), dropping entries older than `maxAgeMs` or beyond the newest `maxEvents`.
   */
  appendToLog(name: string, body: string, now: number, limits: LogLimits): Promise<void>;
  /**
   * The bodies logged after `cursor` (null: none, start from now), at most `max`, the cursor after
   * them, and whether entries after `cursor` were already dropped (a gap). Undefined when `cursor`
   * is not one this store gave out.
   */
  readLog(name: string, cursor: string | null, max: number): Promise<LogPage | undefined>;
  close(): Promise<void>;
}

export interface LogLimits {
  readonly maxAgeMs: number;
  readonly maxEvents: number;
}

export interface LogPage {
  readonly bodies: readonly string[];
  /** The cursor after each of `bodies` (as `cursor` is after the last). */
  readonly cursors: readonly string[];
  readonly cursor: string;
  readonly truncated: boolean;
  readonly hasMore: boolean;
}
