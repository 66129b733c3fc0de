export { EgressPolicy } from './egress.js';
export { eventsErrorCodes } from './error-codes.js';
export type { EventDeclaration } from './event-catalog.js';
export { EVENTS_EXTENSION_ID, type Events, events } from './events-extension.js';
export {
  type EmitResult,
  EVENTS_ERROR_CODES,
  type EventsOptions,
  EventsRuntime,
  MAX_EVENT_BYTES,
  type StreamChannel,
} from './events-runtime.js';
export type { DeliveryRecord, EventsStore, SubscriptionRecord } from './events-store.js';
export { MemoryEventsStore } from './memory-events-store.js';
export { type RedisEventsStoreOptions, redisEventsStore } from './redis-events-store.js';
export { SUBSCRIPTION_ID_HEADER } from './signature.js';
