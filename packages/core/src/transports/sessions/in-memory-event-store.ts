import { randomUUID } from 'node:crypto';
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

export interface InMemoryEventStoreOptions {
  /** Most events kept in all; the oldest are dropped first. Default 10,000. */
  maxEvents?: number;
  /** Most bytes of serialized messages kept in all; the oldest are dropped first. Default 32 MiB. */
  maxBytes?: number;
}

export const DEFAULT_EVENT_STORE_LIMITS: Readonly<Required<InMemoryEventStoreOptions>> = Object.freeze({
  maxEvents: 10_000,
  maxBytes: 32 * 1024 * 1024,
});

interface StoredEvent {
  readonly streamId: string;
  readonly message: JSONRPCMessage;
  readonly bytes: number;
}

/**
 * Keeps the recent SSE events of 2025-11-25 sessions in memory so a client that lost its stream
 * can resume with `Last-Event-ID` (spec: Streamable HTTP, resumability; SEP-1699 polling). Bounded
 * by count and by bytes, the oldest dropped first, so a few large tool results cannot hold the
 * process's memory. The endpoint namespaces stream ids by session and calls `purge` when a session
 * ends. Single-process only: behind a load balancer use a shared store.
 */
export class InMemoryEventStore implements EventStore {
  private readonly events = new Map<string, StoredEvent>();
  private bytes = 0;
  private readonly limits: Readonly<Required<InMemoryEventStoreOptions>>;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.limits = { ...DEFAULT_EVENT_STORE_LIMITS, ...options };
  }

  /** Events and bytes held now. */
  get size(): { events: number; bytes: number } {
    return { events: this.events.size, bytes: this.bytes };
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // Opaque ids: an event id seen in a log names neither the session nor the stream.
    const eventId = randomUUID();
    const bytes = Buffer.byteLength(JSON.stringify(message));
    this.events.set(eventId, { streamId, message, bytes });
    this.bytes += bytes;
    while (this.events.size > this.limits.maxEvents || (this.bytes > this.limits.maxBytes && this.events.size > 0)) {
      const oldest = this.events.keys().next().value as string;
      this.drop(oldest);
    }
    return eventId;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.events.get(lastEventId);
    if (!last) return '';
    let after = false;
    for (const [eventId, event] of this.events) {
      if (eventId === lastEventId) {
        after = true;
        continue;
      }
      if (after && event.streamId === last.streamId) await send(eventId, event.message);
    }
    return last.streamId;
  }

  /** Forgets every event of the streams whose id starts with `streamPrefix` (a session that ended). */
  async purge(streamPrefix: string): Promise<void> {
    for (const [eventId, event] of this.events) if (event.streamId.startsWith(streamPrefix)) this.drop(eventId);
  }

  private drop(eventId: string): void {
    const event = this.events.get(eventId);
    if (!event) return;
    this.events.delete(eventId);
    this.bytes -= event.bytes;
  }
}
