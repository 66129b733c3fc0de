import type { SubscriptionRecord } from '../../src/events-store.js';

/** A subscription of alice's to the event `e`, live for a minute from `now`, without its id. */
export function aliceSubscription(now: number): Omit<SubscriptionRecord, 'id'> {
  return {
    principal: 'alice',
    url: 'https://x.example/h',
    name: 'e',
    arguments: {},
    secrets: ['s'],
    previousSecretUntil: 0,
    expiresAt: now + 60_000,
  };
}
